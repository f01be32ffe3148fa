#include "engine/stream_lanes.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include "engine/graph_zone.hpp"
#include "engine/simulation_state.hpp"
#include "core/index.hpp"

namespace ccsim::engine::detail {

StreamLanes::StreamLanes(Simulation& sim, const trace::Trace& trace, GraphZone& zone)
    : sim_(sim), trace_(trace), zone_(zone), dependencies_(trace) {
  std::vector<int> streams_of_program(trace_.programs.size());
  for (std::size_t p = 0; p < trace_.programs.size(); ++p) streams_of_program[p] = trace_.programs[p].stream_count();
  first_.assign(as_index(trace_.world_size) + 1, 0);
  for (int r = 0; r < trace_.world_size; ++r) {
    at(first_, r + 1) = at(first_, r) + at(streams_of_program, at(trace_.program_of, r));
  }
  states_.assign(as_index(first_.back()), RankState{});
  for (int r = 0; r < trace_.world_size; ++r) {
    for (int k = 0; k < lanes(r); ++k) at(states_, at(first_, r) + k).stream = k;
  }
}

RankState& StreamLanes::state(int rank) {
  const int first = at(first_, rank);
  if (lanes(rank) == 1) return at(states_, first);
  // A lane of this rank (at(): an actor of another rank, -1 here, would be a bug, not a lane).
  return states_.at(as_index(lane_of_actor_.at(as_index(sg4::this_actor::get_pid()))));
}

std::span<RankState> StreamLanes::of_rank(int rank) {
  return std::span<RankState>(states_).subspan(as_index(at(first_, rank)), as_index(lanes(rank)));
}

std::span<const RankState> StreamLanes::of_rank(int rank) const {
  return std::span<const RankState>(states_).subspan(as_index(at(first_, rank)), as_index(lanes(rank)));
}

bool StreamLanes::all_done() const {
  return std::all_of(states_.begin(), states_.end(), [](const RankState& st) { return st.done; });
}

std::size_t StreamLanes::passed(int rank) const {
  std::size_t first_open = trace_.program_ops(rank).size();
  for (const RankState& st : of_rank(rank)) {
    if (!st.done) first_open = std::min(first_open, st.op);
  }
  return first_open;
}

void StreamLanes::bind(std::size_t pid, int lane) {
  if (lane_of_actor_.size() <= pid) lane_of_actor_.resize(pid + 1, -1);
  lane_of_actor_[pid] = lane;
}

void StreamLanes::start_rank(int rank, bool parked, const std::function<void()>& main) {
  if (lanes(rank) == 1) {
    sg4::Actor::create(fmt::format("rank{}", rank), zone_.host_of_rank(rank), main);
    return;
  }
  dependencies_.add_rank(rank, lanes(rank));
  // The first lane (`main`: the fusion, then its stream); the others now, or when the rank
  // leaves its fusion (start_lane).
  sg4::ActorPtr actor = sg4::Actor::create(fmt::format("rank{}.stream0", rank), zone_.host_of_rank(rank), main);
  bind(as_index(actor->get_pid()), at(first_, rank));
  if (parked) {
    park(rank);
  } else {
    for (int k = 1; k < lanes(rank); ++k) start_lane(rank, k, 0);
  }
}

void StreamLanes::park(int rank) {
  const auto& ops = trace_.program_ops(rank);
  const trace::Program& program = at(trace_.programs, at(trace_.program_of, rank));
  for (int k = 1; k < lanes(rank); ++k) {
    RankState& st = at(states_, at(first_, rank) + k);
    for (st.op = 0; st.op < ops.size() && ops[st.op].stream != k;) ++st.op;
    if (st.op == ops.size()) {
      st.done = true;
    } else if (ops[st.op].after_count != 0) {
      st.after = program.after_of(ops[st.op])[0];
    }
  }
}

void StreamLanes::start_lane(int rank, int stream, std::size_t first) {
  const auto& ops = trace_.program_ops(rank);
  const int lane = at(first_, rank) + stream;
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
  sg4::ActorPtr actor = sg4::Actor::init(fmt::format("rank{}.stream{}", rank, stream), zone_.host_of_rank(rank));
  bind(as_index(actor->get_pid()), lane);
  actor->start([this, rank, stream, first] { run_stream(rank, stream, first); });
}

void StreamLanes::run_stream(int rank, int stream, std::size_t first) {
  RankState& st = state(rank);
  const auto& ops = trace_.program_ops(rank);
  for (std::size_t i = first; i < ops.size(); ++i) {
    if (ops[i].stream != stream) continue;
    st.op = i;
    dependencies_.wait(rank, st, ops[i]);
    if (ops[i].kind == OpKind::kCompute) {
      // A run of compute operators (--fast, alone on the rank) ends together.
      const std::size_t end = sim_.run_compute(rank, i);
      end_ops(rank, i, end);
      i = end - 1;
    } else {
      sim_.run_op(rank, i);
      end_ops(rank, i, i + 1);
    }
  }
  st.op = ops.size();
  st.done = true;
}

void StreamLanes::end_ops(int rank, std::size_t first, std::size_t end) {
  if (lanes(rank) == 1) return;
  dependencies_.end(rank, first, end, of_rank(rank));
}

}  // namespace ccsim::engine::detail
