#include <catch2/catch.hpp>

#include <memory>

#include "engine/network_factors.hpp"
#include "engine/replay.hpp"
#include "engine_fixtures.hpp"
#include "topology/platform.hpp"

using namespace ccsim;
using test::make_trace;
using test::op_time;

namespace {

/// `nodes` x `per_node` ranks; intra 10 GB/s 1 us, NIC 1 GB/s 5 us (the nominal figures that a
/// calibrated model must override). `cores` makes the slots CPU cores ("cores_per_node").
topology::Platform model_platform(int nodes, int per_node, bool cores = false) {
  return topology::parse_platform(fmt::format(R"({{
  "format": "ccsim-platform", "version": 1, "name": "test", "nodes": {},
  "node": {{"{}": {},
    "accelerator": {{"model": "t", "flops": 1e9, "reduce_Bps": 2e10, "source": "test"}},
    "intra_link": {{"bandwidth_Bps": 1e10, "latency_s": 1e-6, "source": "test"}},
    "nics": 1,
    "nic_link": {{"bandwidth_Bps": 1e9, "latency_s": 5e-6, "source": "test"}}}},
  "network": {{"topology": "switch", "source": "test"}}
}})",
                                              nodes, cores ? "cores_per_node" : "accelerators", per_node),
                                  "test-platform.json");
}

/// The formula: send overhead + latency + bytes / bandwidth + receive overhead of the segment.
double formula(const topology::TierModel& tier, std::uint64_t bytes) {
  const topology::CostSegment* seg = &tier.segments.front();
  for (const topology::CostSegment& s : tier.segments) {
    if (s.min_bytes <= bytes) seg = &s;
  }
  return tier.send_overhead_s + seg->latency_s + static_cast<double>(bytes) / seg->bandwidth_Bps + tier.recv_overhead_s;
}

/// One message from rank `src` to `dst` (rank r on accelerator r), the receiver waiting from t=0.
double lone_message(const topology::Platform& p, int src, int dst, std::uint64_t bytes,
                    std::shared_ptr<const topology::NetworkModel> model) {
  const int world = p.network.accelerator_count();
  std::vector<std::string> ops(static_cast<std::size_t>(world));
  ops[static_cast<std::size_t>(src)] = test::send(dst, bytes);
  ops[static_cast<std::size_t>(dst)] = test::recv(src, bytes);
  engine::ReplayOptions options;
  options.placement = "rank-order";
  options.network.calibrated = std::move(model);
  return op_time(engine::replay(make_trace(world, "", ops), p, options), dst, 0);
}

}  // namespace

TEST_CASE("a lone message under a calibrated model costs its tier's formula, overheads included", "[engine][model]") {
  const topology::Platform p = model_platform(2, 2);
  const auto model = test::overheads_model();
  for (std::uint64_t bytes : {64ull, 4096ull, 100000ull, 1ull << 20, 3ull << 20, 64ull << 20}) {
    INFO(bytes << " bytes");
    CHECK(lone_message(p, 0, 1, bytes, model) == Approx(formula(model->intra, bytes)).epsilon(0.001));
    CHECK(lone_message(p, 0, 2, bytes, model) == Approx(formula(model->inter, bytes)).epsilon(0.001));
  }
}

TEST_CASE("segments switch at their min_bytes", "[engine][model]") {
  const topology::Platform p = model_platform(2, 1);
  const auto model = test::overheads_model();
  for (std::uint64_t edge : {8192ull, 1ull << 20}) {
    INFO("edge " << edge);
    const double below = lone_message(p, 0, 1, edge - 4, model);  // traces count whole fp32 elements
    const double at = lone_message(p, 0, 1, edge, model);
    CHECK(below == Approx(formula(model->inter, edge - 4)).epsilon(0.001));
    CHECK(at == Approx(formula(model->inter, edge)).epsilon(0.001));
  }
  // 8188 bytes at 100 MB/s after 2 us vs 8192 at 2 GB/s after 30 us: the switch is visible.
  CHECK(lone_message(p, 0, 1, 8188, model) > 1.5 * lone_message(p, 0, 1, 8192, model));
  CHECK(engine::NetworkFactors::segment(model->inter, 0).min_bytes == 0);
  CHECK(engine::NetworkFactors::segment(model->inter, 8191.0).min_bytes == 0);
  CHECK(engine::NetworkFactors::segment(model->inter, 8192.0).min_bytes == 8192);
  CHECK(engine::NetworkFactors::segment(model->inter, 1e12).min_bytes == 1 << 20);
}

TEST_CASE("without a model a lone message costs the route's nominal figures", "[engine][model]") {
  const topology::Platform p = model_platform(2, 2);
  const std::uint64_t n = 1 << 20;
  CHECK(lone_message(p, 0, 1, n, nullptr) == Approx(2e-6 + n / 1e10).epsilon(0.001));
  CHECK(lone_message(p, 0, 2, n, nullptr) == Approx(2e-6 + 10e-6 + n / 1e9).epsilon(0.001));
}

TEST_CASE("a model that leaves a tier out keeps the platform's figures for it", "[engine][model]") {
  const topology::Platform p = model_platform(2, 2);
  auto model = std::make_shared<topology::NetworkModel>(*test::overheads_model());
  model->has_intra = false;
  const std::uint64_t n = 1 << 20;
  CHECK(lone_message(p, 0, 1, n, model) == Approx(2e-6 + n / 1e10).epsilon(0.001));
  CHECK(lone_message(p, 0, 2, n, model) == Approx(formula(model->inter, n)).epsilon(0.001));
}

TEST_CASE("two ranks behind one NIC sending out of the node at once each get half the NIC", "[engine][model]") {
  // Node 0 (ranks 0, 1) sends 100 MB from each rank to node 1 (ranks 2, 3): both flows cross
  // node 0's NIC and node 1's NIC (1 GB/s), the intra links (10 GB/s) are not the bottleneck.
  const topology::Platform p = model_platform(2, 2);
  const std::uint64_t n = 100'000'000;
  auto run = [&](std::shared_ptr<const topology::NetworkModel> model) {
    engine::ReplayOptions options;
    options.placement = "rank-order";
    options.network.calibrated = std::move(model);
    return engine::replay(make_trace(4, "", {test::send(2, n), test::send(3, n), test::recv(0, n), test::recv(1, n)}),
                          p, options);
  };
  engine::Result plain = run(nullptr);
  CHECK(op_time(plain, 2, 0) == Approx(12e-6 + 2.0 * n / 1e9).epsilon(0.001));
  CHECK(op_time(plain, 3, 0) == Approx(12e-6 + 2.0 * n / 1e9).epsilon(0.001));
  // With a model of 1 GB/s for large inter-node messages: alone one flow gets 1 GB/s, together half each.
  auto model = std::make_shared<topology::NetworkModel>();
  model->name = "nic";
  model->has_inter = true;
  model->inter.segments = {{0, 1e-5, 1e9}};
  engine::Result modelled = run(model);
  CHECK(op_time(modelled, 2, 0) == Approx(1e-5 + 2.0 * n / 1e9).epsilon(0.001));
  CHECK(op_time(modelled, 3, 0) == Approx(1e-5 + 2.0 * n / 1e9).epsilon(0.001));
  CHECK(lone_message(p, 0, 2, n, model) == Approx(1e-5 + 1.0 * n / 1e9).epsilon(0.001));
}

TEST_CASE("intra-node messages do not cross the NIC", "[engine][model]") {
  // 2 nodes x 3: rank 0 sends out of node 0 (to rank 3) while rank 1 sends to rank 2 inside
  // node 0: the inter-node flow keeps the whole NIC, the intra-node one its 10 GB/s links.
  const topology::Platform p = model_platform(2, 3);
  const std::uint64_t n = 100'000'000;
  engine::ReplayOptions options;
  options.placement = "rank-order";
  engine::Result r = engine::replay(
      make_trace(6, "", {test::send(3, n), test::send(2, n), test::recv(1, n), test::recv(0, n), "", ""}), p, options);
  CHECK(op_time(r, 3, 0) == Approx(12e-6 + n / 1e9).epsilon(0.001));
  CHECK(op_time(r, 2, 0) == Approx(2e-6 + n / 1e10).epsilon(0.001));
}

TEST_CASE("the result says which network model ran", "[engine][model]") {
  const topology::Platform p = model_platform(1, 2);
  engine::ReplayOptions options;
  options.network.calibrated = test::overheads_model();
  engine::Result r = engine::replay(make_trace(2, "", {test::send(1, 8), test::recv(0, 8)}), p, options);
  CHECK(r.network_model.rfind("calibrated model test (in memory): SimGrid CM02 with per-message", 0) == 0);
  CHECK(r.network_model.find("intra: overheads send 2 us, recv 3 us; 2 segments [>= 0 B: 1 us + bytes / 5000 MB/s; "
                             ">= 64 KiB: 4 us + bytes / 2e+04 MB/s]") != std::string::npos);
  engine::Result plain = engine::replay(make_trace(2, "", {test::send(1, 8), test::recv(0, 8)}), p, {});
  CHECK(plain.network_model.rfind(
            "SimGrid CM02 max-min flow model, TCP-gamma off, cross-traffic off, no correction factors", 0) == 0);
}

TEST_CASE("a replay says when the model priced messages below the data it was fitted from", "[engine][model]") {
  const topology::Platform p = model_platform(1, 2);
  auto model = std::make_shared<topology::NetworkModel>(*test::overheads_model());
  model->intra.floor_bytes = 1 << 20;  // bandwidth-bound there: 1 MiB at 20 GB/s is 52 us against 9 us
  engine::ReplayOptions options;
  options.placement = "rank-order";
  options.network.calibrated = model;
  auto note_of = [](const engine::Result& r) {
    for (const std::string& note : r.notes) {
      if (note.rfind("calibrated model test extrapolated:", 0) == 0) return note;
    }
    return std::string();
  };
  const engine::Result small = engine::replay(make_trace(2, "",
                                                         {test::send(1, 4096) + ", " + test::send(1, 65536),
                                                          test::recv(0, 4096) + ", " + test::recv(0, 65536)}),
                                              p, options);
  CHECK(note_of(small) ==
        "calibrated model test extrapolated: 2 intra messages (the smallest 4096 B) below the 1048576 B "
        "it was fitted from, priced by the line of the segment of 1048576 B, the smallest fitted "
        "(bandwidth-bound there); measure smaller messages to know them");
  // The line of the 64 KiB+ segment, not the first segment's, and not what 1 MiB costs.
  CHECK(op_time(small, 1, 0) == Approx(5e-6 + 4e-6 + 4096 / 2e10).epsilon(0.001));
  const engine::Result large =
      engine::replay(make_trace(2, "", {test::send(1, 1 << 20), test::recv(0, 1 << 20)}), p, options);
  CHECK(note_of(large).empty());
}

TEST_CASE("collective steps pay the model's overheads", "[engine][model]") {
  // A 2-rank ring all_reduce of 8 bytes (2 chunks of 4): each rank sends and receives once per
  // step, 2 steps (reduce-scatter, all-gather): per step send overhead + latency + 4 bytes /
  // bandwidth + receive overhead, plus the reduction of 4 bytes.
  const topology::Platform p = model_platform(1, 2);
  auto model = std::make_shared<topology::NetworkModel>();
  model->name = "o";
  model->has_intra = true;
  model->intra.send_overhead_s = 1e-4;
  model->intra.recv_overhead_s = 2e-4;
  model->intra.segments = {{0, 1e-5, 1e9}};
  engine::ReplayOptions options;
  options.network.calibrated = model;
  options.all_reduce_algorithm = "ring";
  const std::string op = R"({"kind": "all_reduce", "group": "g", "bytes": 8, "dtype": "fp32"})";
  engine::Result r =
      engine::replay(make_trace(2, R"({"name": "g", "kind": "data", "ranks": [0, 1]})", {op, op}), p, options);
  CHECK(op_time(r, 0, 0) == Approx(2 * (1e-4 + 1e-5 + 4 / 1e9 + 2e-4) + 4 / 2e10).epsilon(0.001));
}

TEST_CASE("CPU ranks that outnumber the cores do not slow measured compute", "[engine][cpu]") {
  // 4 ranks on 1 node of 2 cores: rank-order puts ranks 0 and 2 on core 0, 1 and 3 on core 1.
  const topology::Platform p = model_platform(1, 2, true);
  CHECK(p.network.accelerator().cpu_core);
  engine::ReplayOptions options;
  options.placement = "rank-order";
  const std::string measured = R"({"kind": "compute", "name": "linear", "duration_ms": 1000})";
  const std::string counted = R"({"kind": "compute", "name": "linear", "flops": 1e9})";
  engine::Result r = engine::replay(make_trace(4, "", {measured, measured, counted, measured}), p, options);
  CHECK(op_time(r, 0, 0) == Approx(1.0));
  CHECK(op_time(r, 1, 0) == Approx(1.0));
  CHECK(op_time(r, 3, 0) == Approx(1.0));
  // FLOPs at 1 GFLOP/s on the node's 2 cores, which no other rank's work occupies (measured
  // durations carry their run's sharing and run on the ranks' own hosts).
  CHECK(op_time(r, 2, 0) == Approx(1.0));
  CHECK(r.placement == "rank-order, 4 CPU ranks on 2 cores (measured compute is not time-shared again)");
}

TEST_CASE("CPU ranks time-share their node's cores while they compute, not while they wait", "[engine][cpu]") {
  // 4 ranks on 1 node of 2 cores, 1 GFLOP each at 1 GFLOP/s per core.
  const topology::Platform p = model_platform(1, 2, true);
  engine::ReplayOptions options;
  options.placement = "rank-order";
  const std::string counted = R"({"kind": "compute", "name": "linear", "flops": 1e9})";
  // All four at once: 2 cores for 4 executions, each at half a core.
  engine::Result r = engine::replay(make_trace(4, "", {counted, counted, counted, counted}), p, options);
  for (int rank = 0; rank < 4; ++rank) CHECK(op_time(r, rank, 0) == Approx(2.0));
  // A pipeline: ranks 2 and 3 wait for 0 and 1, so at most 2 ranks compute at a time and each
  // has a core (a static x2 for 2 ranks per core would give 2 s each).
  const std::string to2 = test::send(2, 8), to3 = test::send(3, 8), from0 = test::recv(0, 8), from1 = test::recv(1, 8);
  r = engine::replay(
      make_trace(4, "", {counted + ", " + to2, counted + ", " + to3, from0 + ", " + counted, from1 + ", " + counted}),
      p, options);
  for (int rank = 0; rank < 4; ++rank) CHECK(op_time(r, rank, rank < 2 ? 0 : 1) == Approx(1.0));
  CHECK(r.makespan_s == Approx(2.0).epsilon(1e-4));
  // A three-rank overlap: rank 2 starts at 0.5 s while 0 and 1 compute. 0.5 s at full speed,
  // then three executions on 2 cores (2/3 of a core each) until ranks 0 and 1 finish their
  // remaining 0.5 GFLOP after 0.75 s (t = 1.25 s); rank 2 did 0.5 GFLOP by then and ends 0.5 s
  // later alone.
  const std::string half = R"({"kind": "compute", "name": "linear", "duration_ms": 500})";
  r = engine::replay(make_trace(4, "", {counted, counted, half + ", " + counted, ""}), p, options);
  CHECK(op_time(r, 0, 0) == Approx(1.25));
  CHECK(op_time(r, 2, 1) == Approx(1.25));
  // Durations of a rank with a core of its own (a compute model's) time-share as FLOPs do.
  const std::string second = R"({"kind": "compute", "name": "linear", "duration_ms": 1000})";
  options.dedicated_durations = true;
  r = engine::replay(make_trace(4, "", {second, second, second, second}), p, options);
  for (int rank = 0; rank < 4; ++rank) CHECK(op_time(r, rank, 0) == Approx(2.0));
}

TEST_CASE("messages between CPU ranks of one core cross its link to the node hub", "[engine][cpu]") {
  const topology::Platform p = model_platform(1, 2, true);
  engine::ReplayOptions options;
  options.placement = "rank-order";
  const std::uint64_t n = 100'000'000;
  // Ranks 0 and 2 share core 0: up and down its 10 GB/s, 1 us intra link.
  engine::Result r = engine::replay(make_trace(4, "", {test::send(2, n), "", test::recv(0, n), ""}), p, options);
  CHECK(op_time(r, 2, 0) == Approx(2e-6 + n / 1e10).epsilon(0.001));
  // Under a model of processes with a core each they pay its intra tier as 2 processes per
  // core do (topology::on_shared_cores): every cost x 2, plus the tier's core hand-off.
  auto model = std::make_shared<topology::NetworkModel>(*test::overheads_model());
  model->intra.handoff_s = 7e-6;
  options.network.calibrated = model;
  r = engine::replay(make_trace(4, "", {test::send(2, n), "", test::recv(0, n), ""}), p, options);
  CHECK(op_time(r, 2, 0) == Approx(2 * formula(model->intra, n) + 7e-6).epsilon(0.001));
  bool said = false;
  for (const std::string& note : r.notes)
    said = said || note.find("2 ranks per core: the calibrated model's intra tier") == 0;
  CHECK(said);
  // A model fitted on runs that shared their cores as this one does applies as it is.
  options.network.per_core = false;
  r = engine::replay(make_trace(4, "", {test::send(2, n), "", test::recv(0, n), ""}), p, options);
  CHECK(op_time(r, 2, 0) == Approx(formula(model->intra, n)).epsilon(0.001));
  // 2 ranks on 2 cores share nothing.
  options.network.per_core = true;
  r = engine::replay(make_trace(2, "", {test::send(1, n), test::recv(0, n)}), p, options);
  CHECK(op_time(r, 1, 0) == Approx(formula(model->intra, n)).epsilon(0.001));
}

TEST_CASE("deadlocks are explained under a calibrated model", "[engine][model][deadlock]") {
  const topology::Platform p = model_platform(1, 2);
  engine::ReplayOptions options;
  options.network.calibrated = test::overheads_model();
  trace::Trace t = make_trace(
      2, "",
      {test::recv(1, 8, "x") + ", " + test::send(1, 8, "y"), test::recv(0, 8, "y") + ", " + test::send(0, 8, "x")});
  CHECK_THROWS_WITH(
      engine::replay(t, p, options),
      "simulation cannot progress at t=0.000000 s: 2 of 2 ranks are blocked\n"
      "  rank 0: operator #0 'recv' (line 4) waits for a send from rank 1 (tag \"x\", 8 bytes); rank 1 is "
      "blocked in operator #0 'recv'\n"
      "  rank 1: operator #0 'recv' (line 5) waits for a send from rank 0 (tag \"y\", 8 bytes); rank 0 is "
      "blocked in operator #0 'recv'");
}
