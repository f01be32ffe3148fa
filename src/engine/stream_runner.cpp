// Simulation's streams: a rank runs each stream as a lane (an actor), a lane waits for the
// operators of other streams it is after (StreamDependencies, end_ops), and the lanes of a rank
// in a fusion start when it leaves the fusion (start_lane). The engine's other parts:
// simulation.cpp (operators, run()), fused_groups.cpp (groups run as one),
// collective_runner.cpp (collectives).
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
  if (stream == 0 && fusions_->fused(rank)) {
    first = fusions_->run(rank);
    for (int k = 1; k < lanes(rank); ++k) start_lane(rank, k, first);
    // The leader ran the whole program for all and marked them done.
    if (fusions_->ran_whole_program(rank)) return;
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
