// Simulation's streams: a rank runs each stream as a lane (an actor), a lane waits for the
// operators of other streams it is after (StreamDependencies, end_ops), the lanes of a rank in a fusion
// start when it leaves the fusion (start_lane), and a p2p call runs in one actor as a fork of a
// fusion (run_call). The engine's other parts: simulation.cpp (operators, run()),
// fusion_runner.cpp (groups run as one), collective_runner.cpp (collectives).
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include "engine/collective_plan.hpp"
#include "engine/graph_zone.hpp"
#include "engine/simulation_state.hpp"
#include "core/index.hpp"

namespace ccsim::engine {
namespace detail {

void Simulation::run_call(int rank, std::size_t first, std::size_t end) {
  RankState& st = state(rank);
  const double posted_s = sg4::Engine::get_clock();
  std::vector<sg4::CommPtr> comms;
  std::vector<int*> received(end - first, nullptr);  // get_async's payload slots
  for (std::size_t k = first; k < end; ++k) {
    const Op op = trace_.op(rank, k);
    record(rank, k).start_s = posted_s;
    comms.push_back(post_p2p(rank, op, &received[k - first]));
  }
  st.op = first;
  for (const sg4::CommPtr& comm : comms) comm->wait();
  // Each operator as its own lane records it: waiting from the post to its transfer's start,
  // ended when its transfer finished.
  for (std::size_t k = first; k < end; ++k) {
    const sg4::Comm& comm = *comms[k - first];
    st.op = k;
    waited(rank, posted_s, comm.get_start_time());
    record(rank, k).end_s = comm.get_finish_time();
  }
  st.op = first;
  st.send_peer = st.recv_peer = -1;
}

bool Simulation::alone(int rank, std::size_t i) const {
  const auto& table = shortcuts_->alone(at(trace_.program_of, rank));
  return table.empty() || table[i] != 0;
}

RankState& Simulation::state(int rank) {
  const int first = at(lane_first_, rank);
  if (lanes(rank) == 1) return at(states_, first);
  // A lane of this rank (at(): an actor of another rank, -1 here, would be a bug, not a lane).
  return states_.at(static_cast<std::size_t>(lane_of_actor_.at(static_cast<std::size_t>(sg4::this_actor::get_pid()))));
}

int Simulation::rank_of_lane(int lane) const {
  const auto it = std::upper_bound(lane_first_.begin(), lane_first_.end(), lane);
  return static_cast<int>(it - lane_first_.begin()) - 1;
}

void Simulation::end_ops(int rank, std::size_t first, std::size_t end) {
  if (lanes(rank) == 1) return;
  const auto lane0 = static_cast<std::size_t>(at(lane_first_, rank));
  dependencies_->end(rank, first, end,
                     std::span<RankState>(states_).subspan(lane0, static_cast<std::size_t>(lanes(rank))));
}

void Simulation::run_stream(int rank, int stream, std::size_t first) {
  RankState& st = state(rank);
  const auto& ops = trace_.program_ops(rank);
  for (std::size_t i = first; i < ops.size(); ++i) {
    if (ops[i].stream != stream) continue;
    st.op = i;
    dependencies_->wait(rank, st, ops[i]);
    if (ops[i].kind == OpKind::kCompute) {
      // A run of compute operators (--fast, alone on the rank) ends together.
      const std::size_t end = run_compute(rank, i);
      end_ops(rank, i, end);
      i = end - 1;
    } else {
      run_op(rank, i);
      end_ops(rank, i, i + 1);
    }
  }
  st.op = ops.size();
  st.done = true;
}

void Simulation::rank_main(int rank) {
  const int stream = state(rank).stream;
  std::size_t first = 0;
  const auto r = static_cast<std::size_t>(rank);
  if (stream == 0 && !fused_group_of_.empty() && fused_group_of_[r] >= 0) {
    FusedGroup& fusion = fused_groups_[static_cast<std::size_t>(fused_group_of_[r])];
    const int slot = fused_slot_[r];
    first = slot == 0 ? run_leader(fusion) : run_follower(fusion, slot);
    for (int k = 1; k < lanes(rank); ++k) start_lane(rank, k, first);
    // The leader ran the whole program for all and marked them done.
    if (fusion.done && fusion.until == trace_.program_ops(rank).size()) return;
  }
  if (lanes(rank) > 1) {
    run_stream(rank, stream, first);
    return;
  }
  run_individually(rank, first);
}

void Simulation::park_lanes(int rank) {
  const auto& ops = trace_.program_ops(rank);
  const trace::Program& program = trace_.programs[static_cast<std::size_t>(at(trace_.program_of, rank))];
  for (int k = 1; k < lanes(rank); ++k) {
    RankState& st = states_[static_cast<std::size_t>(at(lane_first_, rank) + k)];
    for (st.op = 0; st.op < ops.size() && ops[st.op].stream != k;) ++st.op;
    if (st.op == ops.size()) {
      st.done = true;
    } else if (ops[st.op].after_count != 0) {
      st.after = program.after_of(ops[st.op])[0];
    }
  }
}

void Simulation::start_lane(int rank, int stream, std::size_t first) {
  const auto& ops = trace_.program_ops(rank);
  const int lane = at(lane_first_, rank) + stream;
  RankState& st = at(states_, lane);
  std::size_t i = first;
  while (i < ops.size() && ops[i].stream != stream) ++i;
  if (i == ops.size()) {  // nothing left on this stream: no actor
    st.op = ops.size();
    st.done = true;
    return;
  }
  st.done = false;
  st.after = -1;
  // Known as the lane before it runs: created by a running actor, it may run before create()
  // returns to its creator.
  sg4::ActorPtr actor = sg4::Actor::init(fmt::format("rank{}.stream{}", rank, stream), zone_->host_of_rank(rank));
  const auto pid = static_cast<std::size_t>(actor->get_pid());
  if (lane_of_actor_.size() <= pid) lane_of_actor_.resize(pid + 1, -1);
  lane_of_actor_[pid] = lane;
  actor->start([this, rank, stream, first] { run_stream(rank, stream, first); });
}

}  // namespace detail
}  // namespace ccsim::engine
