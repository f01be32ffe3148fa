#include <catch2/catch.hpp>

#include "topology/analysis.hpp"
#include "topology/fat_tree.hpp"
#include "topology_fixtures.hpp"

using namespace ccsim;
using test::fat_tree;

TEST_CASE("a two-level fat-tree routes through the root only between leaves", "[topology][fat-tree]") {
  topology::Platform p = test::platform(8, 2, 1, fat_tree(4, 2));
  const topology::Network& net = p.network;
  REQUIRE(net.accelerator_count() == 16);
  // Same node: two intra links.
  CHECK(net.route(0, 1).size() == 2);
  // Same leaf (nodes 0 and 3): intra, NIC up, NIC down, intra.
  topology::Network::PathCost same_leaf = net.path_cost(0, 7);
  CHECK(same_leaf.hops == 4);
  CHECK(same_leaf.latency_s == Approx(6e-6));
  // Across the root (node 0 to node 4): + two trunk hops of 3 us.
  topology::Network::PathCost across = net.path_cost(0, 8);
  CHECK(across.hops == 6);
  CHECK(across.latency_s == Approx(12e-6));
  CHECK(across.bandwidth_Bps == Approx(1e10));
  CHECK(topology::diameter_hops(net) == 6);
}

TEST_CASE("fat-tree trunks carry the down capacity divided by the oversubscription", "[topology][fat-tree]") {
  topology::Platform p = test::platform(8, 1, 1, fat_tree(4, 2, "\"16:3\""));
  const topology::Network& net = p.network;
  std::vector<topology::Hop> hops = net.route(0, 4);
  REQUIRE(hops.size() == 6);
  const topology::Link& trunk = net.link(hops[2].link);
  CHECK(trunk.capacity_Bps == Approx(4 * 1e10 * 3 / 16));
  CHECK(trunk.bandwidth_Bps == Approx(4 * 1e10 * 3 / 16));  // thinner than one cable: capped
  CHECK(net.tiers()[trunk.tier].oversubscription == Approx(16.0 / 3));
}

TEST_CASE("fat-tree bisection: max-flow on the graph equals the closed form", "[topology][fat-tree][bisection]") {
  for (const char* oversub : {"1", "2", "4", "\"16:3\""}) {
    INFO("oversubscription " << oversub);
    topology::Platform p = test::platform(16, 2, 1, fat_tree(4, 4, oversub));
    double closed = p.closed_form_bisection_Bps;
    REQUIRE_FALSE(std::isnan(closed));
    CHECK(topology::bisection_bandwidth(p.network) == Approx(closed).epsilon(1e-9));
  }
  // By hand: 16 nodes x 10 GB/s / 2 = 80 GB/s without taper, 20 GB/s at 4:1.
  CHECK(test::platform(16, 2, 1, fat_tree(4, 4, "1")).closed_form_bisection_Bps == Approx(80e9));
  CHECK(test::platform(16, 2, 1, fat_tree(4, 4, "4")).closed_form_bisection_Bps == Approx(20e9));
}

TEST_CASE("three levels with their own bandwidth and oversubscription", "[topology][fat-tree][bisection]") {
  std::string network = R"({"topology": "fat-tree", "source": "test", "levels": [
    {"down": 4, "source": "test"},
    {"down": 2, "bandwidth_Bps": 2e10, "latency_s": 1e-6, "oversubscription": 2, "source": "test"},
    {"down": 2, "bandwidth_Bps": 4e10, "latency_s": 1e-6, "oversubscription": 1.5, "source": "test"}]})";
  topology::Platform p = test::platform(16, 1, 1, network);
  // Level-1 uplink: 4 x 10 GB/s / 2 = 20 GB/s (one 20 GB/s cable); level-2 uplink: 2 x 20 / 1.5.
  std::vector<double> up = topology::fat_tree_uplink_capacity(
      topology::NodeSpec{16, 1, {}, {1e11, 0, {}, ""}, 1, {1e10, 0, {}, ""}},
      topology::FatTreeSpec{{{4, {}, 1}, {2, {2e10, 1e-6, {}, ""}, 2}, {2, {4e10, 1e-6, {}, ""}, 1.5}}, false});
  REQUIRE(up.size() == 2);
  CHECK(up[0] == Approx(20e9));
  CHECK(up[1] == Approx(40e9 / 1.5));
  CHECK(p.closed_form_bisection_Bps == Approx(8 * 1e10 / 3));
  CHECK(topology::bisection_bandwidth(p.network) == Approx(p.closed_form_bisection_Bps).epsilon(1e-9));
  CHECK(topology::diameter_hops(p.network) == 8);
  // The level-3 trunk is 26.7 GB/s of 40 GB/s cables: a single flow is capped by the cable,
  // here by the NIC (10 GB/s) first.
  CHECK(p.network.path_cost(0, 15).bandwidth_Bps == Approx(1e10));
}

TEST_CASE("rail-optimised trees keep same-rail traffic in the rail's leaf", "[topology][fat-tree]") {
  std::string network = R"({"topology": "fat-tree", "rails": true, "source": "test", "levels": [
    {"down": 4, "source": "test"},
    {"down": 4, "bandwidth_Bps": 1e10, "latency_s": 1e-6, "oversubscription": 1, "source": "test"}]})";
  topology::Platform p = test::platform(8, 2, 2, network);  // 2 groups of 4 nodes x 2 rails = 4 leaves
  const topology::Network& net = p.network;
  CHECK(net.route(0, 2).size() == 4);  // accelerator 0 of nodes 0 and 1: rail 0, same leaf
  CHECK(net.route(0, 3).size() == 6);  // rail 0 to rail 1: through the spine
  CHECK(net.route(0, 8).size() == 6);  // rail 0, other group of nodes
  CHECK(topology::bisection_bandwidth(net) == Approx(p.closed_form_bisection_Bps).epsilon(1e-9));
  // The diameter is the routes': on 2 nodes of 2 rails (one leaf per rail), rail 0 to rail 1
  // goes through the spine, 6 links, where the graph's shortest path (through the other
  // node's hub) takes 4 (platform show printed 4 beside a farthest route of 6).
  const topology::Platform two = test::platform(2, 2, 2, R"({"topology": "fat-tree", "rails": true, "source": "test",
    "levels": [{"down": 2, "source": "test"},
               {"down": 2, "bandwidth_Bps": 1e10, "latency_s": 1e-6, "oversubscription": 1, "source": "test"}]})");
  CHECK(two.network.route(0, 3).size() == 6);
  CHECK(topology::diameter_hops(two.network) == 6);
  CHECK(topology::shortest_path_diameter_hops(two.network) == 4);
}

TEST_CASE("links shared by a set of flows", "[topology]") {
  topology::Platform p = test::platform(8, 1, 1, fat_tree(4, 2));
  // Every node of leaf 0 sends to the node of leaf 1 with the same index.
  std::vector<std::pair<int, int>> flows = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
  std::vector<topology::LinkLoad> loads = topology::link_loads(p.network, flows);
  REQUIRE_FALSE(loads.empty());
  CHECK(loads[0].flows == 4);  // leaf 0's uplink, upwards
  CHECK(loads[1].flows == 4);  // leaf 1's uplink, downwards
  CHECK(loads[2].flows == 1);
  CHECK(loads.size() == 2 + 4 * 4);  // + per flow: 2 intra and 2 NIC directions
}
