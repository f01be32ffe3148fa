#include <catch2/catch.hpp>

#include <memory>

#include "collective/registry.hpp"
#include "compress/model_reader.hpp"
#include "engine/replay.hpp"
#include "engine_fixtures.hpp"
#include "../topology/topology_fixtures.hpp"

using namespace ccsim;

namespace {

std::string group_of(int p) {
  std::string ranks;
  for (int r = 0; r < p; ++r) ranks += fmt::format("{}{}", r ? ", " : "", r);
  return fmt::format(R"({{"name": "g", "kind": "data", "ranks": [{}]}})", ranks);
}

/// One collective of `bytes` (fp32) on all `p` ranks.
trace::Trace one_collective(int p, const std::string& kind, std::uint64_t bytes) {
  std::string extra = kind == "broadcast" ? R"(, "root": 1)" : "";
  std::vector<std::string> ops(static_cast<std::size_t>(p),
                               fmt::format(R"({{"kind": "{}", "group": "g", "bytes": {}, "dtype": "fp32"{}}})", kind,
                                           bytes, extra));
  return test::make_trace(p, group_of(p), ops);
}

/// A compressor model with round numbers: ratio 8, 40 GB/s compress, 80 GB/s decompress,
/// 160 GB/s homomorphic add, 5 us per call.
std::shared_ptr<const compress::CompressorModel> test_compressor(bool homomorphic, bool summable) {
  return std::make_shared<const compress::CompressorModel>(compress::parse_compressor_model(fmt::format(R"({{
  "format": "ccsim-compressor", "version": 1, "name": "test", "description": "test", "kind": "error-bounded",
  "homomorphic": {}, "summable": {}, "hardware": "test", "source": "test",
  "where": {{"default": "accelerator", "staging_Bps": 1e10, "source": "test"}},
  "error_mode": "ABS", "dtype": "fp32",
  "settings": [{{"error_bound": 1e-3, "ratio": 8, "compress_Bps": 4e10, "decompress_Bps": 8e10, {}"t0_s": 5e-6,
                "source": "test"}}]}})",
                                                                                                        homomorphic, summable,
                                                                                                        homomorphic ? R"("add_Bps": 1.6e11, )" : ""),
                                                                                            "test.json"));
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
      {"all_reduce", "ring"},          {"all_reduce", "recursive-doubling"}, {"all_reduce", "rabenseifner"},
      {"all_reduce", "binomial-tree"}, {"all_gather", "auto"},               {"reduce_scatter", "auto"},
      {"broadcast", "auto"},           {"all_to_all", "auto"},
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

TEST_CASE("compressed all_reduce: closed form and replay agree, bytes on the wire shrink", "[engine][collective][compress]") {
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
      options.compression.model = test_compressor(c.homomorphic, c.summable);
      options.compression.query.error_bound = 1e-3;
      engine::Result r = engine::replay(one_collective(p, "all_reduce", n), platform, options);
      CHECK(r.name(r.ops[0][0].algorithm) == c.algorithm);  // the automatic choice for this compressor
      topology::Network::PathCost hop = platform.network.path_cost(0, 1);
      collective::CostParams params = collective::cost_params(hop.latency_s, 1.0 / hop.bandwidth_Bps, 1.0 / 1e11,
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
  squeezed.compression.model = test_compressor(false, true);
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
  options.compression.model = test_compressor(false, true);
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
  options.compression.model = test_compressor(false, true);
  options.compression.query.error_bound = 1e-3;
  options.compression.min_bytes = 1 << 20;
  engine::Result r = engine::replay(test::make_trace(2, group_of(2), ops), platform, options);
  CHECK(r.name(r.ops[0][0].algorithm) == "recursive-doubling");
  CHECK(r.ops[0][0].error_worst_eb == 0);
  CHECK(r.name(r.ops[0][1].algorithm) == "compressed-ring");
}

TEST_CASE("integer all_reduces stay exact under compression", "[engine][collective][compress]") {
  topology::Platform platform = test::platform(2, 1, 1, test::fat_tree(2, 1));
  std::vector<std::string> ops(2, R"({"kind": "all_reduce", "group": "g", "bytes": 4194304, "dtype": "int32"})");
  engine::ReplayOptions options;
  options.compression.model = test_compressor(false, true);
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
  CHECK(hierarchical.notes ==
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
  CHECK_THROWS_WITH(engine::replay(test::make_trace(3, group_of(3), plain_ops), pairs, hierarchical),
                    "t.json:4: field 'ranks[0].ops[0]': all_reduce on group \"g\": --algo: hierarchical all_reduce needs "
                    "the same number of the group's ranks on every node, but node 0 holds 2 and node 1 holds 1");
  // A compressor query the model cannot answer.
  topology::Platform platform = test::platform(2, 1, 1, test::fat_tree(2, 1));
  engine::ReplayOptions bits;
  bits.compression.model = test_compressor(false, true);
  bits.compression.query.bits = 8;
  std::vector<std::string> ops(2, R"({"kind": "all_reduce", "group": "g", "bytes": 4096, "dtype": "fp32"})");
  CHECK_THROWS_WITH(engine::replay(test::make_trace(2, group_of(2), ops), platform, bits),
                    Catch::Matchers::StartsWith("t.json:4: field 'ranks[0].ops[0]': all_reduce on group \"g\": --compress: "));
}
