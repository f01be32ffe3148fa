#pragma once

#include <cstddef>
#include <memory>

#include <simgrid/s4u/Engine.hpp>

namespace ccsim::engine {

/// Creates SimGrid's engine (CM02, a TCP window too large to bind, no cross-traffic, the factor
/// settings at their defaults: the caller installs factor callbacks once the platform exists)
/// with simulated ranks of `stack_kib` stacks;
/// SimGrid's own log goes to /dev/null unless `log`. One per process (see run_in_child).
/// `single_core_hosts`: the platform will have no host of several cores (accelerators, not
/// CPU ranks sharing a node's cores); executions are then timed by SimGrid's trace-integration
/// CPU model (cpu/optim:TI), which shares a host equally among its executions as the default
/// model does, with the same times, for less work per execution; it cannot time hosts of
/// several cores.
std::unique_ptr<simgrid::s4u::Engine> make_engine(int stack_kib, bool log, bool single_core_hosts = false);

/// Whether SimGrid runs actors on threads (sanitizer builds: make_engine), whose stacks are the
/// thread library's, rather than on stacks of its own.
bool actors_on_threads();

/// Whether `actors` stacks with a guard page each fit in `limit` memory mappings with `in_use`
/// mapped already (and a margin for what the simulation maps as it grows); true when the limit
/// is unknown (limit <= 0).
bool guard_pages_fit(std::size_t actors, long in_use, long limit);

/// Chooses how SimGrid allocates the stacks of the at most `actors` actors of a replay, and
/// returns whether they have guard pages. SimGrid's default puts a guard page under each stack,
/// so that an overflow faults instead of overwriting memory; the page's protection splits the
/// stack's mapping, two mappings per actor, and Linux allows a process vm.max_map_count of them
/// (65,530 by default), beyond which SimGrid aborts (98,304 actors need 196,608). Where the
/// guards do not fit, the stacks go without: heap blocks that the allocator carves from a few
/// large mappings, so that no system setting has to be raised. The second form reads this
/// process's mappings and this system's limit (/proc).
bool set_actor_stacks(simgrid::s4u::Engine& engine, std::size_t actors, long in_use, long limit);
bool set_actor_stacks(simgrid::s4u::Engine& engine, std::size_t actors);

}  // namespace ccsim::engine
