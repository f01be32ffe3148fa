#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "engine/collective_plan.hpp"
#include "engine/placement.hpp"
#include "engine/replay.hpp"
#include "engine/result.hpp"
#include "report/breakdown.hpp"
#include "engine_fixtures.hpp"
#include "topology/platform.hpp"

// Streams: a rank runs each stream's operators in order and its streams concurrently; an
// operator starts once the operators it is `after` have ended. Expected times are derived by
// hand from the platform below (traces/README.md, "Streams").

using namespace ccsim;
using test::make_trace;
using test::op_time;

namespace {

// One node of 2 accelerators: 1 TFLOP/s, reductions at 20 GB/s, 10 GB/s 1 us links.
topology::Platform one_node() {
  return topology::parse_platform(R"({
  "format": "ccsim-platform", "version": 1, "name": "test", "nodes": 1,
  "node": {"accelerators": 2,
    "accelerator": {"model": "t", "flops": 1e12, "reduce_Bps": 2e10, "source": "test"},
    "intra_link": {"bandwidth_Bps": 1e10, "latency_s": 1e-6, "source": "test"},
    "nics": 1, "nic_link": {"bandwidth_Bps": 1e9, "latency_s": 5e-6, "source": "test"}},
  "network": {"topology": "switch", "source": "test"}
})",
                                  "test-platform.json");
}

const std::string kGroup = R"({"name": "dp", "kind": "data", "ranks": [0, 1]})";

// forward 10 ms, backward 10 ms, the gradient all_reduce (40 MB), the optimizer 1 ms: the
// all_reduce on stream 1 after the forward, the optimizer after the all_reduce.
std::string training_step(bool streams) {
  const std::string s1 = streams ? R"(, "stream": 1, "after": [0])" : "";
  const std::string after = streams ? R"(, "after": [2])" : "";
  return fmt::format(R"({{"kind": "compute", "name": "forward", "flops": 1e10}},
      {{"kind": "compute", "name": "backward", "flops": 1e10}},
      {{"kind": "all_reduce", "group": "dp", "bytes": 40000000, "dtype": "fp32"{}}},
      {{"kind": "compute", "name": "optimizer", "flops": 1e9{}}})",
                     s1, after);
}

engine::ReplayOptions ring(bool fast) {
  engine::ReplayOptions o;
  o.all_reduce_algorithm = "ring";
  o.fast = fast;
  return o;
}

}  // namespace

TEST_CASE("an all_reduce on its own stream overlaps the backward and shares its accelerator", "[engine][streams]") {
  const trace::Trace overlapped = make_trace(2, kGroup, {training_step(true), training_step(true)});
  const trace::Trace serial = make_trace(2, kGroup, {training_step(false), training_step(false)});
  for (bool fast : {false, true}) {
    INFO("fast " << fast);
    const engine::Result r = engine::replay(overlapped, one_node(), ring(fast));
    const engine::Result s = engine::replay(serial, one_node(), ring(fast));
    // The ring of 2: a 20 MB step (2 ms + 2 us), its reduction (20 MB at 20 GB/s: 1 ms of the
    // accelerator), a second 20 MB step. Alone: 5.004 ms.
    const double transfer_s = 2e-3 + 2e-6;
    const double reduce_s = 1e-3;
    for (int rank : {0, 1}) {
      INFO("rank " << rank);
      CHECK(op_time(s, rank, 2) == Approx(2 * transfer_s + reduce_s).epsilon(1e-6));
      CHECK(s.makespan_s == Approx(21e-3 + 2 * transfer_s + reduce_s).epsilon(1e-6));
      // Overlapped: the all_reduce starts when the forward ends; the accelerator is busy
      // from 10 ms without a gap (backward and reduction share it), so the backward ends
      // at 20 ms + the reduction's 1 ms; the reduction at half speed takes 2 ms, so the
      // all_reduce ends at 10 + 2.002 + 2 + 2.002 ms, before the backward.
      const auto& ops = r.ops[static_cast<std::size_t>(rank)];
      CHECK(ops[2].start_s == Approx(10e-3).epsilon(1e-9));
      CHECK(ops[2].end_s == Approx(10e-3 + 2 * transfer_s + 2 * reduce_s).epsilon(1e-6));
      CHECK(ops[1].end_s == Approx(20e-3 + reduce_s).epsilon(1e-6));
      CHECK(ops[3].start_s == Approx(ops[1].end_s).epsilon(1e-9));
      CHECK(ops[3].end_s == Approx(22e-3).epsilon(1e-6));
    }
    CHECK(r.makespan_s == Approx(22e-3).epsilon(1e-6));
    // The report: the all_reduce ran entirely inside the backward; shares overlap.
    const report::Breakdown b = report::make_breakdown(r, {});
    CHECK(b.has_streams);
    REQUIRE(b.tables.size() == 1);
    const auto& rows = b.tables[0].rows;
    REQUIRE(rows.size() == 4);
    const double all_reduce_s = 2 * transfer_s + 2 * reduce_s;
    CHECK(rows[0].overlap_s == 0);
    CHECK(rows[1].overlap_s == Approx(all_reduce_s).epsilon(1e-6));
    CHECK(rows[2].overlap_s == Approx(all_reduce_s).epsilon(1e-6));
    CHECK(rows[3].overlap_s == 0);
    CHECK(report::make_breakdown(s, {}).has_streams == false);
    // The streams survive the trip from the simulation's child process.
    const engine::Result back = engine::deserialize(engine::serialize(r));
    REQUIRE(back.streams.size() == 2);
    for (int rank : {0, 1}) {
      REQUIRE(back.streams_of(rank) != nullptr);
      CHECK(*back.streams_of(rank) == std::vector<std::uint8_t>{0, 0, 1, 0});
    }
    CHECK(back.rank_end_s(0) == r.rank_end_s(0));
  }
}

TEST_CASE("an operator waits for the operators it is after, on its rank's other streams", "[engine][streams]") {
  // Rank 0 computes 5 ms, sends 10 MB (1 ms) on stream 1 after it, and computes 5 ms more
  // meanwhile; rank 1 receives on stream 1 and computes after the receive.
  const trace::Trace t = make_trace(2, "",
                                    {R"({"kind": "compute", "name": "a", "flops": 5e9},
                                        {"kind": "send", "peer": 1, "bytes": 10000000, "stream": 1, "after": [0]},
                                        {"kind": "compute", "name": "b", "flops": 5e9})",
                                     R"({"kind": "recv", "peer": 0, "bytes": 10000000, "stream": 1},
                                        {"kind": "compute", "name": "c", "flops": 5e9, "after": [0]})"});
  for (bool fast : {false, true}) {
    const engine::Result r = engine::replay(t, one_node(), ring(fast));
    const double message_s = 1e-3 + 2e-6;
    CHECK(r.ops[0][1].start_s == Approx(5e-3).epsilon(1e-9));
    CHECK(r.ops[0][1].end_s == Approx(5e-3 + message_s).epsilon(1e-6));
    CHECK(r.ops[0][2].start_s == Approx(5e-3).epsilon(1e-9));  // not after the send
    CHECK(r.rank_end_s(0) == Approx(10e-3).epsilon(1e-6));
    CHECK(r.ops[1][0].wait_s == Approx(5e-3).epsilon(1e-6));  // posted at 0, the send at 5 ms
    CHECK(r.ops[1][1].start_s == Approx(5e-3 + message_s).epsilon(1e-6));
    CHECK(r.makespan_s == Approx(10e-3 + message_s).epsilon(1e-6));
  }
}

TEST_CASE("streams that wait for each other across ranks are reported, not hung", "[engine][streams][deadlock]") {
  // Each rank sends on stream 1 only after its receive on stream 0, which waits for the
  // other's send.
  const trace::Trace t = make_trace(2, "",
                                    {R"({"kind": "recv", "peer": 1, "bytes": 8},
                                        {"kind": "send", "peer": 1, "bytes": 8, "stream": 1, "after": [0]})",
                                     R"({"kind": "recv", "peer": 0, "bytes": 8},
                                        {"kind": "send", "peer": 0, "bytes": 8, "stream": 1, "after": [0]})"});
  CHECK_THROWS_WITH(engine::replay(t, one_node(), {}),
                    "simulation cannot progress at t=0.000000 s: 2 of 2 ranks are blocked\n"
                    "  rank 0 stream 0: operator #0 'recv' (line 4) waits for a send from rank 1 (tag \"\", 8 bytes); "
                    "rank 1 is blocked in operator #0 'recv' (stream 0) and operator #1 'send' (stream 1)\n"
                    "  rank 0 stream 1: operator #1 'send' (line 5) waits for operator #0 'recv' (line 4, stream 0) to end\n"
                    "  rank 1 stream 0: operator #0 'recv' (line 6) waits for a send from rank 0 (tag \"\", 8 bytes); "
                    "rank 0 is blocked in operator #0 'recv' (stream 0) and operator #1 'send' (stream 1)\n"
                    "  rank 1 stream 1: operator #1 'send' (line 7) waits for operator #0 'recv' (line 6, stream 0) to end");
}

TEST_CASE("the fast replay runs the collectives of ranks with streams message by message, and says why", "[engine][streams]") {
  const trace::Trace t = make_trace(2, kGroup, {training_step(true), training_step(true)});
  const engine::ReplayOptions options = ring(true);
  const topology::Platform platform = one_node();
  const std::vector<int> placement = engine::place_ranks(t, platform.network, options.placement, options.oversubscribe);
  engine::CollectivePlanner planner(t, platform.network, placement, options);
  engine::CollectiveShortcuts shortcuts(t, platform.network, placement, options, &planner);
  const trace::Op& op = t.programs[0].ops[2];
  CHECK(shortcuts.refusal(planner.plan(op, 0, 2), op.group) ==
        "rank 0 runs operators on several streams, which may overlap the collective");
  // Without streams the same collective takes the shortcut.
  const trace::Trace serial = make_trace(2, kGroup, {training_step(false), training_step(false)});
  engine::CollectivePlanner serial_planner(serial, platform.network, placement, options);
  engine::CollectiveShortcuts serial_shortcuts(serial, platform.network, placement, options, &serial_planner);
  const trace::Op& serial_op = serial.programs[0].ops[2];
  CHECK(serial_shortcuts.refusal(serial_planner.plan(serial_op, 0, 2), serial_op.group) == "");
}
