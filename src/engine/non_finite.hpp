#pragma once

// Engine-internal (Simulation): work whose simulated time is not finite.

#include <cstddef>
#include <optional>
#include <string>

#include "engine/result.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine::detail {

/// Work whose simulated time is not finite (a rate too small for the amount, or an amount too
/// large for a double): SimGrid cannot run it, so the simulation skips it, keeps the first (the
/// earliest in simulated time, the lowest rank among work skipped at one instant), and fails
/// once it is over.
class NonFiniteWork {
 public:
  /// Work of operator `op` of `rank` that the simulation skipped (`what`: "computing for inf s").
  void skipped(int rank, std::size_t op, std::string what);
  /// Throws an InputError naming the operator of the first skipped work, else of the first
  /// record of `result` that does not end at a finite time (a message too large for its
  /// bandwidth); returns when every time is finite.
  void check(const Result& result, const trace::Trace& trace, const topology::Platform& platform) const;

 private:
  struct Work {
    int rank = -1;
    std::size_t op = 0;
    std::string what;  ///< "computing for inf s", "ends at inf s"
    double at_s = 0;   ///< simulated time it was skipped at
  };
  std::optional<Work> first_;
};

}  // namespace ccsim::engine::detail
