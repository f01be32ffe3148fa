#include "engine/replay.hpp"

#include <fmt/format.h>

#include "engine/child_process.hpp"
#include "engine/network_factors.hpp"
#include "engine/simulation.hpp"

namespace ccsim::engine {

std::string NetworkModel::describe() const {
  if (calibrated != nullptr) return NetworkFactors(calibrated).describe();
  std::string factors = bandwidth_factor == 1.0 && latency_factor == 1.0
                            ? std::string("no correction factors")
                            : fmt::format("bandwidth factor {:g}, latency factor {:g} (from {})", bandwidth_factor,
                                          latency_factor, source);
  return fmt::format(
      "SimGrid CM02 max-min flow model, TCP-gamma off, cross-traffic off, {}: a lone flow gets the nominal "
      "bottleneck bandwidth after the sum of its links' latencies",
      factors);
}

Result replay(const trace::Trace& trace, const topology::Platform& platform, const ReplayOptions& options) {
  return deserialize(run_in_child([&] { return serialize(simulate(trace, platform, options)); }));
}

}  // namespace ccsim::engine
