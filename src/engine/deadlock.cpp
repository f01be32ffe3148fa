#include "engine/deadlock.hpp"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <simgrid/s4u/Engine.hpp>

#include "engine/collective_plan.hpp"
#include "engine/collective_runner.hpp"
#include "engine/replica_fold.hpp"
#include "engine/stream_lanes.hpp"
#include "core/index.hpp"

namespace ccsim::engine::detail {

namespace {

using trace::Op;
using trace::OpKind;

/// Where a blocked lane is and what it waits for, in words.
struct Explainer {
  const trace::Trace& trace_;
  const StreamLanes& lanes_;
  const CollectiveRunner& collectives_;
  const ReplicaFolding& folding_;

  /// Where `rank`'s lanes are: the operators its blocked lanes are in, or that it finished.
  std::string describe_position(int rank) const;
  /// What blocked lane `st` of `rank` waits for.
  std::string describe_wait(int rank, const RankState& st) const;
};

std::string Explainer::describe_position(int rank) const {
  std::vector<std::string> blocked;
  for (const RankState& st : lanes_.of_rank(rank)) {
    if (st.done) continue;
    const Op& op = trace_.program_ops(rank)[st.op];
    blocked.push_back(fmt::format("operator #{} '{}'{}", st.op, trace_.op_name(op),
                                  lanes_.lanes(rank) > 1 ? fmt::format(" (stream {})", st.stream) : std::string()));
  }
  if (blocked.empty()) return fmt::format("rank {} has finished all its operators", rank);
  return fmt::format("rank {} is blocked in {}", rank, fmt::join(blocked, " and "));
}

std::string Explainer::describe_wait(int rank, const RankState& st) const {
  const Op op = trace_.op(rank, st.op);
  std::string head = fmt::format("rank {}{}: operator #{} '{}' (line {})", rank,
                                 lanes_.lanes(rank) > 1 ? fmt::format(" stream {}", st.stream) : std::string(), st.op,
                                 trace_.op_name(op), op.line);
  if (st.after >= 0) {
    const auto d = as_index(st.after);
    const Op& dep = trace_.program_ops(rank)[d];
    return fmt::format("{} waits for operator #{} '{}' (line {}, stream {}) to end", head, d, trace_.op_name(dep),
                       dep.line, dep.stream);
  }
  if (op.kind == OpKind::kCompute) {
    // Not a wait: the simulation ended while the rank computed (a stall elsewhere, or work
    // that SimGrid could not finish).
    return fmt::format("{} was still computing ({:g} s)", head, st.busy_with != nullptr ? st.busy_s : 0.0);
  }
  if (op.kind == OpKind::kRecv) {
    return fmt::format("{} waits for a send from rank {} (tag \"{}\", {} bytes); {}", head, op.peer,
                       trace_.names[op.tag], op.bytes, describe_position(op.peer));
  }
  if (op.kind == OpKind::kSend) {
    return fmt::format("{} waits for rank {} to receive (tag \"{}\", {} bytes); {}", head, op.peer,
                       trace_.names[op.tag], op.bytes, describe_position(op.peer));
  }
  const trace::Group& group = at(trace_.groups, op.group);
  std::vector<std::string> absent;
  for (int member : group.ranks) {
    if (folding_.folded(member)) continue;  // stood for by a simulated member
    if (collectives_.entered(member, op.group) < st.sequence) {
      absent.push_back(describe_position(member));
    }
  }
  std::string where =
      fmt::format("{} on group \"{}\" (its collective #{} on this group)", head, group.name, st.sequence);
  if (!absent.empty()) {
    return fmt::format("{} waits for members that never reached it: {}", where, fmt::join(absent, "; "));
  }
  const int peer = st.recv_peer >= 0 ? st.recv_peer : st.send_peer;
  const std::size_t steps = st.plan->schedule->steps(st.group_rank).size();
  if (peer < 0) {  // inside a compress, decompress or reduce step: busy, waiting for no one
    return fmt::format("{} was still {} in step {} of {} ({:g} s)", where,
                       st.busy_with != nullptr ? st.busy_with : "busy", st.step + 1, steps, st.busy_s);
  }
  return fmt::format("{} waits in step {} of {} for rank {}; {}", where, st.step + 1, steps, peer,
                     describe_position(peer));
}

}  // namespace

std::string explain_deadlock(const trace::Trace& trace, const StreamLanes& lanes, const CollectiveRunner& collectives,
                             const ReplicaFolding& folding) {
  const Explainer explainer{trace, lanes, collectives, folding};

  std::vector<std::pair<int, const RankState*>> blocked;  // lanes, with their rank
  int ranks = 0;
  for (int r = 0; r < trace.world_size; ++r) {
    bool any = false;
    for (const RankState& st : lanes.of_rank(r)) {
      if (st.done) continue;
      if (!folding.folded(r)) blocked.emplace_back(r, &st);  // a folded rank is where its image is
      any = true;
    }
    ranks += any ? 1 : 0;
  }
  std::string out = fmt::format("simulation cannot progress at t={:.6f} s: {} of {} ranks are blocked",
                                simgrid::s4u::Engine::get_clock(), ranks, trace.world_size);
  if (!folding.image.empty()) {
    const std::string peers =
        folding.tensor_peers == 0
            ? std::string()
            : fmt::format("one of the {} tensor-parallel peers of each group", folding.tensor_peers);
    const std::string replicas =
        folding.replicas == 0 ? std::string()
                              : fmt::format("{} of the {} data-parallel replicas", folding.simulated, folding.replicas);
    out += fmt::format(
        " (the shortcuts simulated {}{}{}: the ranks of the others are where their copies are, and "
        "are not listed)",
        replicas, replicas.empty() || peers.empty() ? "" : " and ", peers);
  }
  constexpr std::size_t kShown = 8;
  for (std::size_t i = 0; i < blocked.size() && i < kShown; ++i)
    out += "\n  " + explainer.describe_wait(blocked[i].first, *blocked[i].second);
  if (blocked.size() > kShown) {
    out += fmt::format("\n  ... and {} more blocked {}", blocked.size() - kShown,
                       blocked.size() == as_index(ranks) ? "ranks" : "ranks or streams");
  }
  return out;
}

}  // namespace ccsim::engine::detail
