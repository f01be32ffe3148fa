#include <catch2/catch.hpp>

#include <memory>
#include <utility>

#include "topology/network_builder.hpp"

using namespace ccsim;
using topology::Link;
using topology::VertexInfo;
using topology::VertexKind;

namespace {

// Two nodes of two accelerators, each node's NIC on one switch: intra 10 GB/s 1 us, NIC 1 GB/s 5 us.
topology::Network two_nodes(topology::NetworkBuilder& builder) {
  const auto sw = builder.add_vertex(VertexInfo{VertexKind::kSwitch, -1, 0, 1});
  const Link intra{1e10, 0, 1e-6, topology::Sharing::kSplitDuplex, builder.add_tier("intra", "test")};
  const Link nic{1e9, 0, 5e-6, topology::Sharing::kSplitDuplex, builder.add_tier("nic", "test")};
  builder.build_nodes(2, 2, intra, 1, nic, {sw, sw});
  builder.set_fabric(std::make_unique<topology::TreeRouter>(builder.vertex_count()));
  return std::move(builder).build();
}

}  // namespace

TEST_CASE("a network built by hand routes through its nodes' links and its fabric", "[topology]") {
  topology::NetworkBuilder builder;
  const topology::Network net = two_nodes(builder);
  CHECK(net.accelerator_count() == 4);
  CHECK(net.vertex_count() == 7);  // the switch, two hubs, four accelerators
  CHECK(net.tiers().size() == 2);
  // No capacity given: the link's bandwidth, one cable.
  CHECK(net.link(net.intra_link(3)).capacity_Bps == 1e10);
  // Node by node: its accelerators' links, then its NIC.
  CHECK(net.link_name(net.nic_link(1, 0)) == "nic#5:node1.hub-sw1.0");
  // Accelerator 0 to 3: intra, NIC up, NIC down, intra.
  const topology::Network::PathCost cost = net.path_cost(0, 3);
  CHECK(cost.hops == 4);
  CHECK(cost.latency_s == Approx(12e-6));
  CHECK(cost.bandwidth_Bps == 1e9);
}

TEST_CASE("a builder started from a built network changes it and keeps the rest", "[topology]") {
  topology::NetworkBuilder first;
  topology::NetworkBuilder builder(two_nodes(first));
  topology::AcceleratorSpec slow;
  slow.model = "slow";
  slow.reduce_Bps = 1e-300;  // past any platform file's limits: what the engine's tests need
  builder.set_accelerator(slow);
  const topology::Network net = std::move(builder).build();
  CHECK(net.accelerator().model == "slow");
  CHECK(net.path_cost(0, 3).hops == 4);
}
