#include "engine/non_finite.hpp"

#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <simgrid/s4u/Engine.hpp>

#include "core/input_error.hpp"
#include "core/index.hpp"

namespace ccsim::engine::detail {

void NonFiniteWork::skipped(int rank, std::size_t op, std::string what) {
  // The simulated clock only moves forward: the first skipped is the earliest, and among work
  // skipped at one instant (in an order of SimGrid's making) the lowest rank's.
  const double now_s = simgrid::s4u::Engine::get_clock();
  if (!first_ || (now_s == first_->at_s && rank < first_->rank)) first_ = Work{rank, op, std::move(what), now_s};
}

void NonFiniteWork::check(const Result& result, const trace::Trace& trace, const topology::Platform& platform) const {
  std::optional<Work> bad = first_;
  const std::vector<std::size_t> first = result.ops.first_readers();
  for (int r = 0; r < trace.world_size && !bad; ++r) {
    if (at(first, r) != as_index(r)) continue;  // read already
    const auto& records = at(result.ops, r);
    for (std::size_t i = 0; i < records.size() && !bad; ++i) {
      if (!std::isfinite(records[i].start_s) || !std::isfinite(records[i].end_s)) {
        bad = Work{r, i, fmt::format("ends at {:g} s", records[i].end_s)};
      }
    }
  }
  if (!bad) return;
  const trace::Op& op = trace.program_ops(bad->rank)[bad->op];
  throw InputError(trace.source, op.line, "",
                   fmt::format("rank {}, operator #{} '{}': its simulated time is not finite ({} on platform \"{}\"): "
                               "the trace's amounts are too large for the platform's rates",
                               bad->rank, bad->op, trace.op_name(op), bad->what, platform.name));
}

}  // namespace ccsim::engine::detail
