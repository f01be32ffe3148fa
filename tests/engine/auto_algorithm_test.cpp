// --algo auto chooses each all_reduce's algorithm by its predicted cost on the platform
// (collective/algorithm_choice.hpp, engine/collective_plan.cpp), not by a size rule.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "collective/algorithm_choice.hpp"
#include "collective/registry.hpp"
#include "engine/collective_plan.hpp"
#include "engine/replay.hpp"
#include "engine_fixtures.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

using namespace ccsim;

namespace {

/// A trace of `p` ranks that all_reduce `bytes` of fp32 once on one group "g" of all of them.
trace::Trace one_all_reduce(int p, std::uint64_t bytes) {
  std::string ranks;
  for (int r = 0; r < p; ++r) ranks += fmt::format("{}{}", r ? ", " : "", r);
  const std::string op = fmt::format(R"({{"kind": "all_reduce", "group": "g", "bytes": {}, "dtype": "fp32"}})", bytes);
  return test::make_trace(p, fmt::format(R"({{"name": "g", "kind": "data", "ranks": [{}]}})", ranks),
                          std::vector<std::string>(static_cast<std::size_t>(p), op));
}

struct Point {
  std::string auto_choice;
  double auto_s = 0;
  std::string best;
  double best_s = 0;
  double size_rule_s = 0;  ///< what the former size rule's algorithm costs
  std::vector<std::string> notes;
};

/// The planner's choice for one all_reduce of `bytes` on `p` ranks placed node-major on `platform`.
Point evaluate(const topology::Platform& platform, int p, std::uint64_t bytes) {
  trace::Trace t = one_all_reduce(p, bytes);
  std::vector<int> placement;
  for (int r = 0; r < p; ++r) placement.push_back(r);
  engine::ReplayOptions options;  // --algo auto
  engine::CollectivePlanner planner(t, platform.network, placement, options);
  const engine::CollectivePlan& plan = planner.plan(t.programs[0].ops[0], 0, 0);

  // Every listed algorithm that applies, by the closed form.
  const collective::GroupLinks links = engine::group_links(platform.network, placement);
  collective::Request request = plan.request;
  std::vector<collective::Prediction> all = collective::predict_all_reduce(request, links);
  Point point;
  point.auto_choice = plan.algorithm;
  point.notes = planner.notes();
  point.best_s = 1e300;
  for (const collective::Prediction& pr : all) {
    if (pr.time_s < point.best_s) {
      point.best_s = pr.time_s;
      point.best = pr.algorithm;
    }
    if (pr.algorithm == plan.algorithm) point.auto_s = pr.time_s;
  }
  request.algorithm = "auto";  // the registry's size rule, without the platform
  const std::string rule = collective::choose_algorithm(request);
  point.size_rule_s = point.best_s;
  for (const collective::Prediction& pr : all) {
    if (pr.algorithm == rule) point.size_rule_s = pr.time_s;
  }
  return point;
}

}  // namespace

TEST_CASE("auto is within 1 % of the best listed algorithm on a grid of sizes, groups and presets", "[auto]") {
  const std::vector<std::string> presets = {"tianhe-2a", "hygon-dcu", "dgx-h100-superpod", "sunway-taihulight"};
  const std::vector<int> groups = {2, 3, 4, 6, 8, 12, 16, 24, 64, 96, 128, 250, 512, 1000, 1024};
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t n = 1024; n <= (std::uint64_t{1} << 30); n *= 4) sizes.push_back(n);
  sizes.push_back(3 * 1000 * 1000);  // not a power of two
  int points = 0;
  int size_rule_misses = 0;
  for (const std::string& preset : presets) {
    topology::Platform platform =
        topology::read_platform(fmt::format("{}/platforms/{}.json", CCSIM_SOURCE_DIR, preset));
    for (int p : groups) {
      for (std::uint64_t bytes : sizes) {
        INFO(fmt::format("{}: {} ranks, {} bytes", preset, p, bytes));
        Point point = evaluate(platform, p, bytes);
        REQUIRE(point.auto_s > 0);
        CHECK(point.auto_s <= point.best_s * 1.01);
        if (point.size_rule_s > point.best_s * 1.01) ++size_rule_misses;
        ++points;
      }
    }
  }
  CHECK(points == 4 * 15 * 12);
  // The test can fail: the former size rule is more than 1 % slower than the best at many points.
  CHECK(size_rule_misses > 50);
}

TEST_CASE("256 MiB over 512 ranks on Tianhe-2A: ring, not hierarchical, and the report says why", "[auto]") {
  topology::Platform platform = topology::read_platform(CCSIM_SOURCE_DIR "/platforms/tianhe-2a.json");
  Point point = evaluate(platform, 512, std::uint64_t{256} << 20);
  CHECK(point.auto_choice == "ring");
  CHECK(point.best == "ring");
  REQUIRE(point.notes.size() == 1);
  CHECK_THAT(point.notes[0], Catch::StartsWith("auto: all_reduce of 256 MiB on \"g\" (512 ranks on 256 nodes): ring "));
  CHECK_THAT(point.notes[0], Catch::Contains("(chosen), hierarchical "));
  CHECK_THAT(point.notes[0], Catch::Contains("(NIC shared by 2)"));
  CHECK_THAT(point.notes[0], Catch::EndsWith("; predicted by closed form"));

  // By hand: the ring's closed form with the route between nodes (intra 15.75 GB/s, 1 us; NIC
  // 14 GB/s, 1 us; one switch level of 1 us between frames) and reduce_Bps 3.2e10:
  // 2(p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma.
  const double p = 512;
  const double n = 256.0 * 1024 * 1024;
  const collective::GroupLinks links = engine::group_links(platform.network, [] {
    std::vector<int> a;
    for (int r = 0; r < 512; ++r) a.push_back(r);
    return a;
  }());
  CHECK(links.inter_beta_s_per_byte == Approx(1 / 1.4e10));
  CHECK(links.nic_Bps == 1.4e10);
  const double ring = 2 * (p - 1) * links.inter_alpha_s + 2 * (p - 1) / p * n / 1.4e10 + (p - 1) / p * n / 3.2e10;
  CHECK(point.auto_s == Approx(ring).epsilon(1e-9));
  // The size rule's hierarchical: its inter-node rings run two per NIC.
  CHECK(point.size_rule_s > point.auto_s);
}

TEST_CASE("a group inside one node uses the intra-node figures and no NIC sharing", "[auto]") {
  topology::Platform platform = topology::read_platform(CCSIM_SOURCE_DIR "/platforms/dgx-h100-superpod.json");
  Point point = evaluate(platform, 8, std::uint64_t{64} << 20);
  REQUIRE(point.notes.size() == 1);
  CHECK_THAT(point.notes[0], Catch::Contains("(8 ranks on 1 node)"));
  CHECK_THAT(point.notes[0], !Catch::Contains("NIC shared"));
  CHECK(point.auto_s == Approx(point.best_s));
}

TEST_CASE("the simulation agrees: auto's choice is the faster one when replayed", "[auto][engine]") {
  // 32 ranks, two per node, on Tianhe-2A: hierarchical's two inter-node rings share each NIC.
  topology::Platform platform = topology::read_platform(CCSIM_SOURCE_DIR "/platforms/tianhe-2a.json");
  const int p = 32;
  trace::Trace t = one_all_reduce(p, std::uint64_t{16} << 20);
  auto run = [&](const std::string& algorithm) {
    engine::ReplayOptions options;
    options.all_reduce_algorithm = algorithm;
    options.placement = "rank-order";
    return engine::replay(t, platform, options);
  };
  const engine::Result ring = run("ring");
  const engine::Result hierarchical = run("hierarchical");
  const engine::Result chosen = run("auto");
  Point point = evaluate(platform, p, std::uint64_t{16} << 20);
  INFO(point.notes.front());
  CHECK(chosen.makespan_s <= std::min(ring.makespan_s, hierarchical.makespan_s) * 1.01);
  CHECK(chosen.algorithm == fmt::format("all_reduce: {} (1 distinct)", point.auto_choice));
  // Without other traffic, the closed forms are the simulated times.
  const collective::GroupLinks links = engine::group_links(platform.network, [] {
    std::vector<int> a;
    for (int r = 0; r < 32; ++r) a.push_back(r);
    return a;
  }());
  collective::Request request;
  request.size = p;
  request.count = (std::uint64_t{16} << 20) / 4;
  for (int r = 0; r < p; ++r) request.node_of_rank.push_back(r / 2);
  for (const collective::Prediction& pr : collective::predict_all_reduce(request, links)) {
    INFO(pr.algorithm);
    if (pr.algorithm == "ring") CHECK(pr.time_s == Approx(ring.makespan_s).epsilon(0.01));
    if (pr.algorithm == "hierarchical") CHECK(pr.time_s == Approx(hierarchical.makespan_s).epsilon(0.01));
  }
}

TEST_CASE("with a compressor, auto never takes an algorithm of a worse error bound", "[auto]") {
  collective::GroupLinks links;
  links.inter_alpha_s = links.intra_alpha_s = 1e-6;
  links.inter_beta_s_per_byte = links.intra_beta_s_per_byte = 1e-10;
  links.gamma_s_per_byte = 1e-11;
  links.compressor.ratio = 8;
  links.compressor.compress_Bps = links.compressor.decompress_Bps = links.compressor.add_Bps = 1e11;
  collective::Request request;
  request.size = 8;
  request.count = 1 << 20;
  auto names = [&](collective::Compression kind) {
    request.compression = kind;
    std::vector<std::string> out;
    for (const collective::Prediction& p : collective::predict_all_reduce(request, links)) out.push_back(p.algorithm);
    return out;
  };
  // Quantizers whose outputs cannot be summed: decompress-add-recompress (p compressions) is out.
  CHECK(names(collective::Compression::kNonSummable) == std::vector<std::string>{"compressed-allgather"});
  CHECK(names(collective::Compression::kErrorBounded) ==
        std::vector<std::string>{"compressed-ring", "compressed-allgather"});
  CHECK(names(collective::Compression::kHomomorphic) ==
        std::vector<std::string>{"compressed-ring", "homomorphic-ring", "compressed-allgather"});
  CHECK(names(collective::Compression::kNone) ==
        std::vector<std::string>{"ring", "recursive-doubling", "rabenseifner", "binomial-tree"});
}

TEST_CASE("auto chooses with the calibrated network model when the replay has one", "[engine][auto]") {
  // Two ranks on two nodes (nominal: 12 us, 1 GB/s between them), 64 MiB of fp32, reduction at
  // 20 GB/s. Recursive doubling: alpha + n beta + n gamma; ring: 2 alpha + n beta + n/2 gamma.
  // Nominally ring wins (n/2 gamma = 1.7 ms > alpha); a model with 10 ms of latency between
  // nodes makes one step cheaper than the reduction saved, and recursive doubling wins.
  const topology::Platform platform = topology::parse_platform(R"({
  "format": "ccsim-platform", "version": 1, "name": "test", "nodes": 2,
  "node": {"accelerators": 1,
    "accelerator": {"model": "t", "flops": 1e12, "reduce_Bps": 2e10, "source": "test"},
    "intra_link": {"bandwidth_Bps": 1e10, "latency_s": 1e-6, "source": "test"},
    "nics": 1,
    "nic_link": {"bandwidth_Bps": 1e9, "latency_s": 5e-6, "source": "test"}},
  "network": {"topology": "switch", "source": "test"}
})",
                                                               "test-platform.json");
  const trace::Trace t = one_all_reduce(2, 64ull << 20);
  const engine::Result nominal = engine::replay(t, platform, {});
  CHECK(nominal.name(nominal.ops[0][0].algorithm) == "ring");
  CHECK(nominal.notes.front().find("calibrated") == std::string::npos);

  topology::NetworkModel slow;
  slow.name = "slow-inter";
  slow.has_inter = true;
  slow.inter.segments = {{0, 10e-3, 1e9}};
  engine::ReplayOptions options;
  options.network.calibrated = std::make_shared<const topology::NetworkModel>(slow);
  const engine::Result calibrated = engine::replay(t, platform, options);
  CHECK(calibrated.name(calibrated.ops[0][0].algorithm) == "recursive-doubling");
  // By hand: recursive doubling 10 ms + 64 MiB / 1 GB/s + 64 MiB / 20 GB/s = 80.464 ms; ring
  // 20 ms + 67.109 ms + 1.678 ms = 88.787 ms.
  CHECK_THAT(calibrated.notes.front(),
             Catch::Contains("recursive-doubling 80.464 ms (chosen), ring 88.787 ms") &&
                 Catch::EndsWith("predicted by closed form with calibrated network model \"slow-inter\" (its figures "
                                 "for 32 MiB messages)"));
}
