// Collectives message by message as events of SimGrid's kernel (engine/event_steps.hpp): the
// same messages and busy periods at the same times as through the members' actors.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/replay.hpp"
#include "engine_fixtures.hpp"
#include "../topology/topology_fixtures.hpp"

using namespace ccsim;

namespace {

/// 8 ranks, 4 a node (two_nodes_of_four: one 1 GB/s NIC a node, shared by its 4 ranks), each
/// computing for its own time first: tensor-parallel all_reduces inside a node, data-parallel
/// all_reduces across (pairs), point-to-point messages across that overlap them, an
/// all_to_all, a broadcast and an all_gather of the world. The ranks arrive apart, and messages
/// share the NICs and the accelerators' links.
trace::Trace mixed_job() {
  const std::string groups =
      R"({"name": "tp0", "kind": "tensor", "ranks": [0, 1, 2, 3]}, {"name": "tp1", "kind": "tensor", "ranks": [4, 5, 6, 7]},
         {"name": "dp0", "kind": "data", "ranks": [0, 4]}, {"name": "dp1", "kind": "data", "ranks": [1, 5]},
         {"name": "dp2", "kind": "data", "ranks": [2, 6]}, {"name": "dp3", "kind": "data", "ranks": [3, 7]},
         {"name": "all", "kind": "other", "ranks": [0, 1, 2, 3, 4, 5, 6, 7]})";
  std::vector<std::string> ops;
  for (int r = 0; r < 8; ++r) {
    const int peer = r < 4 ? r + 4 : r - 4;
    const std::string p2p = r < 4 ? test::send(peer, 3000000, "x") : test::recv(peer, 3000000, "x");
    ops.push_back(fmt::format(
        R"({{"kind": "compute", "name": "linear", "duration_ms": {}}},
           {{"kind": "all_reduce", "group": "tp{}", "bytes": 8000000, "dtype": "fp32"}},
           {},
           {{"kind": "compute", "name": "linear", "duration_ms": {}}},
           {{"kind": "all_reduce", "group": "dp{}", "bytes": 6000000, "dtype": "fp32"}},
           {{"kind": "all_to_all", "group": "all", "bytes": 1048576, "dtype": "fp32"}},
           {{"kind": "broadcast", "group": "all", "bytes": 2000000, "dtype": "fp32", "root": 3}},
           {{"kind": "all_gather", "group": "all", "bytes": 4000000, "dtype": "fp32"}})",
        1 + 0.3 * r, r / 4, p2p, 2 - 0.2 * r, r % 4));
  }
  return test::make_trace(8, groups, ops);
}

/// The replay of `t` as kernel events and through the actors: the same records, within
/// `bound` of the makespan. Returns the former.
engine::Result check_same(const trace::Trace& t, const topology::Platform& platform, engine::ReplayOptions options,
                          double bound = 1e-12) {
  options.event_steps = true;
  const engine::Result events = engine::replay(t, platform, options);
  options.event_steps = false;
  const engine::Result actors = engine::replay(t, platform, options);
  CAPTURE(events.makespan_s, actors.makespan_s);
  CHECK(events.event_calls > 0);
  CHECK(actors.event_calls == 0);
  CHECK(events.makespan_s > 0);
  CHECK(test::largest_difference(events, actors) <= bound);
  return events;
}

}  // namespace

TEST_CASE("collectives as kernel events have the times they have through the members' actors",
          "[engine][collective][events]") {
  const trace::Trace t = mixed_job();
  const topology::Platform platform = test::two_nodes_of_four();
  for (const char* algorithm : {"ring", "recursive-doubling", "rabenseifner", "binomial-tree", "auto"}) {
    INFO(algorithm);
    engine::ReplayOptions options;
    options.all_reduce_algorithm = algorithm;
    check_same(t, platform, options);
  }
  SECTION("compressed, with compression and decompression steps") {
    engine::ReplayOptions options;
    options.compression.model = test::round_compressor(false, true);
    options.compression.query.error_bound = 1e-3;
    options.compression.all = true;
    const engine::Result r = check_same(t, platform, options);
    CHECK(r.name(r.ops[0][1].algorithm).find("compressed") != std::string::npos);
  }
  SECTION("under a calibrated model's overheads") {
    engine::ReplayOptions options;
    options.network.calibrated = test::overheads_model();
    check_same(t, platform, options);
  }
  SECTION("ranks sharing accelerators: busy periods are executions that share them") {
    engine::ReplayOptions options;
    options.placement = "map:0,0,1,1,4,4,5,5";
    options.oversubscribe = true;
    check_same(t, platform, options);
  }
}

TEST_CASE("under trunks, messages run as kernel events where no cable can bind them, through the actors elsewhere",
          "[engine][collective][events]") {
  // 8 nodes, leaves of 4 under a root 2:1 oversubscribed: each leaf's uplink is a trunk of 2
  // cables of 10 GB/s, and every message across it also crosses 10 GB/s NICs, which no cable
  // bound can undercut. With 5 GB/s cables, a lone message across the root would be bound by
  // one cable: SimGrid 3.32 cannot bound a host-to-host communication, so the actors post them.
  std::vector<std::string> ops(8, R"({"kind": "all_to_all", "group": "all", "bytes": 8388608, "dtype": "fp32"},
                                     {"kind": "all_reduce", "group": "all", "bytes": 8388608, "dtype": "fp32"})");
  const trace::Trace t =
      test::make_trace(8, R"({"name": "all", "kind": "other", "ranks": [0, 1, 2, 3, 4, 5, 6, 7]})", ops);
  engine::ReplayOptions options;
  options.all_reduce_algorithm = "ring";
  const topology::Platform trunks = test::platform(8, 1, 1, test::fat_tree(4, 2, "2"));
  check_same(t, trunks, options);
  // Under a calibrated model, whose bandwidth factors stay at most 1 across the NICs (no link
  // falls below the model's bandwidth), the bounds cannot bind either.
  options.network.calibrated = test::overheads_model();
  check_same(t, trunks, options);
  options.network.calibrated = nullptr;
  const topology::Platform thin = test::platform(8, 1, 1, R"({"topology": "fat-tree", "source": "test", "levels": [
      {"down": 4, "source": "test"},
      {"down": 2, "bandwidth_Bps": 5e9, "latency_s": 3e-6, "oversubscription": 2, "source": "test"}]})");
  CHECK(engine::replay(t, thin, options).event_calls == 0);
}

TEST_CASE("empty blocks are messages of no bytes as kernel events too", "[engine][collective][events]") {
  // 8 ranks reducing 3 elements: most blocks of a step are empty.
  std::vector<std::string> ops(8, R"({"kind": "all_reduce", "group": "all", "bytes": 12, "dtype": "fp32"},
                                     {"kind": "broadcast", "group": "all", "bytes": 12, "dtype": "fp32", "root": 2})");
  const trace::Trace t =
      test::make_trace(8, R"({"name": "all", "kind": "other", "ranks": [0, 1, 2, 3, 4, 5, 6, 7]})", ops);
  for (const char* algorithm : {"ring", "rabenseifner"}) {
    INFO(algorithm);
    engine::ReplayOptions options;
    options.all_reduce_algorithm = algorithm;
    // Messages of a few bytes or none end within SimGrid's timing precision (1e-9 s) of where
    // the actors' do, in an order of the kernel's making: a nanosecond of a 60 us job.
    const engine::Result r = check_same(t, test::two_nodes_of_four(), options, 2e-9 / 5e-5);
    CHECK(r.makespan_s > 5e-5);
  }
}

TEST_CASE("a collective on its own stream runs as kernel events, sharing the accelerator with the other stream",
          "[engine][streams][events]") {
  // The all_reduce on stream 1 after the forward overlaps the backward on stream 0: its
  // reductions are executions that share the accelerator with the backward.
  const std::string step = R"({"kind": "compute", "name": "forward", "flops": 1e10},
      {"kind": "compute", "name": "backward", "flops": 1e10},
      {"kind": "all_reduce", "group": "dp", "bytes": 40000000, "dtype": "fp32", "stream": 1, "after": [0]},
      {"kind": "compute", "name": "optimizer", "flops": 1e9, "after": [2]})";
  const trace::Trace t =
      test::make_trace(4, R"({"name": "dp", "kind": "data", "ranks": [0, 1, 2, 3]})", {step, step, step, step});
  engine::ReplayOptions options;
  options.all_reduce_algorithm = "ring";
  check_same(t, test::two_nodes_of_four(), options);
}

TEST_CASE("a collective beside messages on other streams runs its reductions as sleeps, as executions would",
          "[engine][streams][events]") {
  // Each rank's send on stream 1, after its forward, overlaps its all_reduce, whose messages
  // share the accelerator's link with it; only data moves beside the all_reduce
  // (Program::alone(true)), so its reductions are sleeps as kernel events and executions
  // through the actors: the same times.
  std::vector<std::string> ops;
  for (int r = 0; r < 4; ++r) {
    ops.push_back(fmt::format(R"({{"kind": "compute", "name": "forward", "flops": 1e9}},
        {{"kind": "send", "peer": {}, "bytes": 30000000, "tag": "act", "stream": 1, "after": [0]}},
        {{"kind": "all_reduce", "group": "tp", "bytes": 40000000, "dtype": "fp32"}},
        {{"kind": "recv", "peer": {}, "bytes": 30000000, "tag": "act"}},
        {{"kind": "compute", "name": "backward", "flops": 1e9, "after": [1]}})",
                              (r + 1) % 4, (r + 3) % 4));
  }
  const trace::Trace t = test::make_trace(4, R"({"name": "tp", "kind": "tensor", "ranks": [0, 1, 2, 3]})", ops);
  CHECK(t.programs[0].alone()[2] == 0);
  CHECK(t.programs[0].alone(true)[2] == 1);
  engine::ReplayOptions options;
  options.all_reduce_algorithm = "ring";
  check_same(t, test::two_nodes_of_four(), options);
}

TEST_CASE("a collective that a member never reaches is explained alike as kernel events",
          "[engine][deadlock][events]") {
  const trace::Trace t = test::make_trace(3, R"({"name": "dp", "kind": "data", "ranks": [0, 1, 2]})",
                                          {R"({"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"},
                                              {"kind": "send", "peer": 2, "bytes": 8, "tag": "late"})",
                                           R"({"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"})",
                                           R"({"kind": "recv", "peer": 0, "bytes": 8, "tag": "late"},
                                              {"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"})"});
  engine::ReplayOptions options;
  options.all_reduce_algorithm = "ring";
  std::string events;
  std::string actors;
  try {
    engine::replay(t, test::two_nodes_of_four(), options);
  } catch (const std::exception& e) {
    events = e.what();
  }
  options.event_steps = false;
  try {
    engine::replay(t, test::two_nodes_of_four(), options);
  } catch (const std::exception& e) {
    actors = e.what();
  }
  CHECK_THAT(events, Catch::StartsWith("simulation cannot progress at t=") &&
                         Catch::Contains("rank 0: operator #0 'all_reduce'") &&
                         Catch::Contains("waits for members that never reached it"));
  CHECK(events == actors);
}
