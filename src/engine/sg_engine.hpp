#pragma once

#include <memory>

#include <simgrid/s4u/Engine.hpp>

#include "engine/replay.hpp"

namespace ccsim::engine {

/// Creates SimGrid's engine configured as `model` says (CM02, no TCP-gamma, no cross-traffic,
/// factors; with a calibrated model, settings that leave room for its factor callbacks, which
/// the caller installs once the platform exists) with simulated ranks of `stack_kib` stacks;
/// SimGrid's own log goes to /dev/null unless `log`. One per process (see run_in_child).
std::unique_ptr<simgrid::s4u::Engine> make_engine(const NetworkModel& model, int stack_kib, bool log);

}  // namespace ccsim::engine
