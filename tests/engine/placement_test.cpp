#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "engine/placement.hpp"
#include "engine_fixtures.hpp"
#include "../topology/topology_fixtures.hpp"
#include "support/error_of.hpp"

using namespace ccsim;

namespace {

// 8 ranks in Megatron order (rank = pp * 4 + dp * 2 + tp): TP 2, DP 2, PP 2.
trace::Trace megatron_trace() {
  std::string groups;
  auto add = [&](const std::string& name, const char* kind, std::vector<int> ranks) {
    groups += fmt::format(R"({}{{"name": "{}", "kind": "{}", "ranks": [{}]}})", groups.empty() ? "" : ", ", name, kind,
                          fmt::join(ranks, ", "));
  };
  for (int pp = 0; pp < 2; ++pp) {
    for (int dp = 0; dp < 2; ++dp)
      add(fmt::format("tp{}", pp * 2 + dp), "tensor", {pp * 4 + dp * 2, pp * 4 + dp * 2 + 1});
  }
  for (int pp = 0; pp < 2; ++pp) {
    for (int tp = 0; tp < 2; ++tp) add(fmt::format("dp{}", pp * 2 + tp), "data", {pp * 4 + tp, pp * 4 + 2 + tp});
  }
  for (int dp = 0; dp < 2; ++dp) {
    for (int tp = 0; tp < 2; ++tp) add(fmt::format("pp{}", dp * 2 + tp), "pipeline", {dp * 2 + tp, 4 + dp * 2 + tp});
  }
  return test::make_trace(8, groups, std::vector<std::string>(8, ""));
}

// A Megatron-ordered trace (rank = (pp * dp_size + dp) * tp_size + tp) of any shape.
trace::Trace megatron_trace(int tp_size, int dp_size, int pp_size) {
  const int world = tp_size * dp_size * pp_size;
  const auto rank = [&](int tp, int dp, int pp) { return (pp * dp_size + dp) * tp_size + tp; };
  std::string groups;
  auto add = [&](const std::string& name, const char* kind, const std::vector<int>& ranks) {
    groups += fmt::format(R"({}{{"name": "{}", "kind": "{}", "ranks": [{}]}})", groups.empty() ? "" : ", ", name, kind,
                          fmt::join(ranks, ", "));
  };
  for (int pp = 0; pp < pp_size; ++pp) {
    for (int dp = 0; dp < dp_size; ++dp) {
      std::vector<int> ranks;
      for (int tp = 0; tp < tp_size; ++tp) ranks.push_back(rank(tp, dp, pp));
      add(fmt::format("tp{}.{}", pp, dp), "tensor", ranks);
    }
    for (int tp = 0; tp < tp_size; ++tp) {
      std::vector<int> ranks;
      for (int dp = 0; dp < dp_size; ++dp) ranks.push_back(rank(tp, dp, pp));
      add(fmt::format("dp{}.{}", pp, tp), "data", ranks);
    }
  }
  for (int dp = 0; dp < dp_size; ++dp) {
    for (int tp = 0; tp < tp_size; ++tp) {
      std::vector<int> ranks;
      for (int pp = 0; pp < pp_size; ++pp) ranks.push_back(rank(tp, dp, pp));
      add(fmt::format("pp{}.{}", dp, tp), "pipeline", ranks);
    }
  }
  return test::make_trace(world, groups, std::vector<std::string>(static_cast<std::size_t>(world), ""));
}

// One-accelerator nodes in supernodes of `per_supernode` nodes, as Sunway OceanLight's.
topology::Platform supernodes(int nodes, int per_supernode) {
  return test::platform(nodes, 1, 1,
                        fmt::format(R"({{"topology": "supernodes", "nodes_per_supernode": {}, "source": "test",
    "upper": {{"bandwidth_Bps": 1e10, "latency_s": 1e-6, "oversubscription": "16:3", "source": "test"}}}})",
                                    per_supernode));
}

std::string error_of(const trace::Trace& t, const topology::Network& net, const std::string& policy) {
  return ccsim::test::message_of([&] { engine::place_ranks(t, net, policy); });
}

}  // namespace

TEST_CASE("default placement: tensor groups in a node, pipeline stages across nodes, data parallel outermost",
          "[engine][placement]") {
  trace::Trace t = megatron_trace();
  topology::Platform p = test::platform(4, 2, 1, test::fat_tree(4, 1));
  std::vector<int> acc = engine::place_ranks(t, p.network, "auto");
  // Order tp,pp,dp: slot = dp * 4 + pp * 2 + tp.
  CHECK(acc == std::vector<int>{0, 1, 4, 5, 2, 3, 6, 7});
  for (int r = 0; r < 8; r += 2)
    CHECK(p.network.node_of(acc[static_cast<std::size_t>(r)]) ==
          p.network.node_of(acc[static_cast<std::size_t>(r + 1)]));
  CHECK(engine::place_ranks(t, p.network, "rank-order") == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(engine::place_ranks(t, p.network, "pp,tp,dp") == std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7});
  CHECK(engine::place_ranks(t, p.network, "map:7,6,5,4,3,2,1,0") == std::vector<int>{7, 6, 5, 4, 3, 2, 1, 0});
}

TEST_CASE("placements that do not fit say why", "[engine][placement]") {
  trace::Trace t = megatron_trace();
  topology::Platform small = test::platform(2, 2, 1, test::fat_tree(2, 1));
  CHECK(error_of(t, small.network, "auto") ==
        "--placement: the trace has 8 ranks but the platform has only 4 accelerators (2 nodes x 2); --oversubscribe "
        "shares accelerators");
  topology::Platform singles = test::platform(8, 1, 1, test::fat_tree(8, 1));
  topology::Platform leaves = test::platform(8, 1, 1, test::fat_tree(1, 8));  // a switch per node
  CHECK(error_of(t, leaves.network, "tp,pp,dp") ==
        "--placement: tensor-parallel groups of 2 ranks cannot stay inside nodes of 1 accelerators with placement "
        "\"tp,pp,dp\", nor on nodes under one switch (\"tp0\" spans switches); pass --placement rank-order (or "
        "another order) to place them across switches");
  CHECK(error_of(t, singles.network, "tp,tp,dp") ==
        "--placement: expected auto, rank-order, map:A,B,... or an order of tp, pp and dp such as tp,pp,dp (innermost "
        "first), got \"tp,tp,dp\"");
  // Fewer than three parts were read past the end (std::out_of_range, an internal error).
  for (std::string policy : {"rank_order", "tp,pp"}) {
    CHECK(
        error_of(t, singles.network, policy) ==
        "--placement: expected auto, rank-order, map:A,B,... or an order of tp, pp and dp such as tp,pp,dp (innermost "
        "first), got \"" +
            policy + "\"");
  }
  CHECK(error_of(t, singles.network, "map:0,1,2,3,4,5,6,6") ==
        "--placement: the map puts two ranks on accelerator 6 (--oversubscribe allows it)");
  CHECK(error_of(t, singles.network, "map:0,1") == "--placement: the map places 2 ranks but the trace has 8");
  CHECK(error_of(t, singles.network, "map:0,1,2,3,4,5,6,x") ==
        "--placement: map entry 7 must be an accelerator in 0..7, got \"x\"");
  // Oversubscribed: slots wrap around the accelerators.
  CHECK(engine::place_ranks(t, small.network, "rank-order", true) == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3});
}

TEST_CASE("placements of fewer or more than three parts are input errors", "[engine][placement]") {
  trace::Trace t = megatron_trace();
  topology::Platform singles = test::platform(8, 1, 1, test::fat_tree(8, 1));
  // "rank_order" (a misspelt rank-order) once read past the end of the text: std::out_of_range.
  for (const char* policy : {"rank_order", "tp,pp", "tp", "", ",", "tp,pp,dp,", "tp,pp,dp,dp", "tp,,pp,dp"}) {
    CHECK(error_of(t, singles.network, policy) ==
          fmt::format("--placement: expected auto, rank-order, map:A,B,... or an order of tp, pp and dp such as "
                      "tp,pp,dp (innermost first), got \"{}\"",
                      policy));
  }
  CHECK(error_of(t, singles.network, "map:") == "--placement: map entry 0 must be an accelerator in 0..7, got \"\"");
  CHECK(error_of(t, singles.network, "map:0,1,2,3,4,5,6,4294967303") ==
        "--placement: map entry 7 must be an accelerator in 0..7, got \"4294967303\"");
}

TEST_CASE("on one-accelerator nodes, tensor-parallel groups take neighbouring nodes of one supernode",
          "[engine][placement]") {
  // TP 4, DP 3, PP 2 (24 ranks) in synth's order tp,dp,pp on 32 nodes in supernodes of 8: each
  // group takes 4 consecutive nodes, which never straddle a supernode (8 is a multiple of 4).
  trace::Trace t = megatron_trace(4, 3, 2);
  topology::Platform p = supernodes(32, 8);
  const std::vector<int> acc = engine::place_ranks(t, p.network, "tp,dp,pp");
  const auto rank = [](int tp, int dp, int pp) { return static_cast<std::size_t>((pp * 3 + dp) * 4 + tp); };
  for (int pp = 0; pp < 2; ++pp) {
    for (int dp = 0; dp < 3; ++dp) {
      // slot = (pp * 3 + dp) * 4 + tp: the group's nodes are neighbours, and all in one supernode.
      for (int tp = 0; tp < 4; ++tp) CHECK(acc[rank(tp, dp, pp)] == (pp * 3 + dp) * 4 + tp);
      CHECK(acc[rank(0, dp, pp)] / 8 == acc[rank(3, dp, pp)] / 8);
    }
  }
  // The trace's own placement (auto) is accepted as well, and the default tp,pp,dp.
  t.placement = "tp,dp,pp";
  CHECK(engine::place_ranks(t, p.network, "auto") == acc);
  CHECK_NOTHROW(engine::place_ranks(t, p.network, "tp,pp,dp"));
  // Supernodes of 6: the group on nodes 4..7 straddles the first two, and is refused by name.
  topology::Platform sixes = supernodes(24, 6);
  CHECK(error_of(t, sixes.network, "auto") ==
        "--placement: tensor-parallel groups of 4 ranks cannot stay inside nodes of 1 accelerators with placement "
        "\"tp,dp,pp\", nor on nodes under one switch (\"tp0.1\" spans switches); pass --placement rank-order (or "
        "another order) to place them across switches");
}
