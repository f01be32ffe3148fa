#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "topology/platform.hpp"
#include "topology_fixtures.hpp"

using namespace ccsim;

namespace {

std::string error_of(const std::string& text) {
  try {
    topology::parse_platform(text, "p.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("platform reader errors name file, line and field", "[topology][platform]") {
  CHECK(error_of(test::platform_json(8, 1, 1, test::fat_tree(4, 1))) ==
        "p.json:8: field 'network.levels': the top level has 2 switches for 8 nodes x 1 NICs; a fat-tree ends in one "
        "root: raise the top level's 'down' to at least 2 or add a level");
  CHECK(error_of(test::platform_json(8, 1, 1, test::fat_tree(4, 2, "0.5"))) ==
        "p.json:10: field 'network.levels[1].oversubscription': expected a ratio >= 1 such as 2, 1.5 or \"16:3\" "
        "(down:up capacity), got \"0.5\"");
  CHECK(error_of(test::platform_json(8, 1, 1, R"({"topology": "hypercube", "source": "x"})")) ==
        "p.json:8: field 'network.topology': expected one of switch, fat-tree, supernodes, torus, dragonfly, got "
        "\"hypercube\"");
  CHECK(error_of(test::platform_json(8, 1, 1, R"({"topology": "torus", "source": "x", "dims": [3, 3],
      "link": {"bandwidth_Bps": 1, "latency_s": 0, "source": "x"}})")) ==
        "p.json:8: field 'network.dims': a torus of 3 x 3 routers needs nodes = 9, got 8");
  CHECK(error_of(test::platform_json(8, 1, 1, R"({"topology": "switch"})")) ==
        "p.json:8: field 'network.source': missing (required)");
  std::string bad_link = test::platform_json(8, 1, 1, R"({"topology": "switch", "source": "x"})");
  bad_link.replace(bad_link.find("\"bandwidth_Bps\": 1e10"), 21, "\"bandwidth_Bps\": -1");
  CHECK(error_of(bad_link) == "p.json:7: field 'node.nic_link.bandwidth_Bps': expected a positive number, got \"-1\"");
  CHECK(error_of(test::platform_json(0, 1, 1, R"({"topology": "switch", "source": "x"})")) ==
        "p.json:2: field 'nodes': expected a positive integer, got \"0\"");
}

TEST_CASE("every preset loads, names a source for every tier, and has a bisection", "[topology][platform]") {
  std::vector<std::string> dirs = {CCSIM_SOURCE_DIR "/platforms"};
  std::vector<std::string> names = topology::list_platforms(dirs);
  for (const char* expected : {"sunway-oceanlight", "sunway-taihulight", "tianhe-2a", "hygon-dcu", "dgx-h100-superpod",
                               "local", "qu2025-fit"}) {
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
  for (const std::string& name : names) {
    INFO(name);
    topology::Platform p = topology::read_platform(topology::find_platform(name, dirs));
    CHECK(p.name == name);
    CHECK_FALSE(p.network.accelerator().source.empty());
    for (const topology::Tier& tier : p.network.tiers()) CHECK_FALSE(tier.source.empty());
  }
  CHECK_THROWS_WITH(topology::find_platform("summit", dirs),
                    Catch::Matchers::StartsWith("--platform: unknown platform \"summit\"; presets: dgx-h100-superpod, "));
}

TEST_CASE("the TaihuLight preset reproduces its published bisection", "[topology][platform]") {
  topology::Platform p = topology::read_platform(CCSIM_SOURCE_DIR "/platforms/sunway-taihulight.json");
  CHECK(p.network.accelerator_count() == 40960);
  CHECK(p.closed_form_bisection_Bps == Approx(70e12).epsilon(1e-4));  // 560 Tb/s
}

TEST_CASE("a platform may name a network model and run CPU ranks", "[topology][platform]") {
  std::string text = test::platform_json(2, 2, 1, R"({"topology": "switch", "source": "t"})");
  CHECK(topology::parse_platform(text, "p.json").network_model.empty());
  CHECK_FALSE(topology::parse_platform(text, "p.json").network.accelerator().cpu_core);
  std::string named = text;
  named.replace(named.find("\"nodes\""), 0, "\"network_model\": \"loopback-1gbit\",\n  ");
  topology::Platform p = topology::parse_platform(named, "p.json");
  CHECK(p.network_model == "loopback-1gbit");
  CHECK(p.network_model_at.line == 2);
  CHECK(p.network_model_at.field == "network_model");
  std::string empty = text;
  empty.replace(empty.find("\"nodes\""), 0, "\"network_model\": \"\", ");
  CHECK(error_of(empty) == "p.json:2: field 'network_model': expected a network model NAME or a file, got \"\"");

  std::string cores = text;
  cores.replace(cores.find("\"accelerators\""), std::string("\"accelerators\"").size(), "\"cores_per_node\"");
  topology::Platform cpu = topology::parse_platform(cores, "p.json");
  CHECK(cpu.network.accelerator().cpu_core);
  CHECK(cpu.network.accelerator_count() == 4);
  std::string both = text;
  both.replace(both.find("\"accelerators\""), 0, "\"cores_per_node\": 2, ");
  CHECK(error_of(both) == "p.json:3: field 'node.accelerators': expected either 'accelerators' (a rank per accelerator) "
                          "or 'cores_per_node' (CPU ranks), not both");
}
