#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "engine/child_process.hpp"
#include "engine/sg_engine.hpp"

using namespace ccsim;

namespace {

long mappings() {
  long lines = 0;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) ++lines;
  return lines;
}

}  // namespace

TEST_CASE("actors' stacks have guard pages only where the system's memory mappings allow them", "[engine]") {
  // Two mappings per actor (a stack and its guard page), a margin of 1,024 for the rest.
  CHECK(engine::guard_pages_fit(10240, 2000, 65530));  // 23,504 of 65,530
  CHECK(engine::guard_pages_fit(32253, 0, 65530));     // 65,530 of 65,530
  CHECK_FALSE(engine::guard_pages_fit(32254, 0, 65530));
  CHECK_FALSE(engine::guard_pages_fit(98304, 227, 65530));  // Sunway OceanLight's 98,304 ranks
  CHECK(engine::guard_pages_fit(98304, 227, 0));            // limit unknown: SimGrid's default
}

TEST_CASE("actors without guard pages cost no memory mapping each, so no system limit binds", "[engine]") {
  // In a simulation process: actors created with guard pages (an ample limit), then as many
  // under a limit their guards would pass. The mappings the second ones add are counted.
  const int actors = engine::actors_on_threads() ? 10 : 1000;  // threads: the library's stacks
  const std::string counts = engine::run_in_child([actors] {
    std::unique_ptr<simgrid::s4u::Engine> sg = engine::make_engine(256, false);
    simgrid::s4u::NetZone* zone = simgrid::s4u::create_full_zone("zone");
    simgrid::s4u::Host* host = zone->create_host("host", 1e9);
    zone->seal();
    const long before = mappings();
    const bool first = engine::set_actor_stacks(*sg, static_cast<std::size_t>(actors), before, 1L << 30);
    for (int i = 0; i < actors; ++i) simgrid::s4u::Actor::create(fmt::format("g{}", i), host, [] {});
    const long guarded = mappings();
    const bool second = engine::set_actor_stacks(*sg, static_cast<std::size_t>(actors), guarded, guarded + actors);
    for (int i = 0; i < actors; ++i) simgrid::s4u::Actor::create(fmt::format("u{}", i), host, [] {});
    const long unguarded = mappings();
    return fmt::format("{} {} {} {}", first, second, guarded - before, unguarded - guarded);
  });
  bool first = false;
  bool second = false;
  long guarded = 0;
  long unguarded = 0;
  std::istringstream in(counts);
  in >> std::boolalpha >> first >> second >> guarded >> unguarded;
  INFO(counts);
  CHECK(first);
  if (engine::actors_on_threads()) {
    CHECK(second);  // threads have the thread library's stacks: nothing to choose
    return;
  }
  CHECK_FALSE(second);
  CHECK(guarded >= 2 * actors);  // a stack and its guard page each: the test can fail
  CHECK(unguarded < actors / 10);
}
