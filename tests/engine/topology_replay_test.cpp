#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "engine/replay.hpp"
#include "engine/xml_check.hpp"
#include "engine_fixtures.hpp"
#include "support/split.hpp"
#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"
#include "topology/simgrid_xml.hpp"
#include "../topology/topology_fixtures.hpp"

using namespace ccsim;

namespace {

constexpr std::uint64_t kBytes = 256ull << 20;

/// Simulates one message from accelerator `src` to `dst` alone on the platform.
double lone_transfer(const topology::Platform& p, int src, int dst) {
  const int world = p.network.accelerator_count();
  std::vector<std::string> ops(static_cast<std::size_t>(world));
  ops[static_cast<std::size_t>(src)] = test::send(dst, kBytes);
  ops[static_cast<std::size_t>(dst)] = test::recv(src, kBytes);
  engine::ReplayOptions options;
  options.placement = "rank-order";
  return test::op_time(engine::replay(test::make_trace(world, "", ops), p, options), dst, 0);
}

double expected(const topology::Platform& p, int src, int dst) {
  topology::Network::PathCost cost = p.network.path_cost(src, dst);
  return cost.latency_s + static_cast<double>(kBytes) / cost.bandwidth_Bps;
}

const char* kThreeLevels = R"({"topology": "fat-tree", "source": "test", "levels": [
    {"down": 4, "source": "test"},
    {"down": 2, "bandwidth_Bps": 4e9, "latency_s": 1e-6, "oversubscription": 2, "source": "test"},
    {"down": 2, "bandwidth_Bps": 8e9, "latency_s": 2e-6, "oversubscription": 1.5, "source": "test"}]})";

}  // namespace

TEST_CASE("a lone transfer takes latency + bytes / bandwidth of its route on every topology", "[engine][topology]") {
  struct Case {
    const char* name;
    topology::Platform platform;
    int src;
    int dst;
  };
  std::vector<Case> cases;
  // Across the root of a 3-level tree: the level-2 trunk (20 GB/s of 4 GB/s cables) caps the flow at 4 GB/s.
  cases.push_back({"fat-tree", test::platform(16, 1, 1, kThreeLevels), 0, 15});
  cases.push_back({"torus", test::platform(12, 2, 1, R"({"topology": "torus", "source": "t", "dims": [3, 4],
      "link": {"bandwidth_Bps": 3e9, "latency_s": 2e-7, "source": "t"}})"),
                   1, 22});
  cases.push_back({"dragonfly", test::platform(12, 1, 1, R"({"topology": "dragonfly", "source": "t", "groups": 3,
      "routers_per_group": 2, "nodes_per_router": 2, "global_ports": 1,
      "local_link": {"bandwidth_Bps": 8e9, "latency_s": 1e-7, "source": "t"},
      "global_link": {"bandwidth_Bps": 2e9, "latency_s": 5e-7, "source": "t"}})"),
                   0, 11});
  cases.push_back({"supernodes", test::platform(8, 1, 1, R"({"topology": "supernodes", "source": "t",
      "nodes_per_supernode": 4, "upper": {"bandwidth_Bps": 5e9, "latency_s": 1e-6, "oversubscription": "16:3", "source": "t"}})"),
                   0, 7});
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(c.platform.network.route(c.src, c.dst).size() >= 4);
    CHECK(lone_transfer(c.platform, c.src, c.dst) == Approx(expected(c.platform, c.src, c.dst)).epsilon(0.001));
  }
  CHECK(cases[0].platform.network.path_cost(0, 15).bandwidth_Bps == Approx(4e9));
}

TEST_CASE("an all-to-all across an oversubscribed level slows down by the oversubscription", "[engine][topology]") {
  // Leaves of 4 nodes, two leaves; every rank of leaf A exchanges with every rank of leaf B,
  // so every message crosses the level-2 trunks.
  auto run = [](const std::string& oversub) {
    topology::Platform p = test::platform(8, 1, 1, test::fat_tree(4, 2, oversub));
    std::vector<std::string> ops(8);
    const std::uint64_t n = 64ull << 20;
    for (int step = 0; step < 4; ++step) {
      for (int i = 0; i < 4; ++i) {
        const int a = i;
        const int b = 4 + (i + step) % 4;
        auto& ops_a = ops[static_cast<std::size_t>(a)];
        auto& ops_b = ops[static_cast<std::size_t>(b)];
        const std::string tag = std::to_string(step);
        ops_a += (ops_a.empty() ? "" : ", ") + test::send(b, n, tag) + ", " + test::recv(b, n, tag);
        ops_b += (ops_b.empty() ? "" : ", ") + test::recv(a, n, tag) + ", " + test::send(a, n, tag);
      }
    }
    engine::ReplayOptions options;
    options.placement = "rank-order";
    return engine::replay(test::make_trace(8, "", ops), p, options).makespan_s;
  };
  const double full = run("1");
  CHECK(run("2") / full == Approx(2.0).epsilon(0.02));
  CHECK(run("4") / full == Approx(4.0).epsilon(0.02));
}

TEST_CASE("the exported SimGrid XML loads and gives the same lone-transfer time", "[engine][topology][xml]") {
  struct Case {
    topology::Platform platform;
    int src;
    int dst;
  };
  std::vector<Case> cases;
  cases.push_back({test::platform(16, 1, 1, kThreeLevels), 0, 15});
  cases.push_back({test::platform(4, 2, 1, test::fat_tree(2, 2, "2")), 1, 6});
  cases.push_back({test::platform(8, 1, 1, R"({"topology": "torus", "source": "t", "dims": [2, 4],
      "link": {"bandwidth_Bps": 3e9, "latency_s": 2e-7, "source": "t"}})"),
                   0, 6});
  char name[] = "/tmp/ccsim-xml-XXXXXX";
  const int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  const std::string path = name;
  for (const Case& c : cases) {
    for (topology::XmlRouting routing : {topology::XmlRouting::kFull, topology::XmlRouting::kDijkstra}) {
      INFO("topology " << c.platform.topology << " routing "
                       << (routing == topology::XmlRouting::kFull ? "full" : "dijkstra"));
      {
        std::ofstream out(path);
        out << topology::to_simgrid_xml(c.platform.network, "test", routing);
      }
      const topology::Network& net = c.platform.network;
      double time =
          engine::xml_transfer_time(path, net.vertex_name(net.accelerator_vertex(c.src)),
                                    net.vertex_name(net.accelerator_vertex(c.dst)), static_cast<double>(kBytes));
      CHECK(time == Approx(lone_transfer(c.platform, c.src, c.dst)).epsilon(1e-6));
    }
  }
  std::remove(path.c_str());
}

TEST_CASE("a trunk's cable caps every message at its rate, whatever the latency of the routes that share it",
          "[engine][topology]") {
  // Leaves of 4 nodes, 2 leaves per level-2 switch, 2 of those under the root; cables of 10 GB/s,
  // as fast as the NICs. Through leaf 0's uplink (40 GB/s): two messages to leaf 1 (up one
  // level) and one to leaf 2 (up two, a longer route): 30 GB/s, room for all at their lone rate.
  // SimGrid's CM02 weights sharing by route latency; when the cable limit was a FATPIPE link,
  // the long route's message got the latency ratio of the cable while the short ones ran, and
  // took 43.6 ms instead of its lone 26.9.
  const topology::Platform p = test::platform(16, 1, 1, R"({"topology": "fat-tree", "source": "test", "levels": [
    {"down": 4, "source": "test"},
    {"down": 2, "bandwidth_Bps": 1e10, "latency_s": 3e-6, "oversubscription": 1, "source": "test"},
    {"down": 2, "bandwidth_Bps": 1e10, "latency_s": 1e-5, "oversubscription": 1, "source": "test"}]})");
  const std::vector<std::pair<int, int>> messages = {{0, 4}, {1, 5}, {3, 8}};
  std::vector<std::string> ops(16);
  for (const auto& [src, dst] : messages) {
    ops[static_cast<std::size_t>(src)] = test::send(dst, kBytes);
    ops[static_cast<std::size_t>(dst)] = test::recv(src, kBytes);
  }
  engine::ReplayOptions options;
  options.placement = "rank-order";
  const engine::Result r = engine::replay(test::make_trace(16, "", ops), p, options);
  for (const auto& [src, dst] : messages) {
    INFO(src << " -> " << dst);
    CHECK(test::op_time(r, dst, 0) == Approx(lone_transfer(p, src, dst)).epsilon(1e-9));
    CHECK(test::op_time(r, dst, 0) == Approx(expected(p, src, dst)).epsilon(1e-9));
  }
}

TEST_CASE(
    "fabric links that the job's messages can never fill are left out of SimGrid's sharing under --fast, with "
    "the full replay's times",
    "[engine][topology][shortcut]") {
  // The small GPT at TP 2, PP 2, DP 8 (32 ranks) on 8 nodes of 4 under a non-blocking root:
  // every leaf uplink carries at most what its 4 nodes' NICs send (each rank's messages
  // together take no more than its NIC, however many streams it sends on), so no fabric link
  // can bind. With the interleaved schedule and --overlap-p2p a rank has several messages in
  // flight on its streams. Under a root 4:1 oversubscribed the uplinks can bind: they stay.
  const synth::ModelSpec model = synth::load_model("small-gpt");
  const synth::Parallelism par = test::split(2, 2, 8, 4);
  synth::Parallelism interleaved = par;
  interleaved.schedule = synth::PipelineSchedule::kInterleaved;
  interleaved.virtual_stages = 2;
  interleaved.overlap_p2p = true;
  const auto left_out = [](const engine::Result& r) {
    for (const std::string& note : r.notes) {
      if (note.find("left out of SimGrid's sharing") != std::string::npos) return note;
    }
    return std::string();
  };
  for (const synth::Parallelism& p : {par, interleaved}) {
    for (const char* oversubscription : {"1", "4"}) {
      INFO((p.overlap_p2p ? "interleaved, --overlap-p2p" : "1F1B") << ", root " << oversubscription << ":1");
      const trace::Trace t = synth::synthesize(model, p, "test");
      const topology::Platform platform = test::platform(8, 4, 1, test::fat_tree(4, 2, oversubscription));
      engine::ReplayOptions options;
      options.all_reduce_algorithm = "ring";
      options.fast = true;
      const engine::Result fast = engine::replay(t, platform, options);
      options.fast = false;
      const engine::Result full = engine::replay(t, platform, options);
      CHECK(test::largest_difference(fast, full) <= 1e-6);
      CHECK(left_out(full).empty());
      if (std::string(oversubscription) == "1") {
        CHECK_THAT(left_out(fast), Catch::StartsWith("shortcuts: 4 of the "));  // the 2 uplinks, 2 directions each
      } else {
        CHECK(left_out(fast).empty());
      }
    }
  }
}
