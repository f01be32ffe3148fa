// What `ccsim platform list` and `ccsim platform route` say of a platform (topology/summary.hpp),
// on the round numbers of tests/data/tiny.json: 4 nodes of 2 accelerators, intra links of
// 10 GB/s and 1 us, one NIC a node of 1 GB/s and 5 us, one switch.
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "core/input_error.hpp"
#include "topology/summary.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;

namespace {

topology::Platform tiny() { return topology::read_platform(CCSIM_SOURCE_DIR "/tests/data/tiny.json"); }

}  // namespace

TEST_CASE("a platform's list line gives its nodes, accelerators, topology and accelerator", "[topology]") {
  CHECK(topology::list_line("tiny", tiny()) == "tiny                         4 nodes x 2  switch      test\n");
}

TEST_CASE("a route lists its links and what 1 MiB takes alone on them", "[topology]") {
  const topology::Platform p = tiny();
  const std::string route = topology::describe_route(p, 0, 2, nullptr);  // node 0 to node 1
  CHECK_THAT(route, Contains("route from accelerator 0 (node0.acc0) to 2 (node1.acc0):\n"));
  // Intra up, NIC up, NIC down, intra down: 1 + 5 + 5 + 1 us; 1 MiB at 1 GB/s is 1048.576 us.
  CHECK_THAT(route, EndsWith("\n4 links, latency 12 us, bottleneck 1 GB/s per flow: 1 MiB takes 1060.576 us alone\n"));
  CHECK_THAT(route, Contains("\n  intra#0:node0.acc0-node0.hub             up        10 GB/s per flow,      "
                             "10 GB/s capacity, 1 us\n"));
  CHECK_THAT(route, Contains("\n  nic#5:node1.hub-sw1.0                    down       1 GB/s per flow,      "
                             " 1 GB/s capacity, 5 us\n"));
  // In one node: the two intra links.
  CHECK_THAT(topology::describe_route(p, 0, 1, nullptr),
             EndsWith("\n2 links, latency 2 us, bottleneck 10 GB/s per flow: 1 MiB takes 106.858 us alone\n"));
}

TEST_CASE("with a network model, a route also gives the model's time of its tier", "[topology]") {
  const topology::NetworkModel model =
      topology::read_network_model(CCSIM_SOURCE_DIR "/models/network/dgx-h100-nccl.json");
  REQUIRE(model.has_inter);
  const std::string route = topology::describe_route(tiny(), 0, 2, &model);
  CHECK_THAT(route, Contains("1 MiB takes 1060.576 us alone on these links' nominal figures\n"));
  CHECK_THAT(route, EndsWith(fmt::format("network model {} (inter tier): 1 MiB takes {:.3f} us alone (send overhead "
                                         "+ latency + bytes / bandwidth + receive overhead of its size segment), what "
                                         "a replay simulates\n",
                                         model.name, model.inter.message_s(1 << 20) * 1e6)));
}

TEST_CASE("a route's ends must be accelerators of the platform", "[topology]") {
  CHECK_THROWS_WITH(topology::describe_route(tiny(), 0, 8, nullptr),
                    "command line: expected an accelerator in 0..7, got \"8\"");
  CHECK_THROWS_WITH(topology::check_route_ends(tiny(), -1, 0),
                    "command line: expected an accelerator in 0..7, got \"-1\"");
}
