#include "engine/fused_groups.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include "engine/collective_plan.hpp"
#include "engine/collective_shortcuts.hpp"
#include "engine/network_factors.hpp"
#include "engine/replica_fold.hpp"
#include "engine/simulation_state.hpp"
#include "core/index.hpp"

namespace ccsim::engine::detail {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

bool is_p2p(const Op& op) { return op.kind == OpKind::kSend || op.kind == OpKind::kRecv; }

/// The p2p calls of `program` (a program with streams): at the first operator of each, one
/// past its last; 0 elsewhere (FusedGroups::calls_).
std::vector<std::uint32_t> p2p_calls(const trace::Program& program) {
  const auto& ops = program.ops;
  std::vector<std::uint32_t> calls(ops.size(), 0);
  const std::size_t none = ops.size();
  std::size_t last_main = none;  // the main stream's latest operator before i
  const auto streams = as_index(program.stream_count());
  for (std::size_t i = 0; i < ops.size();) {
    if (!is_p2p(ops[i])) {
      if (ops[i].stream == 0) last_main = i;
      ++i;
      continue;
    }
    // [i, j): sends and receives on streams of their own (one on the main stream at most),
    // those off it after the main stream's latest operator; the next operator of the main
    // stream waits for them and nothing else.
    std::size_t j = i;
    std::vector<char> seen(streams, 0);
    bool ok = true, off_main = false;
    for (; j < ops.size() && is_p2p(ops[j]); ++j) {
      const Op& op = ops[j];
      ok = ok && seen[op.stream] == 0;
      seen[op.stream] = 1;
      if (op.stream == 0) {
        ok = ok && op.after_count == 0;
      } else {
        off_main = true;
        const auto after = program.after_of(op);
        ok = ok && after.size() == 1 && last_main != none && after[0] == last_main;
      }
    }
    ok = ok && off_main && j < ops.size() && ops[j].stream == 0;
    if (ok) {
      const auto joined = program.after_of(ops[j]);
      for (std::size_t k = i; k < j; ++k) {
        if (ops[k].stream != 0) ok = ok && std::find(joined.begin(), joined.end(), k) != joined.end();
      }
      ok = ok && std::all_of(joined.begin(), joined.end(), [&](std::uint32_t d) { return d >= i && d < j; });
    }
    if (ok) calls[i] = static_cast<std::uint32_t>(j);
    for (std::size_t k = i; k < j; ++k) {
      if (ops[k].stream == 0) last_main = k;
    }
    i = j;
  }
  return calls;
}

}  // namespace

void FusedGroups::find_p2p_calls(const NetworkFactors* factors) {
  calls_.assign(trace_.programs.size(), {});
  // A call's operators would each pay a CPU overhead on the rank's accelerator at once: their
  // lanes time-share it, which one actor posting them all does not.
  if (factors != nullptr) {
    for (bool same_node : {true, false}) {
      if (factors->send_overhead_s(same_node) != 0 || factors->recv_overhead_s(same_node) != 0) return;
    }
  }
  for (std::size_t p = 0; p < trace_.programs.size(); ++p) {
    if (trace_.programs[p].stream_count() > 1) calls_[p] = p2p_calls(trace_.programs[p]);
  }
}

std::vector<std::size_t> FusedGroups::fusable_until() const {
  std::vector<std::size_t> until(trace_.programs.size(), 0);
  for (std::size_t p = 0; p < trace_.programs.size(); ++p) {
    const auto& ops = trace_.programs[p].ops;
    // A rank with streams runs fused on its first stream while nothing of the others may
    // overlap it (and none of its operators waits for another stream's), and through p2p
    // calls (calls_), each a fork, and the operator that waits for a call.
    until[p] = ops.size();
    if (trace_.programs[p].stream_count() == 1) continue;
    const std::vector<char>& alone = shortcuts_.alone(static_cast<int>(p));
    const std::vector<std::uint32_t>& calls = calls_[p];
    std::size_t& u = until[p];
    std::size_t joins = ops.size();  // the operator that waits for the last call run through
    for (u = 0; u < ops.size();) {
      if (!calls.empty() && calls[u] != 0) {
        u = joins = calls[u];
        continue;
      }
      if (ops[u].stream != 0 || (ops[u].after_count != 0 && u != joins) || alone[u] == 0) break;
      ++u;
    }
  }
  return until;
}

std::vector<std::size_t> FusedGroups::anchors(const std::vector<std::size_t>& until) const {
  // Per program, its first rank's group of the most collectives (ties: the first seen), by
  // the operator index of its first collective there, and whether it can run fused there.
  std::vector<std::size_t> anchor(trace_.programs.size(), kNone);
  std::vector<int> first_rank(trace_.programs.size(), -1);
  for (int r = 0; r < trace_.world_size; ++r) {
    int& f = at(first_rank, at(trace_.program_of, r));
    if (f < 0) f = r;
  }
  for (std::size_t p = 0; p < trace_.programs.size(); ++p) {
    const int r0 = first_rank[p];
    if (r0 < 0) continue;
    const auto& ops = trace_.programs[p].ops;
    std::map<int, std::pair<int, std::size_t>> calls;  // group -> (collectives, first operator)
    for (std::size_t i = 0; i < until[p]; ++i) {
      if (!trace::is_collective(ops[i].kind)) continue;
      const int g = trace_.op(r0, i).group;
      auto [it, fresh] = calls.try_emplace(g, 0, i);
      ++it->second.first;
    }
    int best = 0;
    for (const auto& [g, c] : calls) {
      if (c.first > best || (c.first == best && c.second < anchor[p])) {
        best = c.first;
        anchor[p] = c.second;
      }
    }
    if (anchor[p] == kNone) continue;
    // Fused only where the group's collectives can run as their critical path (otherwise
    // every one of them would be a fork, costlier than no fusion).
    const Op op = trace_.op(r0, anchor[p]);
    if (!shortcuts_.refusal(planner_.plan(op, r0, anchor[p]), op.group).empty()) anchor[p] = kNone;
  }
  return anchor;
}

void FusedGroups::plan(const ReplicaFolding& folding, const NetworkFactors* factors) {
  find_p2p_calls(factors);
  const std::vector<std::size_t> until = fusable_until();
  const std::vector<std::size_t> anchor = anchors(until);
  const auto world = as_index(trace_.world_size);
  std::vector<int> group_of(world, -1);
  for (int r = 0; r < trace_.world_size; ++r) {
    const std::size_t p = as_index(at(trace_.program_of, r));
    if (anchor[p] != kNone) at(group_of, r) = trace_.op(r, anchor[p]).group;
  }
  group_of_.assign(world, -1);
  slot_.assign(world, -1);
  for (int r = 0; r < trace_.world_size; ++r) {
    const int g = at(group_of, r);
    if (g < 0 || at(group_of_, r) >= 0) continue;
    const std::vector<int>& members = at(trace_.groups, g).ranks;
    if (members.size() < 2) continue;
    const int program = at(trace_.program_of, members.front());
    const bool identical = std::all_of(members.begin(), members.end(), [&](int m) {
      return at(trace_.program_of, m) == program && at(group_of, m) == g && at(group_of_, m) < 0 &&
             !folding.folded(m) && at(sharing_, at(placement_, m)) == 1;
    });
    if (!identical) continue;
    Group fusion;
    fusion.members = members;
    fusion.group = g;
    fusion.until = at(until, program);
    for (std::size_t k = 0; k < members.size(); ++k) {
      at(group_of_, members[k]) = static_cast<int>(groups_.size());
      at(slot_, members[k]) = static_cast<int>(k);
      fusion.go.push_back(k == 0 ? nullptr : sg4::Semaphore::create(0));
    }
    groups_.push_back(std::move(fusion));
  }
  if (groups_.empty()) group_of_.clear();
}

FusedGroups::Group* FusedGroups::followed_group(int rank) {
  if (group_of_.empty() || at(group_of_, rank) < 0 || at(slot_, rank) == 0) return nullptr;
  return &at(groups_, at(group_of_, rank));
}

int FusedGroups::reads_records_of(int rank) const {
  if (group_of_.empty() || at(group_of_, rank) < 0 || at(slot_, rank) == 0) return -1;
  const Group& fusion = at(groups_, at(group_of_, rank));
  return fusion.until == trace_.program_ops(rank).size() ? fusion.members.front() : -1;
}

OpRecord* FusedGroups::fork_record(int rank, std::size_t i) {
  // A follower that reads its leader's records runs only forks, into a record of its own.
  Group* fusion = followed_group(rank);
  if (fusion == nullptr || !sim_.records().shared(as_index(rank), as_index(fusion->members.front()))) {
    return nullptr;
  }
  const Fork& fork = *fusion->fork;
  return &fusion->fork->records[as_index(at(slot_, rank)) * fork.width() + (i - fork.op)];
}

std::size_t FusedGroups::run(int rank) {
  Group& fusion = at(groups_, at(group_of_, rank));
  const int slot = at(slot_, rank);
  return slot == 0 ? run_leader(fusion) : run_follower(fusion, slot);
}

bool FusedGroups::ran_whole_program(int rank) const {
  const Group& fusion = at(groups_, at(group_of_, rank));
  return fusion.done && fusion.until == trace_.program_ops(rank).size();
}

std::size_t FusedGroups::run_leader(Group& fusion) {
  const int lead = fusion.members.front();
  const auto& ops = trace_.program_ops(lead);
  RankRecords& records = sim_.records();
  const auto& lead_records = at(records, lead);
  for (std::size_t i = 0; i < fusion.until;) {
    for (int m : fusion.members) lanes_.first(m).op = i;
    if (ops[i].kind == OpKind::kCompute) {
      const std::size_t next = sim_.run_compute(lead, i);
      for (int m : fusion.members) lanes_.end_ops(m, i, next);
      for (std::size_t k = 1; k < fusion.members.size(); ++k) {
        const auto mk = as_index(fusion.members[k]);
        if (records.shared(mk, as_index(lead))) continue;
        auto& mine = records.writable(mk);
        for (std::size_t j = i; j < next; ++j) {
          mine[j].start_s = lead_records[j].start_s;
          mine[j].end_s = lead_records[j].end_s;
        }
      }
      i = next;
      continue;
    }
    const Op op = trace_.op(lead, i);
    if (trace::is_collective(op.kind) && op.group == fusion.group && run_fused_collective(fusion, op, i)) {
      for (int m : fusion.members) lanes_.end_ops(m, i, i + 1);
      ++i;
      continue;
    }
    // A fork: every member runs operator i (or the p2p call from i) as its own.
    const std::vector<std::uint32_t>& calls = at(calls_, at(trace_.program_of, lead));
    auto fork = std::make_shared<Fork>();
    fusion.fork = fork;
    fork->op = i;
    fork->end = !calls.empty() && calls[i] != 0 ? calls[i] : i + 1;
    for (std::size_t k = 0; k < fusion.members.size(); ++k) {
      fork->records.insert(fork->records.end(), lead_records.begin() + static_cast<std::ptrdiff_t>(i),
                           lead_records.begin() + static_cast<std::ptrdiff_t>(fork->end));
    }
    for (std::size_t k = 1; k < fusion.members.size(); ++k) fusion.go[k]->release();
    run_fork(lead, *fork);
    if (!join(fusion, lead, fork)) return fork->end;
    i = fork->end;
  }
  fusion.done = true;
  for (int m : fusion.members) {
    lanes_.first(m).op = fusion.until;
    lanes_.first(m).done = fusion.until == ops.size();
  }
  for (std::size_t k = 1; k < fusion.members.size(); ++k) fusion.go[k]->release();
  return fusion.until;
}

std::size_t FusedGroups::run_follower(Group& fusion, int slot) {
  const int rank = at(fusion.members, slot);
  for (;;) {
    at(fusion.go, slot)->acquire();
    if (fusion.done) return fusion.until;
    const std::shared_ptr<Fork> fork = fusion.fork;
    run_fork(rank, *fork);
    if (!join(fusion, rank, fork)) return fork->end;
  }
}

void FusedGroups::run_fork(int rank, const Fork& fork) {
  if (fork.width() == 1) {
    sim_.run_op(rank, fork.op);
  } else {
    run_call(rank, fork.op, fork.end);
  }
  lanes_.end_ops(rank, fork.op, fork.end);
}

void FusedGroups::run_call(int rank, std::size_t first, std::size_t end) {
  RankState& st = sim_.state(rank);
  const double posted_s = sg4::Engine::get_clock();
  std::vector<sg4::CommPtr> comms;
  std::vector<int*> received(end - first, nullptr);  // get_async's payload slots
  for (std::size_t k = first; k < end; ++k) {
    const Op op = trace_.op(rank, k);
    sim_.record(rank, k).start_s = posted_s;
    comms.push_back(sim_.post_p2p(rank, op, &received[k - first]));
  }
  st.op = first;
  for (const sg4::CommPtr& comm : comms) comm->wait();
  // Each operator as its own lane records it: waiting from the post to its transfer's start,
  // ended when its transfer finished.
  for (std::size_t k = first; k < end; ++k) {
    const sg4::Comm& comm = *comms[k - first];
    st.op = k;
    sim_.waited(rank, posted_s, comm.get_start_time());
    sim_.record(rank, k).end_s = comm.get_finish_time();
  }
  st.op = first;
  st.send_peer = st.recv_peer = -1;
}

bool FusedGroups::join(Group& fusion, int rank, const std::shared_ptr<Fork>& fork) {
  const double now = sg4::Engine::get_clock();
  if (fork->finished == 0)
    fork->first_end_s = now;
  else if (now != fork->first_end_s)
    fork->ends_equal = false;
  ++fork->finished;
  // Members whose operators end at this instant are woken together and join before any of
  // them runs again: after one yield, the fork's count says whether all ended now. One that
  // ends later finds it decided (apart) and goes on alone, as the early ones did.
  sg4::this_actor::yield();
  if (!fork->decided) {
    fork->decided = true;
    fork->together = fork->finished == static_cast<int>(fusion.members.size()) && fork->ends_equal;
    if (fork->together)
      ++fusion.forks;
    else
      fusion.parted = true;
  }
  settle_fork_record(fusion, rank, *fork);
  return fork->together;
}

void FusedGroups::settle_fork_record(const Group& fusion, int rank, const Fork& fork) {
  RankRecords& records = sim_.records();
  const auto r = as_index(rank);
  const auto lead = as_index(fusion.members.front());
  if (r == lead || !records.shared(r, lead)) return;
  // The fork's own operators and records: after a fork that ended together the leader may have
  // begun the next one before this member runs again.
  const std::size_t w = fork.width();
  const OpRecord* mine = &fork.records[as_index(at(slot_, rank)) * w];
  // Ended with the others and recorded as the leader did: it goes on reading the leader's list.
  if (fork.together && std::memcmp(mine, &records[lead][fork.op], w * sizeof(OpRecord)) == 0) return;
  // Otherwise a copy of its own: the leader's records up to the fork (which it ran in lockstep),
  // its own of the fork, and the rest as not yet run (the leader may have gone on alone).
  auto& own = records.own(r);
  std::copy(mine, mine + w, own.begin() + static_cast<std::ptrdiff_t>(fork.op));
  for (std::size_t j = fork.end; j < own.size(); ++j) {
    OpRecord& later = own[j];
    later.algorithm = 0;
    later.error_worst_eb = later.error_expected_eb = 0;
    later.start_s = later.end_s = later.wait_s = 0;
  }
}

bool FusedGroups::run_fused_collective(Group& fusion, const Op& op, std::size_t i) {
  const int lead = fusion.members.front();
  const CollectivePlan& plan = planner_.plan(op, lead, i);
  if (!shortcuts_.refusal(plan, op.group).empty()) return false;
  const double now = sg4::Engine::get_clock();
  const std::vector<double> starts(as_index(plan.request.size), now);
  const collective::CriticalPathTimes times = shortcuts_.times(plan, op.group, starts);
  const double end_s = times.ends_s.front();
  // One record for all: equal ends, and no waits (a rank waiting inside a collective started
  // together is one whose peers are further from it than its own: not identical).
  if (!std::all_of(times.ends_s.begin(), times.ends_s.end(), [&](double e) { return e == end_s; })) return false;
  if (!std::all_of(times.waits.begin(), times.waits.end(), [](const auto& w) { return w.empty(); })) return false;
  // A time that is not finite, or an end before the start, is left to the members' own runs,
  // which report it.
  if (!std::isfinite(end_s * speed_) || end_s < now) return false;
  // The leader's record, and those of followers that hold their own (the others read the leader's).
  RankRecords& lists = sim_.records();
  std::vector<OpRecord*> records;
  for (int m : fusion.members) {
    const auto mm = as_index(m);
    collectives_.enter(m, op.group);
    if (m != lead && lists.shared(mm, as_index(lead))) continue;
    OpRecord& record = lists.writable(mm)[i];
    sim_.label(record, plan);
    record.start_s = now;
    records.push_back(&record);
  }
  sg4::this_actor::sleep_until(end_s);
  const double finished_s = sg4::Engine::get_clock();
  for (OpRecord* record : records) record->end_s = finished_s;
  return true;
}

std::string FusedGroups::note() const {
  if (groups_.empty()) return "";
  std::size_t parted = 0;
  int forks = 0;
  std::map<std::size_t, std::size_t> by_size;
  std::size_t streamed = 0;  // ran as one up to an operator that another stream may overlap
  for (const Group& f : groups_) {
    parted += f.parted ? 1 : 0;
    forks += f.forks;
    streamed += f.until < trace_.program_ops(f.members.front()).size() ? 1 : 0;
    ++by_size[f.members.size()];
  }
  std::vector<std::string> sizes;
  for (const auto& [size, count] : by_size) {
    sizes.push_back(fmt::format("{} group{} of {} ranks", count, count == 1 ? "" : "s", size));
  }
  return fmt::format(
             "shortcuts: groups of ranks running one program ({}, e.g. \"{}\") ran as one simulated rank "
             "each while in lockstep (their compute and their group's collectives; {} sends, receives or "
             "other collectives ran by every member and ended together); {} of {} groups went on rank by "
             "rank after an operator whose ends differed",
             fmt::join(sizes, ", "), at(trace_.groups, groups_.front().group).name, forks, parted, groups_.size()) +
         (streamed == 0 ? std::string()
                        : fmt::format("; {} groups of ranks with streams ran as one only up to their first operator "
                                      "that another stream may overlap (other than a call of sends and receives posted "
                                      "together), then rank by rank",
                                      streamed));
}

}  // namespace ccsim::engine::detail
