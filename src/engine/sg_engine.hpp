#pragma once

#include <memory>

#include <simgrid/s4u/Engine.hpp>

namespace ccsim::engine {

/// Creates SimGrid's engine (CM02, a TCP window too large to bind, no cross-traffic, the factor
/// settings at their defaults: the caller installs factor callbacks once the platform exists)
/// with simulated ranks of `stack_kib` stacks;
/// SimGrid's own log goes to /dev/null unless `log`. One per process (see run_in_child).
std::unique_ptr<simgrid::s4u::Engine> make_engine(int stack_kib, bool log);

}  // namespace ccsim::engine
