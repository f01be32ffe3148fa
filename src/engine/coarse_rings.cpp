#include "engine/coarse_rings.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include "engine/collective_plan.hpp"
#include "engine/collective_runner.hpp"
#include "engine/collective_shortcuts.hpp"
#include "engine/simulation_state.hpp"
#include "core/index.hpp"

namespace ccsim::engine::detail {

std::optional<CoarseRings::Ring> CoarseRings::ring(const CollectivePlan& plan,
                                                   std::span<const collective::Step> steps) const {
  Ring ring;
  for (const collective::Step& step : steps) {
    // A codec's work between the steps leaves the links idle in gaps that other messages fill:
    // coarse steps make them few and long, and two compressed rings sharing NICs came out up
    // to 2.5 % apart from their step-by-step replay, in either direction.
    if (step.kind != collective::StepKind::kExchange || step.compressed) return std::nullopt;
    if (step.send_peer < 0 || step.recv_peer < 0) return std::nullopt;
    if (ring.exchanges == 0) {
      ring.send_peer = step.send_peer;
      ring.recv_peer = step.recv_peer;
    } else if (step.send_peer != ring.send_peer || step.recv_peer != ring.recv_peer) {
      return std::nullopt;
    }
    ++ring.exchanges;
  }
  if (ring.exchanges <= kCoarseSteps) return std::nullopt;  // nothing to gain
  const int coarse = kCoarseSteps;
  ring.steps.resize(static_cast<std::size_t>(coarse));
  for (std::size_t x = 0; x < steps.size(); ++x) {  // exchange x in coarse step x * coarse / exchanges
    Ring::Step& step = ring.steps[x * static_cast<std::size_t>(coarse) / steps.size()];
    ++step.exchanges;
    step.bytes += wire_bytes(plan, steps[x]);
    step.reduce_s += step_busy_s(plan, steps[x], seconds_per_reduced_byte_);
  }
  return ring;
}

bool CoarseRings::applies(const CollectivePlan& plan, int group) {
  auto [it, fresh] = schedules_.try_emplace(std::make_pair(plan.schedule.get(), group), false);
  if (fresh) {
    const std::vector<int>& members = at(trace_.groups, group).ranks;
    bool coarse =
        !cpu_core_ && shortcuts_->stream_disagreement(group).empty() &&
        std::all_of(members.begin(), members.end(), [&](int m) { return at(sharing_, at(placement_, m)) == 1; });
    int exchanges = -1;
    for (int r = 0; r < plan.request.size && coarse; ++r) {
      const std::optional<Ring> mine = ring(plan, plan.schedule->steps(r));
      coarse = mine.has_value() && (exchanges < 0 || mine->exchanges == exchanges);
      if (coarse) exchanges = mine->exchanges;
    }
    it->second = coarse;
  }
  return it->second;
}

void CoarseRings::run(int rank, const trace::Op& op, const Ring& ring) {
  const trace::Group& group = at(trace_.groups, op.group);
  const int to = at(group.ranks, ring.send_peer);
  const int from = at(group.ranks, ring.recv_peer);
  // The receive path's latency, paid once per step (CM02 without TCP-gamma).
  const double latency_s = shortcuts_->path(at(placement_, from), at(placement_, rank)).latency_s;
  sg4::Mailbox* out = sim_.channels().get(Channels::kCollective, op.group, rank, to);
  sg4::Mailbox* in = sim_.channels().get(Channels::kCollective, op.group, from, rank);
  RankState& st = sim_.state(rank);
  st.step = -1;
  for (const Ring::Step& step : ring.steps) {
    st.step += step.exchanges;
    st.send_peer = to;
    st.recv_peer = from;
    const double posted_s = sg4::Engine::get_clock();
    sg4::CommPtr send = sim_.post_send(out, rank, to, step.bytes);
    int* received = nullptr;
    sg4::CommPtr recv = in->get_async<int>(&received);
    send->wait();
    recv->wait();
    sim_.waited_for(rank, posted_s, {send.get(), recv.get()});
    st.send_peer = st.recv_peer = -1;
    sg4::this_actor::sleep_for((step.exchanges - 1) * latency_s);
    sim_.busy(rank, step.reduce_s, "reducing");
  }
  if (st.group_rank == 0) {
    ++calls_;
    if (first_group_ < 0) first_group_ = op.group;
  }
}

bool CoarseRings::arrive_together(int rank, const Ring& ring, const trace::Op& op, int sequence) {
  auto [it, fresh] = arrivals_.try_emplace(std::make_pair(op.group, sequence));
  Arrivals& call = it->second;
  const auto size = static_cast<int>(at(trace_.groups, op.group).ranks.size());
  const double now = sg4::Engine::get_clock();
  if (fresh) {
    call.left = size;
    call.last = sg4::Semaphore::create(0);
    // The first member's ring alone: its bytes at its send path's lone rate, and its steps' latencies.
    const int to = at(at(trace_.groups, op.group).ranks, ring.send_peer);
    const CollectiveShortcuts::Path alone = shortcuts_->path(at(placement_, rank), at(placement_, to));
    double bytes = 0;
    for (const Ring::Step& step : ring.steps) bytes += static_cast<double>(step.bytes);
    call.deadline_s = now + kArrivalSkew * (bytes / alone.rate_Bps + ring.exchanges * alone.latency_s);
  }
  if (!call.decided) {
    if (++call.arrived == size) {
      call.decided = call.together = true;
      for (int k = 1; k < size; ++k) call.last->release();
    } else if (now >= call.deadline_s || call.last->acquire_timeout(call.deadline_s - now)) {
      call.decided = true;  // timed out (unless the last one came at the deadline: then together)
    }
    sim_.waited(rank, now, sg4::Engine::get_clock());
  }
  const bool together = call.together;
  if (--call.left == 0) arrivals_.erase(it);
  return together;
}

std::string CoarseRings::note() const {
  if (calls_ == 0) return "";
  return fmt::format(
      "--fast (approximate): {} ring collectives (e.g. on \"{}\") whose messages may share links with others' and whose "
      "members all reached them together ran in {} coarse steps each (a run of steps' bytes as one message, plus "
      "their latencies and reductions) instead of step by step: not exact where the links' sharing changes within "
      "a coarse step (within 1 % of the full replay's iteration in ccsim's tests)",
      calls_, at(trace_.groups, first_group_).name, kCoarseSteps);
}

}  // namespace ccsim::engine::detail
