#include "engine/replay.hpp"

#include <fmt/format.h>

#include "core/phase.hpp"
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

namespace {

Result replay_once(const trace::Trace& trace, const topology::Platform& platform, const ReplayOptions& options) {
  std::string bytes = run_in_child([&] {
    Result result = simulate(trace, platform, options);
    Phase phase(fmt::format("passing the result of {} ranks to the parent process", trace.world_size), "");
    return serialize(result);
  });
  Phase phase(fmt::format("reading the result of {} ranks ({} MB)", trace.world_size, bytes.size() / 1000000), "");
  return deserialize(bytes);
}

}  // namespace

Result replay(const trace::Trace& trace, const topology::Platform& platform, const ReplayOptions& options) {
  Result result = replay_once(trace, platform, options);
  if (result.guard_breach.empty()) return result;
  // The speculation of guarded links failed (GuardedLinks): that result is not the full
  // replay's. Again without them: those collectives run message by message.
  ReplayOptions unguarded = options;
  unguarded.guarded_links = false;
  Result again = replay_once(trace, platform, unguarded);
  again.notes.push_back(fmt::format(
      "shortcuts: collectives whose messages cross fabric links that other messages may use ran message by message "
      "(the replay ran twice): the first replay ran them as their critical path, but {}",
      result.guard_breach));
  return again;
}

}  // namespace ccsim::engine
