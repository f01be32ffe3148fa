#include <catch2/catch.hpp>

#include "topology/analysis.hpp"
#include "topology_fixtures.hpp"

using namespace ccsim;

namespace {

std::string torus(const std::string& dims) {
  return R"({"topology": "torus", "source": "test", "dims": )" + dims +
         R"(, "link": {"bandwidth_Bps": 5e9, "latency_s": 1e-7, "source": "test"}})";
}

std::string dragonfly(int groups, int routers, int nodes, int ports) {
  return fmt::format(R"({{"topology": "dragonfly", "source": "test", "groups": {}, "routers_per_group": {},
    "nodes_per_router": {}, "global_ports": {},
    "local_link": {{"bandwidth_Bps": 1e12, "latency_s": 1e-7, "source": "test"}},
    "global_link": {{"bandwidth_Bps": 4e9, "latency_s": 5e-7, "source": "test"}}}})",
                     groups, routers, nodes, ports);
}

}  // namespace

TEST_CASE("a torus routes in dimension order the short way round", "[topology][torus]") {
  topology::Platform p = test::platform(16, 1, 1, torus("[4, 4]"));
  const topology::Network& net = p.network;
  // (0,0) to (0,3): one hop the negative way round.
  CHECK(net.route(0, 3).size() == 4 + 1);
  // (0,0) to (2,2): two hops in each dimension.
  CHECK(net.route(0, 10).size() == 4 + 4);
  CHECK(net.path_cost(0, 10).latency_s == Approx(2 * 1e-6 + 2 * 2e-6 + 4 * 1e-7));
  CHECK(topology::diameter_hops(net) == 4 + 2 + 2);
}

TEST_CASE("torus bisection equals its closed form", "[topology][torus][bisection]") {
  for (const char* dims : {"[4, 4]", "[4, 2, 2]", "[2, 4]", "[6, 3, 2]"}) {
    INFO(dims);
    topology::Platform p = test::platform(dims[1] == '4' && dims[3] == '4' ? 16
                                          : dims[1] == '6'                 ? 36
                                          : dims[1] == '2'                 ? 8
                                                                           : 16,
                                          1, 4, torus(dims));
    CHECK(topology::bisection_bandwidth(p.network) == Approx(p.closed_form_bisection_Bps).epsilon(1e-9));
  }
  // By hand, 4 x 4: cutting dimension 0 crosses 2 x 4 links of 5 GB/s = 40 GB/s.
  CHECK(test::platform(16, 1, 4, torus("[4, 4]")).closed_form_bisection_Bps == Approx(40e9));
}

TEST_CASE("a dragonfly routes minimally through one global link", "[topology][dragonfly]") {
  topology::Platform p = test::platform(4 * 3 * 2, 1, 1, dragonfly(4, 3, 2, 1));
  const topology::Network& net = p.network;
  int global_tier = -1;
  for (std::size_t t = 0; t < net.tiers().size(); ++t) {
    if (net.tiers()[t].name == "global") global_tier = static_cast<int>(t);
  }
  for (int a = 0; a < net.accelerator_count(); ++a) {
    for (int b = 0; b < net.accelerator_count(); ++b) {
      std::vector<topology::Hop> hops = net.route(a, b);
      int globals = 0;
      for (const topology::Hop& hop : hops) globals += net.link(hop.link).tier == global_tier ? 1 : 0;
      INFO(a << " -> " << b);
      CHECK(hops.size() <= 4 + 3);
      CHECK(globals == (a / 6 == b / 6 ? 0 : 1));
    }
  }
  CHECK(topology::diameter_hops(net) == 4 + 3);
  CHECK(topology::bisection_bandwidth(net) == Approx(p.closed_form_bisection_Bps).epsilon(1e-9));
  CHECK(p.closed_form_bisection_Bps == Approx(4 * 4e9));  // (4/2)^2 global links
}
