// --fast runs a ring whose messages may share links with others' as one message per ring
// neighbour (CoarseRings): checked here against the full replay, which runs every step.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/replay.hpp"
#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"
#include "engine_fixtures.hpp"
#include "support/split.hpp"
#include "../topology/topology_fixtures.hpp"

using namespace ccsim;

namespace {

std::string group_json(const std::string& name, const std::vector<int>& ranks) {
  return fmt::format(R"({{"name": "{}", "kind": "data", "ranks": [{}]}})", name, fmt::join(ranks, ", "));
}

std::string collective(const std::string& kind, const std::string& group, std::uint64_t bytes) {
  return fmt::format(R"({{"kind": "{}", "group": "{}", "bytes": {}, "dtype": "fp32"}})", kind, group, bytes);
}

std::string compute(double ms) { return fmt::format(R"({{"kind": "compute", "name": "c", "duration_ms": {}}})", ms); }

std::vector<int> iota(int first, int count, int stride = 1) {
  std::vector<int> out;
  for (int k = 0; k < count; ++k) out.push_back(first + k * stride);
  return out;
}

/// Ranks 0..2h-1 alternating between accelerators 0..h-1 and h..2h-1 ("map:0,h,1,h+1,...").
std::string alternating(int h) {
  std::vector<int> map;
  for (int k = 0; k < h; ++k) {
    map.push_back(k);
    map.push_back(h + k);
  }
  return fmt::format("map:{}", fmt::join(map, ","));
}

struct Comparison {
  engine::Result fast;
  engine::Result full;
  double makespan = 0;  ///< |fast - full| / full, of the makespan
  double ends = 0;      ///< the largest |fast - full| of an operator's start or end, / full makespan
};

Comparison compare(const trace::Trace& t, const topology::Platform& platform, engine::ReplayOptions options) {
  options.fast = true;
  options.coarse_rings = true;  // --fast: the ring flows under test
  Comparison c{engine::replay(t, platform, options), {}, 0, 0};
  options.fast = false;
  c.full = engine::replay(t, platform, options);
  c.makespan = std::abs(c.fast.makespan_s - c.full.makespan_s) / c.full.makespan_s;
  for (std::size_t r = 0; r < c.full.ops.size(); ++r) {
    for (std::size_t i = 0; i < c.full.ops[r].size(); ++i) {
      const engine::OpRecord& a = c.fast.ops[r][i];
      const engine::OpRecord& b = c.full.ops[r][i];
      CHECK(c.fast.name(a.algorithm) == c.full.name(b.algorithm));
      c.ends = std::max({c.ends, std::abs(a.start_s - b.start_s), std::abs(a.end_s - b.end_s)});
    }
  }
  c.ends /= c.full.makespan_s;
  return c;
}

/// The --fast note on ring flows ("" without).
std::string ring_note(const engine::Result& r) {
  for (const std::string& note : r.notes) {
    if (note.find("ring collectives") != std::string::npos) return note;
  }
  return "";
}

}  // namespace

TEST_CASE(
    "a ring whose messages share links runs under --fast in coarse steps, within 1 % of the "
    "full replay",
    "[engine][collective][shortcut]") {
  const std::uint64_t n = 80ull << 20;
  engine::ReplayOptions options;
  options.all_reduce_algorithm = "ring";

  SECTION("every hop crosses an oversubscribed level; ranks in step or skewed; three ring collectives") {
    // 80 ranks (158 steps of all_reduce, 79 of the others: 10 and 5 per coarse step) on two
    // leaves of 40 under a root 4:1 oversubscribed, ranks alternating leaves: each step's 40
    // messages leaving a leaf share its uplink. Skewed ranks start 0.05 ms apart (4 ms from
    // the first to the last, the all_reduce taking about 60 ms).
    const topology::Platform platform = test::platform(80, 1, 1, test::fat_tree(40, 2, "4"));
    options.placement = alternating(40);
    for (const char* kind : {"all_reduce", "all_gather", "reduce_scatter"}) {
      for (double skew_ms : {0.0, 0.05}) {
        // 80 MiB, and 40 MiB (+ 12 bytes for all_reduce: blocks of unequal sizes).
        const std::string_view k = kind;
        for (std::uint64_t bytes : {n, std::uint64_t{(40ull << 20) + (k == "all_reduce" ? 12 : 0)}}) {
          INFO(kind << ", skew " << skew_ms << " ms, " << bytes << " B");
          std::vector<std::string> ops;
          for (int r = 0; r < 80; ++r) {
            ops.push_back(fmt::format("{}, {}, {}, {}", compute(r * skew_ms), collective(kind, "g", bytes), compute(1),
                                      collective(kind, "g", bytes)));
          }
          const Comparison c = compare(test::make_trace(80, group_json("g", iota(0, 80)), ops), platform, options);
          // Skewed, the first call runs step by step (its members start further apart than
          // the tolerance), and the second as ring flows if they end together.
          if (skew_ms == 0)
            CHECK_THAT(ring_note(c.fast),
                       Catch::StartsWith("--fast (approximate): 2 ring collectives (e.g. on \"g\")"));
          else
            CHECK_THAT(ring_note(c.fast), !Catch::StartsWith("--fast (approximate): 2 ring collectives"));
          CHECK(ring_note(c.full).empty());
          CHECK(c.makespan <= 0.01);  // measured: 2.3e-5 at most
          CHECK(c.ends <= 0.01);      // measured: 1.7e-4 at most
        }
      }
    }
  }

  SECTION("two rings share their nodes' NICs, the second starting while the first runs") {
    // 40 nodes of 2: "even" and "odd" each have one rank per node (78 steps, about 5 per
    // coarse step). "odd" starts `offset` ms later: the NICs' sharing changes in the middle of
    // "even"'s ring (about 16 ms alone). Compressed rings run step by step: the codec's gaps
    // between steps, which the other ring fills, would become few and long.
    const topology::Platform platform = test::platform(40, 2, 1, test::fat_tree(40, 1));
    options.placement = "rank-order";
    const std::string groups = group_json("even", iota(0, 40, 2)) + ", " + group_json("odd", iota(1, 40, 2));
    for (double offset_ms : {0.0, 2.0, 5.0, 9.0}) {
      for (bool compressed : {false, true}) {
        INFO("offset " << offset_ms << " ms, compressed " << compressed);
        std::vector<std::string> ops;
        for (int r = 0; r < 80; ++r) {
          ops.push_back(fmt::format("{}, {}", compute(r % 2 == 0 ? 0.0 : offset_ms),
                                    collective("all_reduce", r % 2 == 0 ? "even" : "odd", n)));
        }
        engine::ReplayOptions o = options;
        if (compressed) {
          o.all_reduce_algorithm = "compressed-ring";
          o.compression.model = test::round_compressor(false, true);
          o.compression.query.error_bound = 1e-3;
        }
        const Comparison c = compare(test::make_trace(80, groups, ops), platform, o);
        if (compressed) {
          CHECK(ring_note(c.fast).empty());
          CHECK(test::largest_difference(c.fast, c.full) <= 1e-6);
          continue;
        }
        CHECK_THAT(ring_note(c.fast), Catch::StartsWith("--fast (approximate): 2 ring collectives"));
        CHECK(c.makespan <= 0.01);  // measured: 1.8e-3 at most (offset 2 ms)
        CHECK(c.ends <= 0.01);
      }
    }
  }

  SECTION("a message outside the ring crosses its links while it runs") {
    // The ring of the first section; two more ranks (one per leaf) exchange 256 MiB across
    // the root from 2 ms on, while the ring runs.
    const topology::Platform platform = test::platform(82, 1, 1, test::fat_tree(41, 2, "4"));
    std::string map = alternating(41);
    options.placement = map;
    std::vector<std::string> ops;
    for (int r = 0; r < 80; ++r) ops.push_back(collective("all_reduce", "g", n));
    ops.push_back(fmt::format("{}, {}", compute(2), test::send(81, 256ull << 20)));
    ops.push_back(fmt::format("{}, {}", compute(2), test::recv(80, 256ull << 20)));
    const Comparison c = compare(test::make_trace(82, group_json("g", iota(0, 80)), ops), platform, options);
    CHECK_THAT(ring_note(c.fast), Catch::StartsWith("--fast (approximate): 1 ring collectives"));
    CHECK(c.makespan <= 0.01);  // measured: 9.0e-4
    CHECK(c.ends <= 0.01);
  }
}

TEST_CASE("a fast replay keeps step by step what a ring flow would change: other algorithms, calibrated models",
          "[engine][collective][shortcut]") {
  const topology::Platform platform = test::platform(8, 1, 1, test::fat_tree(4, 2, "4"));
  std::vector<std::string> ops(8, collective("all_reduce", "g", 16ull << 20));
  const trace::Trace t = test::make_trace(8, group_json("g", {0, 1, 2, 3, 4, 5, 6, 7}), ops);
  engine::ReplayOptions options;
  options.placement = "map:0,4,1,5,2,6,3,7";
  for (const char* algorithm : {"rabenseifner", "recursive-doubling", "binomial-tree"}) {
    INFO(algorithm);
    options.all_reduce_algorithm = algorithm;
    const Comparison c = compare(t, platform, options);
    CHECK(ring_note(c.fast).empty());
    CHECK(test::largest_difference(c.fast, c.full) == 0);
  }
  // A calibrated model's factors depend on each message's size, and its overheads are paid per
  // message: one message of all the bytes would change both.
  auto model = std::make_shared<topology::NetworkModel>();
  model->name = "test";
  model->has_inter = true;
  model->inter.send_overhead_s = 1e-5;
  model->inter.recv_overhead_s = 5e-6;
  model->inter.segments = {{0, 2e-6, 1e8}, {1 << 20, 5e-5, 5e8}};
  options.network.calibrated = model;
  options.all_reduce_algorithm = "ring";
  const Comparison c = compare(t, platform, options);
  CHECK(ring_note(c.fast).empty());
  CHECK(test::largest_difference(c.fast, c.full) <= 1e-6);
}

TEST_CASE("a synthesised job's gradient rings run as ring flows under --fast, within 1 % of the full replay",
          "[engine][collective][shortcut][pipeline]") {
  // The small GPT at TP 2, PP 2, DP 24 (96 ranks, the gradient rings 46 steps) on 24 nodes of
  // 4 under a root 4:1 oversubscribed: each node's 4 gradient rings share its NIC, and those
  // crossing the root its uplinks. Stages end their backward at different times, so the rings
  // of one stage overlap the others' and the pipeline's last messages.
  const synth::Parallelism par = test::split(2, 2, 24, 4);
  const trace::Trace t = synth::synthesize(synth::load_model("small-gpt"), par, "test");
  const topology::Platform platform = test::platform(24, 4, 1, test::fat_tree(12, 2, "4"));
  engine::ReplayOptions options;
  options.all_reduce_algorithm = "ring";
  const Comparison c = compare(t, platform, options);
  CAPTURE(c.fast.makespan_s, c.full.makespan_s, ring_note(c.fast));
  CHECK_THAT(ring_note(c.fast), Catch::StartsWith("--fast (approximate): 4 ring collectives"));
  CHECK(c.makespan <= 0.01);  // measured: 2.5e-15
  CHECK(c.ends <= 0.01);      // measured: 3.0e-4
}
