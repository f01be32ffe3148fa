#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "collective/registry.hpp"
#include "collective/critical_path_executor.hpp"
#include "collective/ring_all_reduce.hpp"
#include "compress/model_reader.hpp"
#include "engine/collective_plan.hpp"
#include "engine/collective_shortcuts.hpp"
#include "engine/placement.hpp"
#include "engine/replay.hpp"
#include "engine_fixtures.hpp"
#include "topology/network_builder.hpp"
#include "../topology/topology_fixtures.hpp"

using namespace ccsim;
using test::largest_difference;

namespace {

std::string group_of(int p) {
  std::string ranks;
  for (int r = 0; r < p; ++r) ranks += fmt::format("{}{}", r ? ", " : "", r);
  return fmt::format(R"({{"name": "g", "kind": "data", "ranks": [{}]}})", ranks);
}

/// One collective of `bytes` (fp32) on all `p` ranks.
trace::Trace one_collective(int p, const std::string& kind, std::uint64_t bytes) {
  std::string extra = kind == "broadcast" ? R"(, "root": 1)" : "";
  std::vector<std::string> ops(
      static_cast<std::size_t>(p),
      fmt::format(R"({{"kind": "{}", "group": "g", "bytes": {}, "dtype": "fp32"{}}})", kind, bytes, extra));
  return test::make_trace(p, group_of(p), ops);
}

}  // namespace

TEST_CASE("every schedule's closed form matches its SimGrid replay without contention", "[engine][collective]") {
  // One rank per node on one switch: every step's flows use distinct NIC directions.
  const std::uint64_t n = 48ull << 20;
  struct Case {
    const char* kind;
    const char* algorithm;
  };
  const std::vector<Case> cases = {
      {"all_reduce", "ring"},         {"all_reduce", "recursive-doubling"},
      {"all_reduce", "rabenseifner"}, {"all_reduce", "binomial-tree"},
      {"all_gather", "auto"},         {"reduce_scatter", "auto"},
      {"broadcast", "auto"},          {"all_to_all", "auto"},
  };
  for (int p : {2, 3, 4, 6, 8}) {
    topology::Platform platform = test::platform(p, 1, 1, test::fat_tree(p, 1));
    topology::Network::PathCost hop = platform.network.path_cost(0, 1);
    const collective::CostParams params = collective::cost_params(hop.latency_s, 1.0 / hop.bandwidth_Bps, 1.0 / 1e11);
    for (const Case& c : cases) {
      INFO("p=" << p << " " << c.kind << " " << c.algorithm);
      engine::ReplayOptions options;
      options.all_reduce_algorithm = c.kind == std::string("all_reduce") ? c.algorithm : "auto";
      engine::Result r = engine::replay(one_collective(p, c.kind, n), platform, options);
      collective::Request request;
      request.op = c.kind == std::string("all_reduce")       ? collective::Collective::kAllReduce
                   : c.kind == std::string("all_gather")     ? collective::Collective::kAllGather
                   : c.kind == std::string("reduce_scatter") ? collective::Collective::kReduceScatter
                   : c.kind == std::string("broadcast")      ? collective::Collective::kBroadcast
                                                             : collective::Collective::kAllToAll;
      request.algorithm = c.algorithm;
      request.size = p;
      request.count = n / 4;
      request.root = 1;
      CHECK(r.makespan_s == Approx(collective::make_schedule(request)->cost(params)).epsilon(0.01));
    }
  }
}

TEST_CASE("hierarchical all_reduce matches its two-tier closed form", "[engine][collective]") {
  // 4 nodes x 4 accelerators, one NIC per accelerator (rails): no flow shares a link.
  std::string network = R"({"topology": "fat-tree", "rails": true, "source": "t", "levels": [
      {"down": 4, "source": "t"},
      {"down": 4, "bandwidth_Bps": 1e10, "latency_s": 3e-6, "oversubscription": 1, "source": "t"}]})";
  topology::Platform platform = test::platform(4, 4, 4, network);
  const std::uint64_t n = 64ull << 20;
  engine::ReplayOptions options;
  options.all_reduce_algorithm = "hierarchical";
  options.placement = "rank-order";
  engine::Result r = engine::replay(one_collective(16, "all_reduce", n), platform, options);
  topology::Network::PathCost inter = platform.network.path_cost(0, 4);
  topology::Network::PathCost intra = platform.network.path_cost(0, 1);
  collective::CostParams params = collective::cost_params(inter.latency_s, 1.0 / inter.bandwidth_Bps, 1.0 / 1e11);
  params.intra_alpha_s = intra.latency_s;
  params.intra_beta_s_per_byte = 1.0 / intra.bandwidth_Bps;
  collective::Request request;
  request.algorithm = "hierarchical";
  request.size = 16;
  request.count = n / 4;
  for (int rank = 0; rank < 16; ++rank) request.node_of_rank.push_back(rank / 4);
  CHECK(r.makespan_s == Approx(collective::make_schedule(request)->cost(params)).epsilon(0.01));
  CHECK(r.name(r.ops[0][0].algorithm) == "hierarchical");
}

TEST_CASE("compressed all_reduce: closed form and replay agree, bytes on the wire shrink",
          "[engine][collective][compress]") {
  const std::uint64_t n = 256ull << 20;
  struct Case {
    const char* algorithm;
    bool homomorphic;
    bool summable;
  };
  for (const Case& c : std::vector<Case>{{"compressed-ring", false, true},
                                         {"homomorphic-ring", true, true},
                                         {"compressed-allgather", false, false}}) {
    for (int p : {2, 4, 5}) {
      INFO(c.algorithm << " p=" << p);
      topology::Platform platform = test::platform(p, 1, 1, test::fat_tree(p, 1));
      engine::ReplayOptions options;
      options.compression.model = test::round_compressor(c.homomorphic, c.summable);
      options.compression.query.error_bound = 1e-3;
      engine::Result r = engine::replay(one_collective(p, "all_reduce", n), platform, options);
      CHECK(r.name(r.ops[0][0].algorithm) == c.algorithm);  // the automatic choice for this compressor
      topology::Network::PathCost hop = platform.network.path_cost(0, 1);
      collective::CostParams params =
          collective::cost_params(hop.latency_s, 1.0 / hop.bandwidth_Bps, 1.0 / 1e11,
                                  options.compression.model->cost(options.compression.query, DType::kF32));
      collective::Request request;
      request.algorithm = c.algorithm;
      request.size = p;
      request.count = n / 4;
      request.compression = c.homomorphic ? collective::Compression::kHomomorphic
                            : c.summable  ? collective::Compression::kErrorBounded
                                          : collective::Compression::kNonSummable;
      const double closed = collective::make_schedule(request)->cost(params);
      CHECK(r.makespan_s == Approx(closed).epsilon(0.01));
      // The error of the result is reported with every compressed collective.
      CHECK(r.ops[0][0].error_worst_eb > 0);
      CHECK(r.error_bound_abs == Approx(1e-3));
    }
  }
  // The wire: a compressed ring on 2 ranks moves n/8 instead of n per rank.
  topology::Platform platform = test::platform(2, 1, 1, test::fat_tree(2, 1));
  engine::ReplayOptions plain;
  plain.all_reduce_algorithm = "ring";
  engine::ReplayOptions squeezed;
  squeezed.compression.model = test::round_compressor(false, true);
  squeezed.compression.query.error_bound = 1e-3;
  const double t_plain = engine::replay(one_collective(2, "all_reduce", n), platform, plain).makespan_s;
  const double t_comp = engine::replay(one_collective(2, "all_reduce", n), platform, squeezed).makespan_s;
  CHECK(t_comp < t_plain);
}

TEST_CASE("compression occupies the accelerator and competes with compute", "[engine][collective][compress]") {
  // Ranks 0 and 2 share accelerator 0 (oversubscribed): rank 0 computes 50 ms while rank 2
  // compresses for an all_reduce with rank 3 (accelerator 1); the compute takes longer than alone.
  topology::Platform platform = test::platform(2, 1, 1, test::fat_tree(2, 1));
  std::vector<std::string> ops = {R"({"kind": "compute", "name": "linear", "duration_ms": 50})", "",
                                  R"({"kind": "all_reduce", "group": "g", "bytes": 1073741824, "dtype": "fp32"})",
                                  R"({"kind": "all_reduce", "group": "g", "bytes": 1073741824, "dtype": "fp32"})"};
  trace::Trace t = test::make_trace(4, R"({"name": "g", "kind": "data", "ranks": [2, 3]})", ops);
  engine::ReplayOptions options;
  options.placement = "map:0,1,0,1";
  options.oversubscribe = true;
  options.compression.model = test::round_compressor(false, true);
  options.compression.query.error_bound = 1e-3;
  engine::Result r = engine::replay(t, platform, options);
  CHECK(test::op_time(r, 0, 0) > 0.050 * 1.05);
  options.compression = engine::CompressionOptions{};
  engine::Result plain = engine::replay(t, platform, options);
  CHECK(test::op_time(plain, 0, 0) < test::op_time(r, 0, 0));
}

TEST_CASE("small all_reduces stay plain below --compress-min-bytes", "[engine][collective][compress]") {
  topology::Platform platform = test::platform(2, 1, 1, test::fat_tree(2, 1));
  std::vector<std::string> ops(2, R"({"kind": "all_reduce", "group": "g", "bytes": 1024, "dtype": "fp32"},
                                     {"kind": "all_reduce", "group": "g", "bytes": 67108864, "dtype": "fp32"})");
  engine::ReplayOptions options;
  options.compression.model = test::round_compressor(false, true);
  options.compression.query.error_bound = 1e-3;
  options.compression.min_bytes = 1 << 20;
  engine::Result r = engine::replay(test::make_trace(2, group_of(2), ops), platform, options);
  CHECK(r.name(r.ops[0][0].algorithm) == "recursive-doubling");
  CHECK(r.ops[0][0].error_worst_eb == 0);
  CHECK(r.name(r.ops[0][1].algorithm) == "compressed-ring");
}

namespace {

/// Ranks 0-3 on node 0 and 4-7 on node 1 (rank order); each all_reduces 64 MiB in its
/// tensor-parallel group (its node), then 64 MiB in its data-parallel group (one rank of each node).
trace::Trace tensor_then_data_parallel() {
  const std::string groups = R"({"name": "tp0", "kind": "tensor", "ranks": [0, 1, 2, 3]},
    {"name": "tp1", "kind": "tensor", "ranks": [4, 5, 6, 7]},
    {"name": "dp0", "kind": "data", "ranks": [0, 4]}, {"name": "dp1", "kind": "data", "ranks": [1, 5]},
    {"name": "dp2", "kind": "data", "ranks": [2, 6]}, {"name": "dp3", "kind": "data", "ranks": [3, 7]})";
  std::vector<std::string> ops;
  for (int r = 0; r < 8; ++r) {
    ops.push_back(fmt::format(R"({{"kind": "all_reduce", "group": "tp{}", "bytes": 67108864, "dtype": "fp32"}},
                                 {{"kind": "all_reduce", "group": "dp{}", "bytes": 67108864, "dtype": "fp32"}})",
                              r / 4, r % 4));
  }
  return test::make_trace(8, groups, ops);
}

}  // namespace

TEST_CASE("compression applies to an all_reduce only where the closed forms predict it faster",
          "[engine][collective][compress]") {
  // The test compressor (ratio 8, 40 GB/s compress, 80 GB/s decompress, 5 us per call) cannot
  // beat a 200 GB/s link, but beats a 1 GB/s NIC. By hand, n = 64 MiB, m = n / p:
  //  tp, p = 4, alpha 2 us (two 1 us hops), beta 1 / 200 GB/s, gamma 1 / 20 GB/s:
  //   rabenseifner 4 alpha + 1.5 n beta + 0.75 n gamma = 0.008 + 0.503 + 2.517 = 3.028 ms;
  //   compressed ring 6 alpha + 1.5 n beta / 8 + p (5 us + m / 40 GB/s) + 2(p-1) (5 us +
  //   m / 80 GB/s) + 0.75 n gamma = 0.012 + 0.063 + 1.698 + 1.288 + 2.517 = 5.578 ms;
  //  dp, p = 2, alpha 12 us (1 + 5 + 5 + 1), beta 1 / 1 GB/s:
  //   ring 2 alpha + n beta + 0.5 n gamma = 0.024 + 67.109 + 1.678 = 68.811 ms;
  //   compressed ring 2 alpha + n beta / 8 + 2 (5 us + m / 40 GB/s) + 2 (5 us + m / 80 GB/s)
  //   + 0.5 n gamma = 0.024 + 8.389 + 1.688 + 0.849 + 1.678 = 12.627 ms.
  const topology::Platform platform = test::two_nodes_of_four(2e11);  // NVLink-like inside a node
  engine::ReplayOptions options;
  options.placement = "rank-order";
  options.compression.model = test::round_compressor(false, true);
  options.compression.query.error_bound = 1e-3;
  const engine::Result paying = engine::replay(tensor_then_data_parallel(), platform, options);
  CHECK(paying.name(paying.ops[0][0].algorithm) == "rabenseifner");  // tensor parallel: plain
  CHECK(paying.ops[0][0].error_worst_eb == 0);
  CHECK(paying.name(paying.ops[0][1].algorithm) == "compressed-ring");  // data parallel: compressed
  CHECK(paying.ops[0][1].error_worst_eb > 0);
  const std::string tp =
      "all_reduce of 64 MiB on \"tp0\" and 1 other group alike (4 ranks on 1 node): plain 3.028 ms "
      "(rabenseifner), compressed 5.578 ms (compressed-ring): ";
  const std::string dp =
      "all_reduce of 64 MiB on \"dp0\" and 3 other groups alike (2 ranks on 2 nodes): plain 68.811 ms "
      "(ring), compressed 12.627 ms (compressed-ring): compressed";
  const auto compression_note = [](const engine::Result& r) {
    const auto it = std::find_if(r.notes.begin(), r.notes.end(),
                                 [](const std::string& n) { return n.rfind("compression: ", 0) == 0; });
    return it == r.notes.end() ? std::string("no compression note") : *it;
  };
  CHECK(compression_note(paying) == "compression: " + tp + "not compressed; " + dp + "; predicted by closed form");
  CHECK(paying.compression == "test eb=0.001 on the accelerator, where predicted faster");

  options.compression.all = true;
  const engine::Result forced = engine::replay(tensor_then_data_parallel(), platform, options);
  CHECK(forced.name(forced.ops[0][0].algorithm) == "compressed-ring");
  CHECK(forced.ops[0][0].error_worst_eb > 0);
  CHECK(forced.name(forced.ops[0][1].algorithm) == "compressed-ring");
  CHECK(compression_note(forced) ==
        "compression: " + tp + "compressed (--compress-all); " + dp + "; predicted by closed form");
  CHECK(forced.compression == "test eb=0.001 on the accelerator, every one (--compress-all)");
  // The replays agree with the predictions: compressing the tensor-parallel all_reduce slows it.
  CHECK(test::op_time(paying, 0, 0) < test::op_time(forced, 0, 0));
}

TEST_CASE("integer all_reduces stay exact under compression", "[engine][collective][compress]") {
  topology::Platform platform = test::platform(2, 1, 1, test::fat_tree(2, 1));
  std::vector<std::string> ops(2, R"({"kind": "all_reduce", "group": "g", "bytes": 4194304, "dtype": "int32"})");
  engine::ReplayOptions options;
  options.compression.model = test::round_compressor(false, true);
  options.compression.query.error_bound = 1e-3;
  engine::Result r = engine::replay(test::make_trace(2, group_of(2), ops), platform, options);
  CHECK(r.name(r.ops[0][0].algorithm) == "ring");
  CHECK(r.notes == std::vector<std::string>{"int32 all_reduces run plain: test compresses floating-point data only",
                                            "auto: all_reduce of 4 MiB on \"g\" (2 ranks on 2 nodes): ring 0.452 ms "
                                            "(chosen), rabenseifner 0.452 ms, recursive-doubling 0.467 ms, "
                                            "binomial-tree 0.893 ms; predicted by closed form"});
}

TEST_CASE("hierarchical all_reduce within one node runs and reports the ring, with a note", "[engine][collective]") {
  topology::Platform platform = test::platform(1, 4, 1, test::fat_tree(1, 1));
  std::vector<std::string> ops(4, R"({"kind": "all_reduce", "group": "g", "bytes": 4194304, "dtype": "fp32"})");
  engine::ReplayOptions options;
  options.all_reduce_algorithm = "hierarchical";
  engine::Result hierarchical = engine::replay(test::make_trace(4, group_of(4), ops), platform, options);
  options.all_reduce_algorithm = "ring";
  engine::Result ring = engine::replay(test::make_trace(4, group_of(4), ops), platform, options);
  CHECK(hierarchical.name(hierarchical.ops[0][0].algorithm) == "ring");
  CHECK(hierarchical.makespan_s == ring.makespan_s);
  CHECK(
      hierarchical.notes ==
      std::vector<std::string>{"all_reduce --algo hierarchical runs as ring on groups within one node or with one rank "
                               "per node"});
}

TEST_CASE("a configuration that cannot run is an input error at the operator", "[engine][collective]") {
  // Three ranks on nodes 0, 0, 1: no equal layout for the hierarchical algorithm.
  topology::Platform pairs = test::platform(2, 2, 1, test::fat_tree(2, 1));
  engine::ReplayOptions hierarchical;
  hierarchical.all_reduce_algorithm = "hierarchical";
  hierarchical.placement = "rank-order";
  std::vector<std::string> plain_ops(3, R"({"kind": "all_reduce", "group": "g", "bytes": 4096, "dtype": "fp32"})");
  CHECK_THROWS_WITH(
      engine::replay(test::make_trace(3, group_of(3), plain_ops), pairs, hierarchical),
      "t.json:4: field 'ranks[0].ops[0]': all_reduce on group \"g\": --algo: hierarchical all_reduce needs "
      "the same number of the group's ranks on every node, but node 0 holds 2 and node 1 holds 1");
  // A compressor query the model cannot answer.
  topology::Platform platform = test::platform(2, 1, 1, test::fat_tree(2, 1));
  engine::ReplayOptions bits;
  bits.compression.model = test::round_compressor(false, true);
  bits.compression.query.bits = 8;
  std::vector<std::string> ops(2, R"({"kind": "all_reduce", "group": "g", "bytes": 4096, "dtype": "fp32"})");
  CHECK_THROWS_WITH(
      engine::replay(test::make_trace(2, group_of(2), ops), platform, bits),
      Catch::Matchers::StartsWith("t.json:4: field 'ranks[0].ops[0]': all_reduce on group \"g\": --compress: "));
}

namespace {

/// Why the engine runs the first collective of rank 0 message by message ("" when it runs it as
/// its critical path: CollectiveShortcuts).
std::string shortcut_refusal(const trace::Trace& t, const topology::Platform& platform,
                             const engine::ReplayOptions& options) {
  const std::vector<int> placement = engine::place_ranks(t, platform.network, options.placement, options.oversubscribe);
  engine::CollectivePlanner planner(t, platform.network, placement, options);
  engine::CollectiveShortcuts shortcuts(t, platform.network, placement, options, &planner);
  for (std::size_t i = 0; i < t.programs[0].ops.size(); ++i) {
    const trace::Op& op = t.programs[0].ops[i];
    if (trace::is_collective(op.kind)) return shortcuts.refusal(planner.plan(op, 0, i), op.group);
  }
  return "no collective";
}

/// Each rank: computes (rank * skew_ms), then `kind` twice, computes 1 ms, then `kind` again.
trace::Trace skewed_collectives(int p, const std::string& groups, const std::string& group, const std::string& kind,
                                std::uint64_t bytes, double skew_ms) {
  std::vector<std::string> ops;
  for (int r = 0; r < p; ++r) {
    const std::string call =
        fmt::format(R"({{"kind": "{}", "group": "{}", "bytes": {}, "dtype": "fp32"}})", kind, group, bytes);
    ops.push_back(fmt::format(R"({{"kind": "compute", "name": "c", "duration_ms": {}}}, {}, {}, )"
                              R"({{"kind": "compute", "name": "d", "duration_ms": 1}}, {})",
                              r * skew_ms, call, call, call));
  }
  return test::make_trace(p, groups, ops);
}

/// One collective of `kind` on a flat fat-tree of `nodes` x `per_node` ranks (every rank in
/// the group, rank r starting r x `skew_ms` late), replayed with the shortcuts and in full.
struct SkewedCase {
  int nodes;
  int per_node;
  const char* kind;
  const char* algorithm;
  std::uint64_t bytes;
  double skew_ms;
};

struct FastAndFull {
  std::string fast_refusal, full_refusal;  ///< shortcut_refusal() of each replay's options
  engine::Result fast, full;
};

FastAndFull fast_and_full(const SkewedCase& c, std::shared_ptr<const topology::NetworkModel> model = nullptr) {
  const int p = c.nodes * c.per_node;
  topology::Platform platform = test::platform(c.nodes, c.per_node, 1, test::fat_tree(c.nodes, 1));
  trace::Trace t = skewed_collectives(p, group_of(p), "g", c.kind, c.bytes, c.skew_ms);
  engine::ReplayOptions options;
  options.fast = true;
  options.all_reduce_algorithm = c.algorithm;
  options.placement = "rank-order";
  options.network.calibrated = std::move(model);
  FastAndFull out;
  out.fast_refusal = shortcut_refusal(t, platform, options);
  out.fast = engine::replay(t, platform, options);
  options.fast = false;
  out.full_refusal = shortcut_refusal(t, platform, options);
  out.full = engine::replay(t, platform, options);
  return out;
}

}  // namespace

TEST_CASE(
    "a collective whose messages cannot slow one another down runs as its critical path, with the full "
    "replay's times",
    "[engine][collective][shortcut]") {
  // Flat networks (one switch), one or two ranks per node, every node's ranks in the group:
  // each message's time is its lone time. Ranks reach the collectives at different times
  // (skew) or together; sizes divisible by the group size or not.
  const std::vector<SkewedCase> cases = {
      {8, 1, "all_reduce", "ring", 64ull << 20, 0},           {8, 1, "all_reduce", "ring", 64ull << 20, 0.37},
      {7, 1, "all_reduce", "ring", (48ull << 20) + 12, 0.11}, {8, 1, "all_reduce", "recursive-doubling", 1 << 20, 0.05},
      {8, 1, "all_reduce", "rabenseifner", 16ull << 20, 0.2}, {6, 1, "all_reduce", "binomial-tree", 4ull << 20, 0.3},
      {4, 2, "all_reduce", "ring", 32ull << 20, 0.13},        {8, 1, "all_gather", "auto", 8ull << 20, 0.21},
      {8, 1, "reduce_scatter", "auto", 8ull << 20, 0},        {8, 1, "all_to_all", "auto", 8ull << 20, 0.17},
      {1, 8, "all_reduce", "ring", 64ull << 20, 0.03},
  };
  for (const SkewedCase& c : cases) {
    INFO(c.nodes << " nodes x " << c.per_node << " " << c.kind << " " << c.algorithm << " " << c.bytes << " B, skew "
                 << c.skew_ms << " ms");
    const FastAndFull run = fast_and_full(c);
    const engine::Result& r = run.fast;
    const engine::Result& exact = run.full;
    CHECK(run.fast_refusal == "");
    CHECK(run.full_refusal == "the full replay (--full)");
    CHECK(r.name(r.ops[0][1].algorithm) == exact.name(exact.ops[0][1].algorithm));
    // The bound of issue 11 is 1 % of the iteration. Measured: 0 up to rounding (< 1e-12) in
    // all but the ring of unequal blocks with skew, 4.1e-7 (SimGrid's clock advances with a
    // precision of 1e-9 s, precision/timing, which the full replay meets at every message).
    CHECK(largest_difference(r, exact) <= 1e-6);
  }
  // Compressed (the compressor's times are the rank's own work).
  for (bool homomorphic : {false, true}) {
    topology::Platform platform = test::platform(5, 1, 1, test::fat_tree(5, 1));
    trace::Trace t = skewed_collectives(5, group_of(5), "g", "all_reduce", 256ull << 20, 0.4);
    engine::ReplayOptions options;
    options.fast = true;
    options.compression.model = test::round_compressor(homomorphic, true);
    options.compression.query.error_bound = 1e-3;
    CHECK(shortcut_refusal(t, platform, options).empty());
    engine::Result r = engine::replay(t, platform, options);
    options.fast = false;
    engine::Result exact = engine::replay(t, platform, options);
    CHECK(largest_difference(r, exact) <= 1e-6);  // measured: 8.0e-8 and 4.6e-8
  }
}

namespace {

/// A model without CPU overheads, as NCCL's protocols are (models/network/dgx-*-nccl.json):
/// segments by size, below the test platform's nominal figures as NCCL's are below the DGX
/// links' (a message at its lone rate still takes its route's bottleneck).
std::shared_ptr<topology::NetworkModel> protocol_model() {
  auto model = std::make_shared<topology::NetworkModel>();
  model->name = "protocols";
  model->has_intra = model->has_inter = true;
  model->intra.segments = {{0, 5e-7, 5e9}, {65536, 2e-6, 2e10}, {4 << 20, 3.5e-6, 2.4e10}};
  model->inter.segments = {{0, 3e-6, 6e8}, {8192, 5e-6, 2e9}, {1 << 20, 9e-6, 3e9}};
  return model;
}

}  // namespace

TEST_CASE(
    "under a calibrated model without overheads a collective runs as its critical path, with the full "
    "replay's times",
    "[engine][collective][shortcut][model]") {
  // Messages of every segment of both tiers (a 300 KiB ring of 8 sends 37.5 KiB chunks).
  const std::vector<SkewedCase> cases = {
      {8, 1, "all_reduce", "ring", 64ull << 20, 0},     {8, 1, "all_reduce", "ring", 300 << 10, 0.2},
      {4, 2, "all_reduce", "ring", 32ull << 20, 0.13},  {1, 8, "all_reduce", "ring", 300 << 10, 0},
      {1, 8, "all_reduce", "ring", 64ull << 20, 0.03},  {8, 1, "all_gather", "auto", 8ull << 20, 0.21},
      {6, 1, "all_reduce", "binomial-tree", 4096, 0.3},
  };
  for (const SkewedCase& c : cases) {
    INFO(c.nodes << " nodes x " << c.per_node << " " << c.kind << " " << c.algorithm << " " << c.bytes << " B, skew "
                 << c.skew_ms << " ms");
    const FastAndFull run = fast_and_full(c, protocol_model());
    CHECK(run.fast_refusal == "");
    CHECK(largest_difference(run.fast, run.full) <= 1e-6);
  }
  // A message at its lone rate takes its route's bottleneck (SimGrid scales a flow by its
  // bandwidth factor): the inter-node rings of a hierarchical all_reduce whose two ranks per
  // node share a NIC then share it, although their lone rates (3 GB/s) would fit its 10 GB/s.
  {
    topology::Platform platform = test::platform(4, 2, 1, test::fat_tree(4, 1));
    trace::Trace t = skewed_collectives(8, group_of(8), "g", "all_reduce", 16ull << 20, 0);
    engine::ReplayOptions options;
    options.fast = true;
    options.all_reduce_algorithm = "hierarchical";
    options.placement = "rank-order";
    options.network.calibrated = protocol_model();
    CHECK_THAT(shortcut_refusal(t, platform, options), Catch::StartsWith("its messages can share link "));
  }
  // Overheads keep a rank busy around each message, and messages below a tier's data are
  // counted for the note: both run message by message.
  topology::Platform platform = test::platform(4, 1, 1, test::fat_tree(4, 1));
  trace::Trace t = skewed_collectives(4, group_of(4), "g", "all_reduce", 1 << 20, 0);
  engine::ReplayOptions options;
  options.fast = true;
  std::shared_ptr<topology::NetworkModel> model = protocol_model();
  model->inter.send_overhead_s = 1e-6;
  options.network.calibrated = model;
  CHECK(shortcut_refusal(t, platform, options) == "the calibrated network model charges per-message CPU overheads");
  model = protocol_model();
  model->inter.floor_bytes = 1 << 20;
  options.network.calibrated = model;
  CHECK(shortcut_refusal(t, platform, options) ==
        "the calibrated network model extrapolates below its data for its messages of 524288 B");
  engine::Result r = engine::replay(t, platform, options);
  CHECK_THAT(fmt::format("{}", fmt::join(r.notes, "\n")), Catch::Contains("extrapolated"));
}

TEST_CASE("the critical-path shortcut does not apply where messages share links, and would be wrong there",
          "[engine][collective][shortcut]") {
  const std::uint64_t n = 64ull << 20;
  SECTION("a ring whose every hop crosses an oversubscribed level") {
    // Two leaves of 4 nodes under a root 4:1 oversubscribed; ranks alternate leaves, so the
    // 4 messages of a step leaving a leaf share its uplink (one cable's worth).
    topology::Platform platform = test::platform(8, 1, 1, test::fat_tree(4, 2, "4"));
    trace::Trace t = one_collective(8, "all_reduce", n);
    engine::ReplayOptions options;
    options.fast = true;
    options.all_reduce_algorithm = "ring";
    options.placement = "map:0,4,1,5,2,6,3,7";
    const std::string refusal = shortcut_refusal(t, platform, options);
    CHECK_THAT(refusal, Catch::StartsWith("its messages can share link "));
    engine::Result r = engine::replay(t, platform, options);
    options.fast = false;
    engine::Result exact = engine::replay(t, platform, options);
    CHECK(largest_difference(r, exact) == 0);
    // A naive shortcut (every message at its lone time) would be about 4 times too fast.
    const std::vector<int> placement = {0, 4, 1, 5, 2, 6, 3, 7};
    collective::RingAllReduce ring(8, n / 4, 4);
    const double naive = collective::critical_path_by_message_s(
        ring, collective::cost_params(0, 0, 1.0 / 1e11), [&](int from, int to, std::uint64_t bytes) {
          topology::Network::PathCost path = platform.network.path_cost(placement[static_cast<std::size_t>(from)],
                                                                        placement[static_cast<std::size_t>(to)]);
          return path.latency_s + static_cast<double>(bytes) / path.bandwidth_Bps;
        });
    CHECK(exact.makespan_s / naive > 3.5);
    // In rank order only the two messages that change leaves cross the root, one per
    // direction of each uplink: nothing binds, and the shortcut applies with the same times.
    options.placement = "rank-order";
    options.fast = true;
    CHECK(shortcut_refusal(t, platform, options).empty());
    engine::Result ordered = engine::replay(t, platform, options);
    options.fast = false;
    CHECK(largest_difference(ordered, engine::replay(t, platform, options)) <= 1e-6);
  }
  SECTION("groups that share their nodes' NICs") {
    // 4 nodes of 2: "even" and "odd" each have one rank per node and reduce at the same time
    // over the same NICs.
    topology::Platform platform = test::platform(4, 2, 1, test::fat_tree(4, 1));
    const std::string groups = R"({"name": "even", "kind": "data", "ranks": [0, 2, 4, 6]},
                                  {"name": "odd", "kind": "data", "ranks": [1, 3, 5, 7]})";
    std::vector<std::string> ops;
    for (int r = 0; r < 8; ++r) {
      ops.push_back(fmt::format(R"({{"kind": "all_reduce", "group": "{}", "bytes": {}, "dtype": "fp32"}})",
                                r % 2 == 0 ? "even" : "odd", n));
    }
    trace::Trace t = test::make_trace(8, groups, ops);
    engine::ReplayOptions options;
    options.fast = true;
    options.all_reduce_algorithm = "ring";
    options.placement = "rank-order";
    CHECK(shortcut_refusal(t, platform, options) == "node 0 has ranks outside the group that share its NIC");
    engine::Result r = engine::replay(t, platform, options);
    options.fast = false;
    engine::Result exact = engine::replay(t, platform, options);
    CHECK(largest_difference(r, exact) == 0);
    // Each group alone would take about half as long: the NICs are shared.
    trace::Trace alone = test::make_trace(8, groups, {ops[0], "", ops[2], "", ops[4], "", ops[6], ""});
    CHECK(exact.makespan_s / engine::replay(alone, platform, options).makespan_s > 1.8);
  }
  SECTION("groups on separate NICs of shared nodes, and across a fabric nobody can fill") {
    // 2 nodes of 2 accelerators with 2 NICs (local accelerator k uses NIC k): "even" and "odd"
    // reduce at the same time, each on NICs of its own. Then 4 ranks on nodes 0, 1, 4, 5 of two
    // leaves of 4 under a non-blocking root, groups {0, 2} and {1, 3}: their messages cross the
    // root, where every sender of the job at once fits (each rank has one message in flight:
    // 2 x 10 GB/s on a 40 GB/s uplink).
    struct Case {
      topology::Platform platform;
      std::string groups;
      std::vector<std::string> names;
      std::string placement;
    };
    std::vector<Case> cases;
    cases.push_back(
        {test::platform(2, 2, 2, test::fat_tree(4, 1)),
         R"({"name": "even", "kind": "data", "ranks": [0, 2]}, {"name": "odd", "kind": "data", "ranks": [1, 3]})",
         {"even", "odd", "even", "odd"},
         "rank-order"});
    cases.push_back(
        {test::platform(8, 1, 1, test::fat_tree(4, 2)),
         R"({"name": "a", "kind": "data", "ranks": [0, 2]}, {"name": "b", "kind": "data", "ranks": [1, 3]})",
         {"a", "b", "a", "b"},
         "map:0,1,4,5"});
    for (Case& c : cases) {
      std::vector<std::string> ops;
      for (int r = 0; r < 4; ++r) {
        ops.push_back(fmt::format(R"({{"kind": "compute", "name": "c", "duration_ms": {}}},
                                     {{"kind": "all_reduce", "group": "{}", "bytes": {}, "dtype": "fp32"}})",
                                  0.1 * r, c.names[static_cast<std::size_t>(r)], n));
      }
      trace::Trace t = test::make_trace(4, c.groups, ops);
      engine::ReplayOptions options;
      options.fast = true;
      options.all_reduce_algorithm = "ring";
      options.placement = c.placement;
      // The refusal without the job-wide bound (no planner): others may use the links.
      {
        const std::vector<int> placement = engine::place_ranks(t, c.platform.network, options.placement, false);
        engine::CollectivePlanner planner(t, c.platform.network, placement, options);
        engine::CollectiveShortcuts alone(t, c.platform.network, placement, options);
        engine::CollectiveShortcuts bounded(t, c.platform.network, placement, options, &planner);
        const engine::CollectivePlan& plan = planner.plan(t.programs[0].ops[1], 0, 1);
        CHECK(bounded.refusal(plan, 0).empty());
        if (c.names[0] == "a")
          CHECK(alone.refusal(plan, 0) == "its messages cross fabric links that other ranks' messages may use");
        else
          CHECK(alone.refusal(plan, 0).empty());  // the NICs serve only the group's ranks
      }
      engine::Result r = engine::replay(t, c.platform, options);
      options.fast = false;
      CHECK(largest_difference(r, engine::replay(t, c.platform, options)) <= 1e-6);
    }
    // 4 nodes under two leaves of 2 (uplinks of 20 GB/s): the job's two senders across an uplink
    // fill it exactly, and max-min sharing gives each its lone rate: the shortcut applies, with
    // the full replay's times; under a root oversubscribed 4:1 they overfill it.
    {
      std::vector<std::string> ops;
      for (int r = 0; r < 4; ++r) {
        ops.push_back(fmt::format(R"({{"kind": "all_reduce", "group": "{}", "bytes": {}, "dtype": "fp32"}})",
                                  r % 2 == 0 ? "a" : "b", n));
      }
      engine::ReplayOptions options;
      options.fast = true;
      options.all_reduce_algorithm = "ring";
      options.placement = "rank-order";
      const trace::Trace t = test::make_trace(4, cases[1].groups, ops);
      const topology::Platform full = test::platform(4, 1, 1, test::fat_tree(2, 2));
      CHECK(shortcut_refusal(t, full, options).empty());
      const engine::Result r = engine::replay(t, full, options);
      options.fast = false;
      CHECK(largest_difference(r, engine::replay(t, full, options)) <= 1e-6);
    }
    topology::Platform thin = test::platform(4, 1, 1, test::fat_tree(2, 2, "4"));
    std::vector<std::string> ops;
    for (int r = 0; r < 4; ++r) {
      ops.push_back(fmt::format(R"({{"kind": "all_reduce", "group": "{}", "bytes": {}, "dtype": "fp32"}})",
                                r % 2 == 0 ? "a" : "b", n));
    }
    trace::Trace t = test::make_trace(4, cases[1].groups, ops);
    engine::ReplayOptions options;
    options.fast = true;
    options.all_reduce_algorithm = "ring";
    options.placement = "rank-order";
    options.guarded_links = false;
    CHECK(shortcut_refusal(t, thin, options) == "its messages cross fabric links that other ranks' messages may use");
    // Guarded (the default), each group's ring runs as its critical path on the speculation
    // that it has the root's links to itself; the two rings overfill them at once, which the
    // check after the replay finds: the job runs again message by message.
    options.guarded_links = true;
    CHECK(shortcut_refusal(t, thin, options).empty());
    const engine::Result guarded = engine::replay(t, thin, options);
    CHECK_THAT(guarded.notes.back(),
               Catch::StartsWith("shortcuts: collectives whose messages cross fabric links that other messages may "
                                 "use ran message by message (the replay ran twice)") &&
                   Catch::Contains("collectives that ran as their critical path across link") &&
                   Catch::Contains("at once needed 1e+10 B/s of its 5e+09 B/s"));
    options.fast = false;
    CHECK(largest_difference(guarded, engine::replay(t, thin, options)) <= 1e-6);
  }
  SECTION("a collective that ends at an infinite time is reported as the full replay reports it") {
    trace::Trace t = one_collective(2, "all_reduce", 4096);
    topology::Platform slow = test::platform(1, 2, 1, test::fat_tree(1, 1));
    topology::AcceleratorSpec acc = slow.network.accelerator();
    acc.reduce_Bps = 1e-300;
    topology::NetworkBuilder slower(std::move(slow.network));
    slower.set_accelerator(acc);
    slow.network = std::move(slower).build();
    engine::ReplayOptions options;
    options.fast = true;
    CHECK(shortcut_refusal(t, slow, options) == "");
    CHECK_THROWS_WITH(
        engine::replay(t, slow, options),
        Catch::Contains("rank 0, operator #0 'all_reduce': its simulated time is not finite (ends at 2.048e+303 s"));
  }
  SECTION("a collective that a member never reaches is reported, not hung") {
    // Rank 2 waits for a message that rank 0 sends only after the all_reduce that needs rank 2:
    // ranks 0 and 1 wait for it at the collective's meeting point (the full replay's report has
    // t=0.000002 s, the time its first ring step ends).
    trace::Trace t = test::make_trace(3, R"({"name": "dp", "kind": "data", "ranks": [0, 1, 2]})",
                                      {R"({"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"},
                                          {"kind": "send", "peer": 2, "bytes": 8, "tag": "late"})",
                                       R"({"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"})",
                                       R"({"kind": "recv", "peer": 0, "bytes": 8, "tag": "late"},
                                          {"kind": "all_reduce", "group": "dp", "bytes": 4096, "dtype": "fp32"})"});
    topology::Platform platform = test::platform(3, 1, 1, test::fat_tree(3, 1));
    engine::ReplayOptions options;
    options.fast = true;
    options.all_reduce_algorithm = "ring";
    CHECK(shortcut_refusal(t, platform, options) == "");
    CHECK_THROWS_WITH(
        engine::replay(t, platform, options),
        "simulation cannot progress at t=0.000000 s: 3 of 3 ranks are blocked\n"
        "  rank 0: operator #0 'all_reduce' (line 4) on group \"dp\" (its collective #1 on this group) waits for members "
        "that never reached it: rank 2 is blocked in operator #0 'recv'\n"
        "  rank 1: operator #0 'all_reduce' (line 6) on group \"dp\" (its collective #1 on this group) waits for members "
        "that never reached it: rank 2 is blocked in operator #0 'recv'\n"
        "  rank 2: operator #0 'recv' (line 7) waits for a send from rank 0 (tag \"late\", 8 bytes); rank 0 is blocked in "
        "operator #0 'all_reduce'");
  }
  SECTION("a broadcast: a rank may end before another one starts") {
    topology::Platform platform = test::platform(4, 1, 1, test::fat_tree(4, 1));
    engine::ReplayOptions options;
    options.fast = true;
    CHECK(shortcut_refusal(one_collective(4, "broadcast", n), platform, options) ==
          "a rank may end before another one starts");
  }
  SECTION("a NIC that members share while one of them still sends before the collective") {
    // Two nodes of 4 accelerators and one NIC each, every rank in the ring: rank 1 first sends
    // 100 MB to rank 5, so ranks 3 and 4, already in the ring, send its first step across the
    // same NICs meanwhile. The NICs carry only the group's ranks, but not only its collective.
    const std::string ar = R"({"kind": "all_reduce", "group": "world", "bytes": 40000000, "dtype": "fp32"})";
    const std::string world = R"({"name": "world", "kind": "data", "ranks": [0, 1, 2, 3, 4, 5, 6, 7]})";
    std::vector<std::string> ops(8, ar);
    ops[1] = R"({"kind": "send", "peer": 5, "bytes": 100000000}, )" + ar;
    ops[5] = R"({"kind": "recv", "peer": 1, "bytes": 100000000}, )" + ar;
    const trace::Trace t = test::make_trace(8, world, ops);
    const topology::Platform platform = test::two_nodes_of_four();
    engine::ReplayOptions options;
    options.fast = true;
    options.all_reduce_algorithm = "ring";
    CHECK(shortcut_refusal(t, platform, options) ==
          "members share node 0's NIC, which their other messages may use while the collective runs");
    const engine::Result r = engine::replay(t, platform, options);
    options.fast = false;
    const engine::Result exact = engine::replay(t, platform, options);
    CAPTURE(r.makespan_s, exact.makespan_s);
    CHECK(largest_difference(r, exact) <= 1e-6);
    // Without the send the NICs carry the collective alone: the shortcut applies.
    options.fast = true;
    CHECK(shortcut_refusal(test::make_trace(8, world, std::vector<std::string>(8, ar)), platform, options).empty());
  }
}

namespace {

/// Version 2: two pipeline stages of a 4-rank tensor-parallel group each (ranks 0-3 and 4-7,
/// one program per stage), forward and backward transfers between them and a data-parallel
/// all_reduce at the end; with `intruder`, ranks 8 and 9 (one program each) move 64 MB across
/// the nodes at the same time.
trace::Trace lockstep_stages(bool intruder) {
  std::string groups = R"({"name": "tp0", "kind": "tensor", "ranks": [0, 1, 2, 3]},
                          {"name": "tp1", "kind": "tensor", "ranks": [4, 5, 6, 7]})";
  for (int k = 0; k < 4; ++k) {
    groups += fmt::format(R"(, {{"name": "pp{0}", "kind": "pipeline", "ranks": [{0}, {1}]}},
                          {{"name": "dp{0}", "kind": "data", "ranks": [{0}, {1}]}})",
                          k, k + 4);
  }
  if (intruder) groups += R"(, {"name": "pp4", "kind": "pipeline", "ranks": [8, 9]})";
  const std::string tp = R"({"kind": "all_reduce", "group": "@tensor", "bytes": 8388608, "dtype": "fp32"})";
  const std::string dp = R"({"kind": "all_reduce", "group": "@data", "bytes": 33554432, "dtype": "fp32"})";
  std::string programs = fmt::format(
      R"({{"ranks": [[0, 3]], "ops": [{{"kind": "compute", "name": "c", "duration_ms": 1}}, {0},
           {{"kind": "compute", "name": "c", "duration_ms": 0.5}}, {{"kind": "send", "peer": "@pipeline+1", "bytes": 16777216}},
           {{"kind": "compute", "name": "c", "duration_ms": 2}}, {{"kind": "recv", "peer": "@pipeline+1", "bytes": 16777216}},
           {0}, {1}]}},
         {{"ranks": [[4, 7]], "ops": [{{"kind": "recv", "peer": "@pipeline-1", "bytes": 16777216}},
           {{"kind": "compute", "name": "c", "duration_ms": 1}}, {0},
           {{"kind": "send", "peer": "@pipeline-1", "bytes": 16777216}}, {{"kind": "compute", "name": "c", "duration_ms": 0.5}},
           {1}]}})",
      tp, dp);
  if (intruder) {
    programs += R"(, {"ranks": [8], "ops": [{"kind": "send", "peer": "@pipeline+1", "bytes": 67108864}]},
                     {"ranks": [9], "ops": [{"kind": "recv", "peer": "@pipeline-1", "bytes": 67108864}]})";
  }
  return trace::parse_native(fmt::format(R"({{"format": "ccsim-trace", "version": 2, "name": "lockstep",
    "world_size": {}, "groups": [{}], "programs": [{}]}})",
                                         intruder ? 10 : 8, groups, programs),
                             "lockstep.json");
}

/// The --fast replay of `t` on `platform` and its full replay, ranks placed by `placement`.
std::pair<engine::Result, engine::Result> fast_and_full(const trace::Trace& t, const topology::Platform& platform,
                                                        const std::string& placement) {
  engine::ReplayOptions options;
  options.fast = true;
  options.placement = placement;
  engine::Result fast = engine::replay(t, platform, options);
  options.fast = false;
  return {std::move(fast), engine::replay(t, platform, options)};
}

/// The --fast note on groups of identical ranks run as one ("" without).
std::string fusion_note(const engine::Result& r) {
  for (const std::string& note : r.notes) {
    if (note.find("ran as one simulated rank") != std::string::npos) return note;
  }
  return "";
}

}  // namespace

TEST_CASE(
    "a fast replay runs a group of identical ranks as one while they stay in lockstep, with the full replay's times",
    "[engine][collective][shortcut][fusion]") {
  SECTION("two pipeline stages of identical tensor-parallel ranks, one node each") {
    const trace::Trace t = lockstep_stages(false);
    const auto [r, exact] = fast_and_full(t, test::platform(2, 4, 4, test::fat_tree(8, 1)), "rank-order");
    CHECK_THAT(fusion_note(r), Catch::Contains("(2 groups of 4 ranks, e.g. \"tp0\")") &&
                                   Catch::Contains("; 0 of 2 groups went on rank by rank"));
    CHECK(fusion_note(exact).empty());
    CHECK(largest_difference(r, exact) <= 1e-6);
    // Every member reads the leader's records: one list, not copies.
    for (std::size_t rank = 1; rank < 4; ++rank) CHECK(r.ops.shared(rank, 0));
    for (std::size_t rank = 5; rank < 8; ++rank) CHECK(r.ops.shared(rank, 4));
    CHECK_FALSE(r.ops.shared(4, 0));
  }
  SECTION("forks back to back: a send and then a receive, with nothing between them") {
    const std::string tp = R"({"kind": "all_reduce", "group": "@tensor", "bytes": 8388608, "dtype": "fp32"})";
    const trace::Trace t = trace::parse_native(
        fmt::format(R"({{"format": "ccsim-trace", "version": 2, "name": "back-to-back", "world_size": 8,
          "groups": [{{"name": "tp0", "kind": "tensor", "ranks": [0, 1, 2, 3]}},
                     {{"name": "tp1", "kind": "tensor", "ranks": [4, 5, 6, 7]}},
                     {{"name": "pp0", "kind": "pipeline", "ranks": [0, 4]}}, {{"name": "pp1", "kind": "pipeline", "ranks": [1, 5]}},
                     {{"name": "pp2", "kind": "pipeline", "ranks": [2, 6]}}, {{"name": "pp3", "kind": "pipeline", "ranks": [3, 7]}}],
          "programs": [
            {{"ranks": [[0, 3]], "ops": [{{"kind": "compute", "name": "c", "duration_ms": 1}}, {0},
              {{"kind": "send", "peer": "@pipeline+1", "bytes": 16777216}}, {{"kind": "recv", "peer": "@pipeline+1", "bytes": 4194304}},
              {{"kind": "send", "peer": "@pipeline+1", "bytes": 1048576}}, {0}]}},
            {{"ranks": [[4, 7]], "ops": [{{"kind": "compute", "name": "c", "duration_ms": 2}},
              {{"kind": "recv", "peer": "@pipeline-1", "bytes": 16777216}}, {{"kind": "send", "peer": "@pipeline-1", "bytes": 4194304}},
              {{"kind": "recv", "peer": "@pipeline-1", "bytes": 1048576}}, {0}]}}]}})",
                    tp),
        "back-to-back.json");
    const auto [r, exact] = fast_and_full(t, test::platform(2, 4, 4, test::fat_tree(8, 1)), "rank-order");
    CHECK_THAT(fusion_note(r),
               Catch::Contains("(2 groups of 4 ranks") && Catch::Contains("; 0 of 2 groups went on rank by rank"));
    for (std::size_t rank = 1; rank < 4; ++rank) CHECK(r.ops.shared(rank, 0));
    CHECK(largest_difference(r, exact) <= 1e-6);
    CHECK(r.ops[0][2].wait_s > 0);  // stage 0 posts its first send before stage 1 receives
  }
  SECTION("members whose transfers end apart go on rank by rank") {
    // Nodes of 5 accelerators and 2 NICs (local accelerator k uses NIC k % 2); ranks 8 and 9 sit
    // on the fifth accelerators and move 64 MB through NIC 0 while the stages exchange: the
    // members on NIC 0 (local 0 and 2) finish their transfers later than those on NIC 1.
    const trace::Trace t = lockstep_stages(true);
    const auto [r, exact] = fast_and_full(t, test::platform(2, 5, 2, test::fat_tree(4, 1)), "map:0,1,2,3,5,6,7,8,4,9");
    CHECK_THAT(fusion_note(r), Catch::Contains("; 2 of 2 groups went on rank by rank"));
    CHECK(r.ops[1][3].end_s < r.ops[0][3].end_s);  // the send of rank 1 (NIC 1) ends first
    // Members that parted hold records of their own, from the operator they parted at on.
    for (std::size_t rank = 1; rank < 4; ++rank) CHECK_FALSE(r.ops.shared(rank, rank - 1));
    CHECK(largest_difference(r, exact) <= 1e-6);
  }
}

TEST_CASE("ranks that share their records read what the list's writer writes, and own() gives a rank a copy",
          "[engine]") {
  engine::OpRecord a;
  a.end_s = 1.0;
  engine::RankRecords records{{a}, {}};
  records.share(1, 0);
  CHECK(records.shared(1, 0));
  records.writable(0)[0].end_s = 2.0;  // the leader writes; the follower reads it
  CHECK(records[1][0].end_s == 2.0);
  records.own(1)[0].end_s = 3.0;  // a copy of its own: the leader's list is unchanged
  CHECK_FALSE(records.shared(1, 0));
  CHECK(records[0][0].end_s == 2.0);
  CHECK(records[1][0].end_s == 3.0);
  records.resize(3);
  CHECK(records[2].empty());
  CHECK_FALSE(records.shared(2, 1));
  // A folded replica's rank reads an earlier rank's list, not its neighbour's.
  records.resize(4);
  records.share(3, 0);
  CHECK(records.first_readers() == std::vector<std::size_t>{0, 1, 2, 0});
}

TEST_CASE(
    "a simulation result survives its trip from the child process, ranks with the previous rank's records "
    "included",
    "[engine]") {
  engine::Result r;
  r.world_size = 4;
  r.nodes_used = 3;
  r.names = {"", "c"};
  engine::OpRecord a;
  a.name = 1;
  a.end_s = 1.5;
  engine::OpRecord b = a;
  b.end_s = 2.5;
  r.ops = {{a, b}, {a, b}, {a, a}, {}};
  r.makespan_s = 2.5;
  const std::string bytes = engine::serialize(r);
  const engine::Result back = engine::deserialize(bytes);
  REQUIRE(back.ops.size() == 4);
  for (std::size_t k = 0; k < 4; ++k) {
    REQUIRE(back.ops[k].size() == r.ops[k].size());
    for (std::size_t i = 0; i < r.ops[k].size(); ++i) CHECK(back.ops[k][i].end_s == r.ops[k][i].end_s);
  }
  CHECK(back.makespan_s == 2.5);
  CHECK(back.nodes_used == 3);
  // Ranks with the previous rank's records read one list after the trip, as ranks that shared
  // one before it.
  CHECK(back.ops.shared(1, 0));
  CHECK_FALSE(back.ops.shared(2, 1));
  CHECK_FALSE(back.ops.shared(3, 2));
  r.ops.share(3, 2);
  const engine::Result shared = engine::deserialize(engine::serialize(r));
  REQUIRE(shared.ops[3].size() == 2);
  CHECK(shared.ops.shared(3, 2));
  CHECK(shared.ops[3][1].end_s == 1.5);
  CHECK_THROWS_WITH(engine::deserialize(std::string_view(bytes).substr(0, bytes.size() - 3)),
                    "truncated simulation result");
}
