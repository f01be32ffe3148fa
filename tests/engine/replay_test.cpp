#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>

#include <fmt/format.h>

#include "collective/ring_all_reduce.hpp"
#include "engine_fixtures.hpp"
#include "support/split.hpp"
#include "core/input_error.hpp"
#include "engine/replay.hpp"
#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"
#include "topology/network_builder.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"
#include "trace/native_writer.hpp"

using namespace ccsim;
using test::make_trace;
using test::op_time;

namespace {

// G accelerators per node, N nodes, intra 10 GB/s 1 us, NIC 1 GB/s 5 us, one switch.
topology::Platform test_platform(int nodes, int per_node) {
  return topology::parse_platform(fmt::format(R"({{
  "format": "ccsim-platform", "version": 1, "name": "test", "nodes": {},
  "node": {{"accelerators": {},
    "accelerator": {{"model": "t", "flops": 1e12, "reduce_Bps": 2e10, "source": "test"}},
    "intra_link": {{"bandwidth_Bps": 1e10, "latency_s": 1e-6, "source": "test"}},
    "nics": 1,
    "nic_link": {{"bandwidth_Bps": 1e9, "latency_s": 5e-6, "source": "test"}}}},
  "network": {{"topology": "switch", "source": "test"}}
}})",
                                              nodes, per_node),
                                  "test-platform.json");
}

}  // namespace

TEST_CASE("the replay reproduces the published profile", "[engine][golden]") {
  trace::Trace t = trace::read_native(CCSIM_SOURCE_DIR "/traces/qu2025-profile.json");
  topology::Platform p = topology::read_platform(CCSIM_SOURCE_DIR "/platforms/qu2025-fit.json");
  engine::Result r = engine::replay(t, p, {});
  // Qu et al. 2025, per iteration, ms: stage 0's operators in order.
  const std::vector<std::pair<std::string, double>> published = {
      {"linear", 206}, {"baddbmm", 9}, {"softmax", 7.5}, {"bmm", 9.5},        {"linear", 100}, {"all_reduce", 225},
      {"linear", 260}, {"relu", 205},  {"linear", 197},  {"all_reduce", 225}, {"send", 24},    {"recv", 303}};
  for (int rank : {0, 2}) {  // the two tensor-parallel ranks of stage 0
    const auto& ops = r.ops[static_cast<std::size_t>(rank)];
    REQUIRE(ops.size() == published.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      INFO("rank " << rank << " operator " << i << " " << published[i].first);
      CHECK(r.name(ops[i].name) == published[i].first);
      CHECK(op_time(r, rank, i) * 1e3 == Approx(published[i].second).epsilon(0.02));
    }
    CHECK(r.rank_end_s(rank) * 1e3 == Approx(1771.0).epsilon(0.01));
  }
  CHECK(r.makespan_s * 1e3 == Approx(1771.0).epsilon(0.01));
  CHECK(r.stage == std::vector<int>{0, 1, 0, 1});
}

TEST_CASE("a lone transfer takes latency + bytes / bandwidth of its route", "[engine]") {
  topology::Platform p = test_platform(2, 2);
  const std::uint64_t n = 100000000;
  // rank 0 on node 0, rank 3 on node 1: intra 1us + NIC 5us + NIC 5us + intra 1us, bottleneck 1 GB/s.
  trace::Trace t = make_trace(4, "",
                              {fmt::format(R"({{"kind": "send", "peer": 3, "bytes": {}}})", n), "", "",
                               fmt::format(R"({{"kind": "recv", "peer": 0, "bytes": {}}})", n)});
  engine::Result r = engine::replay(t, p, {});
  topology::Network::PathCost cost = p.network.path_cost(0, 3);
  CHECK(cost.latency_s == Approx(12e-6));
  CHECK(cost.bandwidth_Bps == Approx(1e9));
  const double expected = 12e-6 + static_cast<double>(n) / 1e9;
  CHECK(op_time(r, 0, 0) == Approx(expected).epsilon(0.001));
  CHECK(op_time(r, 3, 0) == Approx(expected).epsilon(0.001));
  // Inside a node: two intra links, 10 GB/s.
  trace::Trace local = make_trace(2, "",
                                  {fmt::format(R"({{"kind": "send", "peer": 1, "bytes": {}}})", n),
                                   fmt::format(R"({{"kind": "recv", "peer": 0, "bytes": {}}})", n)});
  engine::Result rl = engine::replay(local, p, {});
  CHECK(op_time(rl, 1, 0) == Approx(2e-6 + static_cast<double>(n) / 1e10).epsilon(0.001));
  // The nodes the ranks ran on: 4 ranks on 2 nodes of 2, 2 ranks on one.
  CHECK(r.nodes_used == 2);
  CHECK(rl.nodes_used == 1);
  engine::ReplayOptions spread;
  spread.placement = "map:0,2";
  CHECK(engine::replay(local, p, spread).nodes_used == 2);
}

TEST_CASE("a fast replay runs consecutive compute operators as one busy period, each with its own times", "[engine]") {
  // Rank 0 computes 1, 2 and 3 ms (1 ms as 1e9 FLOPs at 1 TFLOP/s), then sends 1 MB to rank 1
  // in its node (2 intra links: 2 us + 1e6 B / 10 GB/s). --fast runs the three as one SimGrid
  // activity; every operator's times must be those of the full replay (up to rounding).
  const std::string ops = R"({"kind": "compute", "name": "a", "flops": 1e9}, )"
                          R"({"kind": "compute", "name": "b", "duration_ms": 2}, )"
                          R"({"kind": "compute", "name": "c", "duration_ms": 3}, )";
  trace::Trace t = make_trace(2, "", {ops + test::send(1, 1000000, "x"), test::recv(0, 1000000, "x")});
  engine::ReplayOptions fast;
  fast.fast = true;
  engine::Result full = engine::replay(t, test_platform(1, 2), {});
  engine::Result r = engine::replay(t, test_platform(1, 2), fast);
  const std::vector<double> ends = {1e-3, 3e-3, 6e-3, 6e-3 + 2e-6 + 1e-4};
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(r.ops[0][i].start_s == Approx(full.ops[0][i].start_s).margin(1e-15));
    CHECK(r.ops[0][i].end_s == Approx(full.ops[0][i].end_s).epsilon(1e-12));
    CHECK(r.ops[0][i].end_s == Approx(ends[i]).epsilon(1e-9));
  }
  CHECK(r.ops[0][1].start_s == r.ops[0][0].end_s);
  CHECK(r.ops[1][0].end_s == Approx(full.ops[1][0].end_s).epsilon(1e-12));
  CHECK(r.notes.front().rfind("shortcuts: ", 0) == 0);
  // Two ranks on one accelerator time-share it operator by operator, --fast or not: 1 + 2 ms
  // of rank 0 and 4 ms of rank 2 on accelerator 0, each at half speed while both compute:
  // rank 0's first ends at 2 ms, its second at 6 ms, and rank 2's (1 ms of work left) at 7 ms.
  trace::Trace shared = make_trace(3, "",
                                   {R"({"kind": "compute", "name": "a", "duration_ms": 1}, )"
                                    R"({"kind": "compute", "name": "b", "duration_ms": 2})",
                                    "", R"({"kind": "compute", "name": "c", "duration_ms": 4})"});
  fast.placement = "map:0,1,0";
  fast.oversubscribe = true;
  engine::Result rs = engine::replay(shared, test_platform(1, 2), fast);
  CHECK(rs.ops[0][0].end_s == Approx(2e-3).epsilon(1e-9));
  CHECK(rs.ops[0][1].end_s == Approx(6e-3).epsilon(1e-9));
  CHECK(rs.ops[2][0].end_s == Approx(7e-3).epsilon(1e-9));
}

TEST_CASE("a simulated ring all_reduce matches its closed form without contention", "[engine][ring]") {
  for (int p : {2, 4, 8}) {
    topology::Platform platform = test_platform(p, 1);  // one rank per node: one flow per NIC direction
    const std::uint64_t n = 64ull << 20;
    std::string members;
    for (int r = 0; r < p; ++r) members += fmt::format("{}{}", r ? ", " : "", r);
    std::vector<std::string> ops(
        static_cast<std::size_t>(p),
        fmt::format(R"({{"kind": "all_reduce", "group": "g", "bytes": {}, "dtype": "fp32"}})", n));
    trace::Trace t = make_trace(p, fmt::format(R"({{"name": "g", "kind": "data", "ranks": [{}]}})", members), ops);
    engine::Result r = engine::replay(t, platform, {});
    topology::Network::PathCost hop = platform.network.path_cost(0, 1);
    collective::RingAllReduce ring(p, n / 4, 4);
    double closed = ring.cost(collective::cost_params(hop.latency_s, 1.0 / hop.bandwidth_Bps, 1.0 / 2e10));
    for (int rank = 0; rank < p; ++rank) {
      INFO("p=" << p << " rank " << rank);
      CHECK(op_time(r, rank, 0) == Approx(closed).epsilon(0.01));
    }
  }
}

TEST_CASE("a collective that a member never reaches is reported, not hung", "[engine][deadlock]") {
  // Rank 2 waits for a message that rank 0 sends only after the all_reduce that needs rank 2.
  trace::Trace t = make_trace(3, R"({"name": "dp", "kind": "data", "ranks": [0, 1, 2]})",
                              {R"({"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"},
                                  {"kind": "send", "peer": 2, "bytes": 8, "tag": "late"})",
                               R"({"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"})",
                               R"({"kind": "recv", "peer": 0, "bytes": 8, "tag": "late"},
                                  {"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"})"});
  engine::ReplayOptions ring;  // the time of the report depends on the algorithm
  ring.all_reduce_algorithm = "ring";
  CHECK_THROWS_WITH(
      engine::replay(t, test_platform(2, 2), ring),
      "simulation cannot progress at t=0.000002 s: 3 of 3 ranks are blocked\n"
      "  rank 0: operator #0 'all_reduce' (line 4) on group \"dp\" (its collective #1 on this group) waits for members "
      "that never reached it: rank 2 is blocked in operator #0 'recv'\n"
      "  rank 1: operator #0 'all_reduce' (line 6) on group \"dp\" (its collective #1 on this group) waits for members "
      "that never reached it: rank 2 is blocked in operator #0 'recv'\n"
      "  rank 2: operator #0 'recv' (line 7) waits for a send from rank 0 (tag \"late\", 8 bytes); rank 0 is blocked in "
      "operator #0 'all_reduce'");
}

TEST_CASE("crossed collectives on two groups deadlock with a clear message", "[engine][deadlock]") {
  trace::Trace t = make_trace(
      2, R"({"name": "a", "kind": "other", "ranks": [0, 1]}, {"name": "b", "kind": "other", "ranks": [0, 1]})",
      {R"({"kind": "all_reduce", "group": "a", "bytes": 64, "dtype": "fp32"},
                                  {"kind": "all_reduce", "group": "b", "bytes": 64, "dtype": "fp32"})",
       R"({"kind": "all_reduce", "group": "b", "bytes": 64, "dtype": "fp32"},
                                  {"kind": "all_reduce", "group": "a", "bytes": 64, "dtype": "fp32"})"});
  CHECK_THROWS_WITH(
      engine::replay(t, test_platform(1, 2), {}),
      "simulation cannot progress at t=0.000000 s: 2 of 2 ranks are blocked\n"
      "  rank 0: operator #0 'all_reduce' (line 4) on group \"a\" (its collective #1 on this group) waits for members "
      "that never reached it: rank 1 is blocked in operator #0 'all_reduce'\n"
      "  rank 1: operator #0 'all_reduce' (line 6) on group \"b\" (its collective #1 on this group) waits for members "
      "that never reached it: rank 0 is blocked in operator #0 'all_reduce'");
}

TEST_CASE("a trace larger than the platform is an input error", "[engine]") {
  trace::Trace t = make_trace(3, "", {"", "", ""});
  CHECK_THROWS_WITH(engine::replay(t, test_platform(1, 2), {}),
                    "t.json: field 'world_size': the trace has 3 ranks but platform \"test\" has only 2 accelerators "
                    "(1 nodes x 2); --oversubscribe shares accelerators");
}

TEST_CASE("work of a non-finite time is an input error naming the operator, not a crash", "[engine][deadlock]") {
  // Rank 0 computes for 1e300 s (1e312 FLOPs at 1 TFLOP/s: infinite for SimGrid) before the
  // send rank 1 waits for: explaining that stall indexed group -1 of the compute operator.
  trace::Trace t = make_trace(2, "",
                              {R"({"kind": "compute", "name": "linear", "duration_ms": 1}, )" + test::send(1, 64, "x"),
                               test::recv(0, 64, "x")});
  t.programs[0].ops[0].duration_s = 1e300;  // past any range a reader accepts
  CHECK_THROWS_WITH(engine::replay(t, test_platform(1, 2), {}),
                    "t.json:4: rank 0, operator #0 'linear': its simulated time is not finite (computing for 1e+300 s "
                    "on platform \"test\"): the trace's amounts are too large for the platform's rates");
  // In a collective step (a reduction, as compress and decompress steps): explaining that
  // stall indexed rank -1, the peer of a busy step.
  trace::Trace c = make_trace(2, R"({"name": "dp", "kind": "data", "ranks": [0, 1]})",
                              {R"({"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"})",
                               R"({"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"})"});
  topology::Platform slow = test_platform(1, 2);
  topology::AcceleratorSpec acc = slow.network.accelerator();
  acc.reduce_Bps = 1e-300;  // past the platform reader's limits
  topology::NetworkBuilder slower(std::move(slow.network));
  slower.set_accelerator(acc);
  slow.network = std::move(slower).build();
  // Both ranks skip their reduction at one instant: the lowest rank's is named, whichever
  // SimGrid reported first.
  const std::string reducing =
      "t.json:4: rank 0, operator #0 'all_reduce': its simulated time is not finite (reducing for 2.048e+303 s on "
      "platform \"test\"): the trace's amounts are too large for the platform's rates";
  CHECK_THROWS_WITH(engine::replay(c, slow, {}), reducing);
  engine::ReplayOptions actors;
  actors.event_steps = false;
  CHECK_THROWS_WITH(engine::replay(c, slow, actors), reducing);
}

TEST_CASE("a version-2 trace and its version-1 expansion replay identically", "[engine][v2]") {
  // One program per pipeline stage shared by its tensor-parallel peers and data-parallel
  // replicas, against one program per rank: the same simulation, bit for bit.
  synth::Parallelism par = test::split(2, 2, 2, 3);
  par.sp = true;
  const trace::Trace synthesized = synth::synthesize(synth::load_model("small-gpt"), par, "local");
  auto reread = [&](int version) {
    std::ostringstream out;
    trace::write_native(synthesized, out, version);
    return trace::parse_native(out.str(), fmt::format("v{}.json", version));
  };
  const trace::Trace v2 = reread(2);
  const trace::Trace v1 = reread(1);
  CHECK(v2.programs.size() == 2);
  CHECK(v1.programs.size() == 8);
  REQUIRE(v2.op_count() == v1.op_count());
  CHECK(v2.program_op_count() * 4 == v1.program_op_count());
  const topology::Platform p = test_platform(2, 4);
  for (bool fast : {false, true}) {
    engine::ReplayOptions options;
    options.fast = fast;
    const engine::Result a = engine::replay(v2, p, options);
    const engine::Result b = engine::replay(v1, p, options);
    CHECK(a.makespan_s > 0);
    CHECK(std::memcmp(&a.makespan_s, &b.makespan_s, sizeof(double)) == 0);
    REQUIRE(a.ops.size() == b.ops.size());
    std::size_t differ = 0;
    for (std::size_t r = 0; r < a.ops.size(); ++r) {
      REQUIRE(a.ops[r].size() == b.ops[r].size());
      for (std::size_t i = 0; i < a.ops[r].size(); ++i) {
        const engine::OpRecord& x = a.ops[r][i];
        const engine::OpRecord& y = b.ops[r][i];
        if (x.start_s != y.start_s || x.end_s != y.end_s || x.wait_s != y.wait_s || a.name(x.name) != b.name(y.name) ||
            a.name(x.algorithm) != b.name(y.algorithm)) {
          ++differ;
        }
      }
    }
    CHECK(differ == 0);
  }
}
