#pragma once

#include "engine/replay.hpp"

namespace ccsim::engine {

/// Runs the SimGrid simulation in this process. SimGrid allows one simulation per process;
/// replay() calls this in a child process.
Result simulate(const trace::Trace& trace, const topology::Platform& platform, const ReplayOptions& options);

}  // namespace ccsim::engine
