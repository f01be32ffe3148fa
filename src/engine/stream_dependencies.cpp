#include "engine/stream_dependencies.hpp"

#include <algorithm>

#include <simgrid/s4u/Semaphore.hpp>

#include "engine/stream_lanes.hpp"
#include "core/index.hpp"

namespace ccsim::engine::detail {

namespace sg4 = simgrid::s4u;
using trace::Op;

StreamDependencies::StreamDependencies(const trace::Trace& trace) : trace_(trace) {
  ranks_.resize(as_index(trace.world_size));
  awaited_.assign(trace.programs.size(), {});
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    const trace::Program& program = trace.programs[p];
    if (program.stream_count() == 1) continue;
    Awaited& awaited = awaited_[p];
    awaited.ordinal.assign(program.ops.size(), -1);
    for (const Op& op : program.ops) {
      for (std::uint32_t d : program.after_of(op)) awaited.ordinal[d] = 0;
    }
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      if (awaited.ordinal[i] < 0) continue;
      awaited.ordinal[i] = static_cast<std::int32_t>(awaited.ops.size());
      awaited.ops.push_back(static_cast<std::uint32_t>(i));
    }
  }
}

void StreamDependencies::add_rank(int rank, int lanes) {
  Rank& mine = at(ranks_, rank);
  mine.ended.assign(at(awaited_, at(trace_.program_of, rank)).ops.size(), 0);
  for (int k = 0; k < lanes; ++k) mine.wake.push_back(sg4::Semaphore::create(0));
}

void StreamDependencies::wait(int rank, RankState& lane, const Op& op) {
  if (op.after_count == 0) return;
  const Rank& mine = at(ranks_, rank);
  const trace::Program& program = at(trace_.programs, at(trace_.program_of, rank));
  const sg4::SemaphorePtr& wake = at(mine.wake, lane.stream);
  for (std::uint32_t d : program.after_of(op)) {
    lane.after = d;
    while (!has_ended(rank, d)) {
      wake->acquire();
      lane.woken = false;
    }
  }
  lane.after = -1;
}

bool StreamDependencies::has_ended(int rank, std::size_t op) const {
  const Awaited& awaited = at(awaited_, at(trace_.program_of, rank));
  const std::int32_t k = awaited.ordinal[op];
  return k >= 0 && at(at(ranks_, rank).ended, k) != 0;
}

void StreamDependencies::end(int rank, std::size_t first, std::size_t end, std::span<RankState> lanes) {
  Rank& mine = at(ranks_, rank);
  // Only the ends that others wait for are kept: those in [first, end).
  const std::vector<std::uint32_t>& awaited = at(awaited_, at(trace_.program_of, rank)).ops;
  auto it = std::lower_bound(awaited.begin(), awaited.end(), static_cast<std::uint32_t>(first));
  if (it == awaited.end() || *it >= end) return;
  for (; it != awaited.end() && *it < end; ++it) at(mine.ended, it - awaited.begin()) = 1;
  for (std::size_t k = 0; k < lanes.size(); ++k) {
    RankState& other = lanes[k];
    if (other.after < 0 || other.woken || !has_ended(rank, as_index(other.after))) continue;
    other.woken = true;
    at(mine.wake, k)->release();
  }
}

}  // namespace ccsim::engine::detail
