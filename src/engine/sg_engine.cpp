#include "engine/sg_engine.hpp"

#include <fstream>
#include <string>

#include <fmt/format.h>
#include <xbt/log.h>

// Under -fsanitize=address gcc defines __SANITIZE_ADDRESS__; clang (14) only answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define CCSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CCSIM_ASAN 1
#endif
#endif

#if defined(CCSIM_ASAN)
constexpr bool kActorsOnThreads = true;
#else
constexpr bool kActorsOnThreads = false;
#endif

namespace ccsim::engine {

std::unique_ptr<simgrid::s4u::Engine> make_engine(int stack_kib, bool log, bool single_core_hosts) {
  char program[] = "ccsim";
#if defined(CCSIM_ASAN)
  // AddressSanitizer misreads the stack switches of SimGrid's default contexts (false reports
  // of stack overflows and bad frees, warnings on every exception): sanitizer builds
  // (scripts/sanitize.sh) run ranks on threads, which have stacks of their own. The factory
  // is chosen when the engine is constructed, so it must come with the command line: set
  // afterwards, as before, it was accepted and ignored.
  (void)stack_kib;
  char factory[] = "--cfg=contexts/factory:thread";
  int argc = 2;
  char* argv[] = {program, factory, nullptr};
#else
  int argc = 1;
  char* argv[] = {program, nullptr};
#endif
  if (!log) xbt_log_control_set("root.app:file:/dev/null");
  auto engine = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
  engine->set_config("network/model:CM02");
  engine->set_config("network/crosstraffic:0");
  engine->set_config("network/weight-S:0");
  // The platform's factors are applied to the links themselves (GraphZone), so that they show
  // in exports; with a calibrated model the simulation installs factor callbacks, which
  // replace the factor settings: those stay at their defaults (1 in CM02). CM02 caps a flow at
  // min(its bandwidth bound and rate, TCP-gamma / (2 latency)) and reads a cap of 0 as none:
  // with TCP-gamma 0 the bound and a message's rate (the cables it crosses: GraphZone) would be
  // dropped, so the window is made too large to ever bind instead.
  engine->set_config("network/TCP-gamma:1e300");
  // Measured on the message-level benchmarks (bench/engine_bench.sh): 7 to 9 % less CPU, and
  // every golden report byte for byte the same (bench/results/scale.md, 2026-12-05).
  if (single_core_hosts) engine->set_config("cpu/optim:TI");
#if !defined(CCSIM_ASAN)
  engine->set_config(fmt::format("contexts/stack-size:{}", stack_kib));
#endif
  return engine;
}

bool actors_on_threads() { return kActorsOnThreads; }

bool guard_pages_fit(std::size_t actors, long in_use, long limit) {
  if (limit <= 0) return true;
  // Beyond the actors: SimGrid's and the libraries' own mappings as the simulation grows.
  constexpr long kMargin = 1024;
  return in_use + 2 * static_cast<long>(actors) + kMargin <= limit;
}

bool set_actor_stacks(simgrid::s4u::Engine& engine, std::size_t actors, long in_use, long limit) {
  if (actors_on_threads()) return true;
  const bool guards = guard_pages_fit(actors, in_use, limit);
  // SimGrid reads the setting when it creates each actor's context, so it applies to those
  // created from now on.
  engine.set_config(fmt::format("contexts/guard-size:{}", guards ? 1 : 0));
  return guards;
}

bool set_actor_stacks(simgrid::s4u::Engine& engine, std::size_t actors) {
  long limit = 0;
  if (std::ifstream max("/proc/sys/vm/max_map_count"); !(max >> limit)) limit = 0;
  long in_use = 0;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) ++in_use;
  return set_actor_stacks(engine, actors, in_use, limit);
}

}  // namespace ccsim::engine
