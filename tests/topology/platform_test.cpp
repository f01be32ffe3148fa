#include <catch2/catch.hpp>

#include <algorithm>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "topology/dragonfly.hpp"
#include "topology/fat_tree.hpp"
#include "topology/torus.hpp"
#include "topology/platform.hpp"
#include "topology/simgrid_xml.hpp"
#include "topology_fixtures.hpp"
#include "support/error_of.hpp"

using namespace ccsim;

namespace {

std::string error_of(const std::string& text) {
  return ccsim::test::message_of([&] { topology::parse_platform(text, "p.json"); });
}

}  // namespace

TEST_CASE("platform reader errors name file, line and field", "[topology][platform]") {
  CHECK(error_of(test::platform_json(8, 1, 1, test::fat_tree(4, 1))) ==
        "p.json:8: field 'network.levels': the top level has 2 switches for 8 nodes x 1 NICs; a fat-tree ends in one "
        "root: raise the top level's 'down' to at least 2 (the 2 switches below it) or add a level");
  // 9 nodes: 3 leaf switches of 4, so the root needs 3 down (not 2 x 2: the switch count times
  // the top's down, which the message said).
  CHECK(error_of(test::platform_json(9, 1, 1, test::fat_tree(4, 2))) ==
        "p.json:8: field 'network.levels': the top level has 2 switches for 9 nodes x 1 NICs; a fat-tree ends in one "
        "root: raise the top level's 'down' to at least 3 (the 3 switches below it) or add a level");
  CHECK(error_of(test::platform_json(
            9, 1, 2, R"({"topology": "fat-tree", "source": "x", "levels": [{"down": 4, "source": "x"}]})")) ==
        "p.json:8: field 'network.levels': the top level has 5 switches for 9 nodes x 2 NICs; a fat-tree ends in one "
        "root: raise the top level's 'down' to at least 18 (the 18 NICs below it) or add a level");
  CHECK(
      error_of(test::platform_json(8, 1, 1, test::fat_tree(4, 2, "0.5"))) ==
      "p.json:10: field 'network.levels[1].oversubscription': expected a ratio from 1 to 1024 such as 2, 1.5 or \"16:3\" "
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

TEST_CASE("a misspelt platform key or preset gets a did you mean", "[topology][platform]") {
  // A misspelt required key was reported as the right one missing, with no word of the typo.
  std::string typo = test::platform_json(8, 1, 1, R"({"topology": "switch", "source": "x"})");
  typo.replace(typo.find("\"nics\""), 6, "\"nic\"");
  CHECK(error_of(typo) ==
        "p.json:6: field 'node.nics': missing (required); the object has \"nic\": did you mean nics?");
  const std::vector<std::string> dirs{CCSIM_SOURCE_DIR "/platforms"};
  CHECK_THROWS_WITH(topology::find_platform("sunway-oceanligth", dirs),
                    Catch::Matchers::Contains("platforms/sunway-oceanligth.json); did you mean sunway-oceanlight? "
                                              "presets: dgx-a100-superpod, "));
  CHECK_THROWS_AS(topology::find_platform("sunway-oceanligth", dirs), UnknownNameError);
  // No guess when no preset is close.
  CHECK_THROWS_WITH(topology::find_platform("summit", dirs),
                    Catch::Matchers::Contains("platforms/summit.json); presets: dgx-a100-superpod, "));
}

TEST_CASE("every preset loads, names a source for every tier, and has a bisection", "[topology][platform]") {
  std::vector<std::string> dirs = {CCSIM_SOURCE_DIR "/platforms"};
  std::vector<std::string> names = topology::list_platforms(dirs);
  for (const char* expected : {"sunway-oceanlight", "sunway-taihulight", "tianhe-2a", "hygon-dcu", "dgx-h100-superpod",
                               "local", "qu2025-fit", "dgx-a100-superpod"}) {
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
  for (const std::string& name : names) {
    INFO(name);
    topology::Platform p = topology::read_platform(topology::find_platform(name, dirs));
    CHECK(p.name == name);
    CHECK_FALSE(p.network.accelerator().source.empty());
    for (const topology::Tier& tier : p.network.tiers()) CHECK_FALSE(tier.source.empty());
    // Every preset of a real machine gives its accelerator's memory, with its source; local (CPU
    // ranks) and qu2025-fit (an unnamed accelerator) do not, and synth skips the check there.
    const double memory = p.network.accelerator().memory_bytes;
    if (name == "local" || name == "qu2025-fit") {
      CHECK(memory == 0);
    } else {
      CHECK(memory >= 32.0 * (1 << 30));
      CHECK(p.network.accelerator().source.find("memory_bytes") != std::string::npos);
    }
  }
  const double h100 =
      topology::read_platform(topology::find_platform("dgx-h100-superpod", dirs)).network.accelerator().memory_bytes;
  CHECK(h100 == 80.0 * (1 << 30));
  CHECK_THROWS_WITH(
      topology::find_platform("summit", dirs),
      Catch::Matchers::StartsWith("--platform: unknown platform \"summit\" (tried summit, ") &&
          Catch::Matchers::Contains("platforms/summit.json); presets: dgx-a100-superpod, dgx-h100-superpod, "));
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
  CHECK(error_of(both) ==
        "p.json:3: field 'node.accelerators': expected either 'accelerators' (a rank per accelerator) "
        "or 'cores_per_node' (CPU ranks), not both");
}

TEST_CASE("platform values outside their physical range are refused", "[topology][platform][limits]") {
  auto with = [](std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  const std::string text = test::platform_json(8, 1, 1, test::fat_tree(4, 2));
  CHECK(error_of(with(text, "\"bandwidth_Bps\": 1e10", "\"bandwidth_Bps\": 1e-300")) ==
        "p.json:7: field 'node.nic_link.bandwidth_Bps': expected 1000 to 1e+15 B/s, got \"1e-300\"");
  CHECK(error_of(with(text, "\"bandwidth_Bps\": 1e11", "\"bandwidth_Bps\": 2e15")) ==
        "p.json:5: field 'node.intra_link.bandwidth_Bps': expected 1000 to 1e+15 B/s, got \"2e15\"");
  CHECK(error_of(with(text, "\"latency_s\": 3e-6", "\"latency_s\": 1e300")) ==
        "p.json:10: field 'network.levels[1].latency_s': expected 0 to 1 s, got \"1e300\"");
  CHECK(error_of(with(text, "\"flops\": 1e12", "\"flops\": 1e-300")) ==
        "p.json:4: field 'node.accelerator.flops': expected 1e+06 to 1e+18 FLOP/s, got \"1e-300\"");
  CHECK(error_of(with(text, "\"reduce_Bps\": 1e11", "\"reduce_Bps\": 1e11, \"memory_Bps\": 1")) ==
        "p.json:4: field 'node.accelerator.memory_Bps': expected 1000 to 1e+15 B/s, got \"1\"");
  CHECK(error_of(with(text, "\"reduce_Bps\": 1e11", "\"reduce_Bps\": 1e11, \"memory_bytes\": 1000")) ==
        "p.json:4: field 'node.accelerator.memory_bytes': expected 1.04858e+06 to 1e+15 bytes, got \"1000\"");
  // 1e308:1e-308 overflowed to infinity, and an infinite ratio was simulated as 1:1.
  for (const char* ratio : {"\"1e308:1e-308\"", "1e308", "1025", "\"2049:2\""}) {
    INFO(ratio);
    CHECK(error_of(test::platform_json(8, 1, 1, test::fat_tree(4, 2, ratio))) ==
          fmt::format(
              "p.json:10: field 'network.levels[1].oversubscription': expected a ratio from 1 to 1024 such as "
              "2, 1.5 or \"16:3\" (down:up capacity), got \"{}\"",
              std::string(ratio[0] == '"' ? std::string(ratio).substr(1, std::string(ratio).size() - 2) : ratio)));
  }
  // The bounds themselves are valid.
  topology::Platform edge =
      topology::parse_platform(with(with(test::platform_json(8, 1, 1, test::fat_tree(4, 2, "1024")),
                                         "\"bandwidth_Bps\": 1e10", "\"bandwidth_Bps\": 1e3"),
                                    "\"flops\": 1e12", "\"flops\": 1e18"),
                               "p.json");
  CHECK(edge.network.tiers()[0].oversubscription == 1024);
}

TEST_CASE("a platform's size is computed before building, and limited", "[topology][platform][limits]") {
  // A dragonfly of 4,096 groups x 1,024 routers: over two billion local links (std::bad_alloc before).
  const std::string dragonfly = R"({"topology": "dragonfly", "source": "t", "groups": 4096, "routers_per_group": 1024,
    "nodes_per_router": 1, "global_ports": 4,
    "local_link": {"bandwidth_Bps": 1e10, "latency_s": 1e-7, "source": "t"},
    "global_link": {"bandwidth_Bps": 1e10, "latency_s": 1e-7, "source": "t"}})";
  // Links: 4,194,304 intra + 4,194,304 NIC + 4,096 x (1,024 x 1,023 / 2) local + 4,096 x 4,095 / 2 global.
  CHECK(error_of(test::platform_json(4096 * 1024, 1, 1, dragonfly)) ==
        "p.json:8: field 'network.routers_per_group': the network would have 2162161664 links, more than the limit "
        "of 8388608 (platforms/README.md, \"Limits\")");
  // A fat-tree of 20,000 levels (never finished before: routing is quadratic in depth).
  std::string levels = R"({"down": 1, "source": "t"})";
  for (int k = 1; k < 20000; ++k) levels += R"(, {"down": 1, "bandwidth_Bps": 1e9, "latency_s": 0, "source": "t"})";
  CHECK(error_of(
            test::platform_json(1, 1, 1, R"({"topology": "fat-tree", "source": "t", "levels": [)" + levels + "]}")) ==
        "p.json:8: field 'network.levels': expected at most 8 levels, got 20000");
  // 2^22 nodes of 64 NICs on one switch: 2^28 NIC links.
  CHECK(error_of(test::platform_json(1 << 22, 1, 64, R"({"topology": "switch", "source": "t"})")) ==
        "p.json:2: field 'nodes': the network would have 272629760 links, more than the limit of 8388608 "
        "(platforms/README.md, \"Limits\")");
}

TEST_CASE("the size computed before building is the size built", "[topology][platform][limits]") {
  topology::NodeSpec nodes;
  nodes.accelerators = 2;
  nodes.nics = 2;
  nodes.accelerator.flops = 1e12;
  nodes.intra.bandwidth_Bps = nodes.nic.bandwidth_Bps = 1e10;
  auto check = [](const topology::NetworkSize& size, const topology::Network& net) {
    CHECK(size.vertices == net.vertex_count());
    CHECK(size.links == net.link_count());
  };
  for (bool rails : {false, true}) {
    nodes.nodes = 12;
    topology::FatTreeSpec tree;
    tree.rails = rails;
    tree.levels = {{4, {}, 1}, {3, nodes.nic, 2}, {2, nodes.nic, 1}};
    INFO("rails " << rails);
    check(topology::fat_tree_size(nodes, tree), topology::build_fat_tree(nodes, tree));
  }
  for (const std::vector<int>& dims : std::vector<std::vector<int>>{{4, 4}, {2, 3}, {1, 5}, {2, 2, 3}}) {
    topology::TorusSpec torus{dims, nodes.nic};
    nodes.nodes = 1;
    for (int k : dims) nodes.nodes *= k;
    INFO("torus of " << nodes.nodes);
    check(topology::torus_size(nodes, torus), topology::build_torus(nodes, torus));
    CHECK(topology::torus_size(nodes, torus).route_entries == static_cast<std::uint64_t>(nodes.nodes) * dims.size());
  }
  topology::DragonflySpec df{5, 3, 2, 2, nodes.nic, nodes.nic};
  nodes.nodes = 5 * 3 * 2;
  check(topology::dragonfly_size(nodes, df), topology::build_dragonfly(nodes, df));
  // The largest preset, as platforms/README.md says.
  topology::Platform ol = topology::read_platform(CCSIM_SOURCE_DIR "/platforms/sunway-oceanlight.json");
  CHECK(ol.network.vertex_count() == 215461);
  CHECK(ol.network.link_count() == 215460);
}

TEST_CASE("an export that would exceed its size limits is refused before any XML is written", "[topology][platform]") {
  topology::Platform p =
      topology::parse_platform(test::platform_json(8, 2, 1, R"({"topology": "switch", "source": "x"})"), "p.json");
  const auto& net = p.network;
  const auto links = static_cast<std::uint64_t>(net.link_count());
  CHECK(topology::full_routes(net) == 16 * 15);
  CHECK_NOTHROW(topology::check_export_size(net, "p", topology::XmlRouting::kFull, 16 * 15, links));
  CHECK_THROWS_WITH(topology::check_export_size(net, "p", topology::XmlRouting::kFull, 16 * 15 - 1, links),
                    "command line: field '--routing': full routing writes a route per pair of accelerators, 16 x 15 = "
                    "240 for platform \"p\", more than the limit of 239; use --routing dijkstra");
  CHECK_NOTHROW(topology::check_export_size(net, "p", topology::XmlRouting::kDijkstra, 0, links));
  CHECK_THROWS_WITH(
      topology::check_export_size(net, "p", topology::XmlRouting::kDijkstra, 0, links - 1),
      Catch::Contains(fmt::format("has {} links, more than the {} an export may write", links, links - 1)));
  CHECK(topology::xml_routing_of("auto", net) == topology::XmlRouting::kFull);  // 16 accelerators
  CHECK(topology::xml_routing_of("dijkstra", net) == topology::XmlRouting::kDijkstra);
  // The shipped presets stay within the limits of the export they get by default.
  topology::Platform sunway = topology::read_platform(CCSIM_SOURCE_DIR "/platforms/sunway-oceanlight.json");
  CHECK(topology::xml_routing_of("auto", sunway.network) == topology::XmlRouting::kDijkstra);
  CHECK(topology::xml_routing_of("full", sunway.network) == topology::XmlRouting::kFull);
  CHECK_NOTHROW(topology::check_export_size(sunway.network, sunway.name, topology::XmlRouting::kDijkstra));
}

TEST_CASE("a platform's optional cost: price, currency, power and their source", "[topology][platform]") {
  auto with_cost = [](const std::string& cost) {
    std::string text = test::platform_json(8, 1, 1, R"({"topology": "switch", "source": "x"})");
    const std::size_t at = text.find("\"nodes\"");
    return text.insert(at, "\"cost\": " + cost + ",\n");
  };
  const topology::Platform p = topology::parse_platform(
      with_cost(R"({"price_per_node_hour": 2.5, "currency": "EUR", "power_kw_per_node": 0.8, "source": "s"})"),
      "p.json");
  REQUIRE(p.cost.has_value());
  CHECK(*p.cost->price_per_node_hour == 2.5);
  CHECK(p.cost->currency == "EUR");
  CHECK(*p.cost->power_kw_per_node == 0.8);
  CHECK(p.cost->source == "s");
  const topology::Platform power_only =
      topology::parse_platform(with_cost(R"({"power_kw_per_node": 1, "source": "s"})"), "p.json");
  CHECK_FALSE(power_only.cost->price_per_node_hour.has_value());
  CHECK(power_only.cost->power_kind == topology::PlatformCost::PowerKind::kMaximum);  // unless it says otherwise
  CHECK(topology::parse_platform(with_cost(R"({"power_kw_per_node": 1, "power_kind": "average", "source": "s"})"),
                                 "p.json")
            .cost->power_kind == topology::PlatformCost::PowerKind::kAverage);
  CHECK_THAT(error_of(with_cost(R"({"power_kw_per_node": 1, "power_kind": "mean", "source": "s"})")),
             Catch::Matchers::EndsWith("field 'cost.power_kind': expected one of maximum, average, got \"mean\""));
  CHECK_THAT(
      error_of(with_cost(R"({"price_per_node_hour": 2, "currency": "EUR", "power_kind": "average", "source": "s"})")),
      Catch::Matchers::EndsWith("field 'cost.power_kind': a power kind without 'power_kw_per_node'"));
  CHECK_FALSE(
      topology::parse_platform(test::platform_json(8, 1, 1, R"({"topology": "switch", "source": "x"})"), "p.json")
          .cost.has_value());

  CHECK_THAT(error_of(with_cost(R"({"price_per_node_hour": 2.5, "source": "s"})")),
             Catch::Matchers::EndsWith("field 'cost.currency': missing (required)"));
  CHECK_THAT(error_of(with_cost(R"({"currency": "EUR", "power_kw_per_node": 1, "source": "s"})")),
             Catch::Matchers::EndsWith("field 'cost.currency': a currency without 'price_per_node_hour'"));
  CHECK_THAT(error_of(with_cost(R"({"source": "s"})")),
             Catch::Matchers::EndsWith("field 'cost': expected 'price_per_node_hour' (with 'currency'), "
                                       "'power_kw_per_node' or both"));
  CHECK_THAT(error_of(with_cost(R"({"power_kw_per_node": 5000, "source": "s"})")),
             Catch::Matchers::Contains("field 'cost.power_kw_per_node': expected"));
  CHECK_THAT(error_of(with_cost(R"({"power_kw_per_node": 1})")),
             Catch::Matchers::EndsWith("field 'cost.source': missing (required)"));
  CHECK_THAT(error_of(with_cost(R"({"power_kw_per_node": 1, "source": "s", "tax": 3})")),
             Catch::Matchers::Contains("field 'cost.tax': unknown key"));
}

TEST_CASE("a fat-tree preset grows for a node count set on the command line by widening its top level",
          "[topology][platform]") {
  // dgx-h100-superpod's top level ends in one switch up to its own 128 nodes; 256 and 1,280
  // nodes (the 10,240-accelerator job) need a wider one.
  for (int nodes : {256, 1280}) {
    INFO(nodes << " nodes");
    topology::PlatformOverrides o;
    o.nodes = topology::Adjustment{static_cast<double>(nodes), false, "nodes=" + std::to_string(nodes)};
    const topology::Platform p = topology::read_platform(CCSIM_SOURCE_DIR "/platforms/dgx-h100-superpod.json", o);
    CHECK(p.network.accelerator_count() == 8 * nodes);
    REQUIRE(p.notes.size() == 1);
    CHECK_THAT(p.notes[0], Catch::StartsWith(fmt::format("--set nodes={}: the fat-tree's top level,", nodes)));
  }
  // The file as it is needs no change, and says none.
  CHECK(topology::read_platform(CCSIM_SOURCE_DIR "/platforms/dgx-h100-superpod.json").notes.empty());
}
