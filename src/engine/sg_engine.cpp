#include "engine/sg_engine.hpp"

#include <fmt/format.h>
#include <xbt/log.h>

namespace ccsim::engine {

std::unique_ptr<simgrid::s4u::Engine> make_engine(const NetworkModel& model, int stack_kib, bool log) {
  (void)model;  // the factors are applied to the links themselves (GraphZone), so that they show in exports
  int argc = 1;
  char program[] = "ccsim";
  char* argv[] = {program, nullptr};
  if (!log) xbt_log_control_set("root.app:file:/dev/null");
  auto engine = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
  engine->set_config("network/model:CM02");
  engine->set_config("network/TCP-gamma:0");
  engine->set_config("network/crosstraffic:0");
  engine->set_config("network/weight-S:0");
  engine->set_config("network/bandwidth-factor:1");
  engine->set_config("network/latency-factor:1");
  engine->set_config(fmt::format("contexts/stack-size:{}", stack_kib));
  return engine;
}

}  // namespace ccsim::engine
