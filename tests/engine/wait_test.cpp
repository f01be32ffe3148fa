#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "engine/replay.hpp"
#include "engine_fixtures.hpp"
#include "topology/platform.hpp"

using namespace ccsim;
using test::make_trace;

namespace {

// NODES nodes of 2 accelerators behind a switch (10 GB/s, 1 us intra links): a message of 1 MB between two ranks of a
// node takes 2 us + 100 us once both sides have posted it.
topology::Platform switch_nodes(int nodes) {
  return topology::parse_platform(R"({
  "format": "ccsim-platform", "version": 1, "name": "test", "nodes": )" +
                                      std::to_string(nodes) + R"(,
  "node": {"accelerators": 2,
    "accelerator": {"model": "t", "flops": 1e12, "reduce_Bps": 2e10, "source": "test"},
    "intra_link": {"bandwidth_Bps": 1e10, "latency_s": 1e-6, "source": "test"},
    "nics": 1,
    "nic_link": {"bandwidth_Bps": 1e9, "latency_s": 5e-6, "source": "test"}},
  "network": {"topology": "switch", "source": "test"}
})",
                                  "test-platform.json");
}

constexpr double kTransferS = 2e-6 + 1e6 / 1e10;
const std::string kCompute10ms = R"({"kind": "compute", "name": "fwd", "duration_ms": 10}, )";

double wait_of(const engine::Result& r, int rank, std::size_t op) {
  return r.ops[static_cast<std::size_t>(rank)][op].wait_s;
}

}  // namespace

TEST_CASE("a receive posted before its send waits until the send is posted", "[engine][wait]") {
  // Rank 0 computes 10 ms, then sends; rank 1 receives at once: it waits 10 ms, then the
  // transfer takes kTransferS. The sender finds its receiver posted and waits for nothing.
  trace::Trace t = make_trace(2, "", {kCompute10ms + test::send(1, 1000000), test::recv(0, 1000000)});
  engine::ReplayOptions options;
  options.wait_spans = true;
  engine::Result r = engine::replay(t, switch_nodes(1), options);
  CHECK(wait_of(r, 1, 0) == Approx(10e-3).epsilon(1e-9));
  CHECK(r.ops[1][0].end_s == Approx(10e-3 + kTransferS).epsilon(1e-9));
  CHECK(wait_of(r, 0, 1) == 0.0);
  CHECK(wait_of(r, 0, 0) == 0.0);  // compute waits for no one
  // The interval itself, for timelines: [0, 10 ms) in rank 1's operator 0.
  REQUIRE(r.waits.size() == 2);
  CHECK(r.waits[0].empty());
  REQUIRE(r.waits[1].size() == 1);
  CHECK(r.waits[1][0].op == 0);
  CHECK(r.waits[1][0].start_s == 0.0);
  CHECK(r.waits[1][0].end_s == Approx(10e-3).epsilon(1e-9));
}

TEST_CASE("a send posted before its receive waits until the receive is posted (rendezvous)", "[engine][wait]") {
  // Rank 1 computes 10 ms, then receives; rank 0 sends at once: SimGrid's mailboxes start a
  // transfer when both sides are there, so the sender waits 10 ms.
  trace::Trace t = make_trace(2, "", {test::send(1, 1000000), kCompute10ms + test::recv(0, 1000000)});
  engine::Result r = engine::replay(t, switch_nodes(1), {});
  CHECK(wait_of(r, 0, 0) == Approx(10e-3).epsilon(1e-9));
  CHECK(wait_of(r, 1, 1) == 0.0);
  CHECK(r.waits.empty());  // the intervals are recorded only on request
}

TEST_CASE("a collective waits for its late members in its exchange steps", "[engine][wait]") {
  // A ring all_reduce of 2 ranks: each step exchanges a half with the peer. Rank 0 enters
  // after 10 ms of compute: rank 1 has posted its first step at 0 and waits 10 ms; the
  // second step starts on both ranks at the same time (after the same reduction) and waits for
  // nothing. Rank 0 finds rank 1 ready.
  const std::string all_reduce = R"({"kind": "all_reduce", "group": "g", "bytes": 2000000, "dtype": "fp32"})";
  trace::Trace t =
      make_trace(2, R"({"name": "g", "kind": "data", "ranks": [0, 1]})", {kCompute10ms + all_reduce, all_reduce});
  engine::ReplayOptions options;
  options.all_reduce_algorithm = "ring";
  options.wait_spans = true;
  engine::Result r = engine::replay(t, switch_nodes(1), options);
  CHECK(wait_of(r, 1, 0) == Approx(10e-3).epsilon(1e-9));
  CHECK(wait_of(r, 0, 1) == Approx(0.0).margin(1e-12));
  // Without the wait, both ranks' all_reduce takes the same time.
  const double rank0_s = r.ops[0][1].end_s - r.ops[0][1].start_s;
  const double rank1_s = r.ops[1][0].end_s - r.ops[1][0].start_s;
  CHECK(rank1_s - wait_of(r, 1, 0) == Approx(rank0_s).epsilon(1e-9));
  REQUIRE(r.waits[1].size() == 1);
  CHECK(r.waits[1][0].end_s == Approx(10e-3).epsilon(1e-9));
}

TEST_CASE("a wait is never longer than its operator, and its intervals add up to it", "[engine][wait]") {
  // Four ranks in a ring all_reduce entering at 0, 3, 6 and 9 ms, then a pipeline-like
  // exchange: every rank's waits are inside its operators.
  std::vector<std::string> ops;
  for (int rank = 0; rank < 4; ++rank) {
    ops.push_back(fmt::format(R"({{"kind": "compute", "name": "fwd", "duration_ms": {}}}, )", 3 * rank) +
                  R"({"kind": "all_reduce", "group": "g", "bytes": 4000000, "dtype": "fp32"})");
  }
  trace::Trace t = make_trace(4, R"({"name": "g", "kind": "data", "ranks": [0, 1, 2, 3]})", ops);
  topology::Platform p = switch_nodes(2);
  engine::ReplayOptions options;
  options.all_reduce_algorithm = "ring";
  options.wait_spans = true;
  engine::Result r = engine::replay(t, p, options);
  for (int rank = 0; rank < 4; ++rank) {
    CAPTURE(rank);
    const engine::OpRecord& op = r.ops[static_cast<std::size_t>(rank)][1];
    CHECK(op.wait_s >= 0);
    CHECK(op.wait_s <= op.end_s - op.start_s);
    double sum = 0;
    for (const engine::WaitSpan& span : r.waits[static_cast<std::size_t>(rank)]) {
      CHECK(span.op == 1);
      CHECK(span.start_s >= op.start_s);
      CHECK(span.end_s <= op.end_s);
      CHECK(span.end_s > span.start_s);
      sum += span.end_s - span.start_s;
    }
    CHECK(sum == Approx(op.wait_s).epsilon(1e-12));
  }
  // Rank 0's first step sends a quarter (1 MB) to rank 1 in its node, which arrives at 3 ms:
  // 2 us + 1e6 B / 10 GB/s of transfer; it receives from rank 3, which arrives at 9 ms. It waits
  // from 0 to 9 ms except while its send moves; the later steps run in step and wait for nothing.
  CHECK(wait_of(r, 0, 1) == Approx(9e-3 - kTransferS).epsilon(1e-9));
}
