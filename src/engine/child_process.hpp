#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace ccsim::engine {

/// The simulation process ran out of memory, or was killed as the system's out-of-memory killer
/// kills: the message names the phase it was in (core/phase.hpp) and how to need less.
class ResourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs `work` in a forked child process and returns the bytes it returns. SimGrid's engine
/// is a process-wide singleton that cannot be reset, so every simulation runs this way.
/// Exceptions thrown by `work` (SimulationError, InputError, others) are rethrown here with
/// the same type and message; std::bad_alloc becomes a ResourceError naming the child's phase.
/// A child that dies of SIGKILL is a ResourceError, of another signal (a SimGrid abort) a
/// runtime_error, both naming the signal and the phase. The child dies with this process
/// (PR_SET_PDEATHSIG): killing ccsim leaves no simulation running.
/// CCSIM_IN_PROCESS=1 runs `work` in this process instead (for a debugger): SimGrid can then run
/// only one simulation, and a second call is an InputError that says so.
std::string run_in_child(const std::function<std::string()>& work);

/// run_in_child's answer protocol, for other process pools (study/sweep.hpp): runs `work` and
/// returns its bytes or its exception, encoded; decode_outcome returns the bytes or rethrows
/// the exception with its type (InputError, SimulationError, ResourceError for bad_alloc,
/// runtime_error for others).
std::string encode_outcome(const std::function<std::string()>& work);
std::string decode_outcome(const std::string& answer);
/// Whether an encoded outcome holds bytes (not an exception).
bool is_value_outcome(const std::string& answer);

}  // namespace ccsim::engine
