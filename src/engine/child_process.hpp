#pragma once

#include <functional>
#include <string>

namespace ccsim::engine {

/// Runs `work` in a forked child process and returns the bytes it returns. SimGrid's engine
/// is a process-wide singleton that cannot be reset, so every simulation runs this way.
/// Exceptions thrown by `work` (SimulationError, InputError, others) are rethrown here with
/// the same type and message; a child that dies (a SimGrid abort) becomes a runtime_error.
/// CCSIM_IN_PROCESS=1 runs `work` in this process instead (for a debugger): then only one
/// simulation per process works.
std::string run_in_child(const std::function<std::string()>& work);

}  // namespace ccsim::engine
