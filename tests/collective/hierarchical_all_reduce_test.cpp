#include <catch2/catch.hpp>

#include <stdexcept>

#include "collective/hierarchical_all_reduce.hpp"
#include "support.hpp"

using namespace ccsim::collective;
using namespace ccsim::collective::testing;

namespace {

/// Ranks 0..g-1 on node 0, the next g on node 1, ...
std::vector<int> blocked(int p, int g) {
  std::vector<int> nodes;
  for (int r = 0; r < p; ++r) nodes.push_back(r / g);
  return nodes;
}

/// Rank r on node id 10 * (r % n) + 3: nodes interleaved, ids neither dense nor sorted by rank.
std::vector<int> interleaved(int p, int n) {
  std::vector<int> nodes;
  for (int r = 0; r < p; ++r) nodes.push_back(10 * ((r * 7) % n) + 3);
  return nodes;
}

/// Raw bytes sent between ranks on different nodes, over all ranks.
std::uint64_t inter_node_bytes(const Schedule& schedule, const std::vector<int>& node_of_rank) {
  std::uint64_t total = 0;
  for (int r = 0; r < schedule.size(); ++r) {
    for (const Step& step : schedule.steps(r)) {
      if (step.send_peer >= 0 &&
          node_of_rank[static_cast<std::size_t>(step.send_peer)] != node_of_rank[static_cast<std::size_t>(r)]) {
        total += step.send.count * static_cast<std::uint64_t>(schedule.element_bytes());
      }
    }
  }
  return total;
}

}  // namespace

TEST_CASE("hierarchical all_reduce sums every element on every rank, for every node layout",
          "[collective][hierarchical]") {
  for (int p : kSizes) {
    for (int g = 1; g <= p; ++g) {
      if (p % g != 0) continue;
      for (std::uint64_t count : counts_for(p)) {
        require_all_reduced(HierarchicalAllReduce(p, count, 4, blocked(p, g)));
        // p / g nodes; (r * 7) % n spreads ranks over all n nodes when 7 and n are coprime.
        if ((p / g) % 7 != 0) require_all_reduced(HierarchicalAllReduce(p, count, 4, interleaved(p, p / g)));
      }
    }
  }
}

TEST_CASE("hierarchical all_reduce moves n/g per rank between nodes", "[collective][hierarchical]") {
  const std::uint64_t count = 480;
  const std::uint64_t n = count * 4;
  for (auto [p, g] : {std::pair{8, 4}, {8, 2}, {6, 3}, {6, 2}, {16, 4}, {4, 1}, {4, 4}}) {
    const int big_n = p / g;
    const auto layout = blocked(p, g);
    HierarchicalAllReduce schedule(p, count, 4, layout);
    CHECK(schedule.ranks_per_node() == g);
    CHECK(schedule.nodes() == big_n);
    ExecutionStats stats = require_all_reduced(schedule);
    const std::uint64_t chunk = n / static_cast<std::uint64_t>(g);
    for (int r = 0; r < p; ++r) {
      INFO("p=" << p << " g=" << g << " rank=" << r);
      const auto ur = static_cast<std::size_t>(r);
      CHECK(stats.bytes_sent[ur] == 2 * share(n, g - 1, g) + 2 * share(chunk, big_n - 1, big_n));
      CHECK(stats.bytes_reduced[ur] == share(n, g - 1, g) + share(chunk, big_n - 1, big_n));
    }
    CHECK(stats.messages == static_cast<std::size_t>(p * 2 * (g - 1 + big_n - 1)));
    CHECK(inter_node_bytes(schedule, layout) == static_cast<std::uint64_t>(p) * 2 * share(chunk, big_n - 1, big_n));
  }
}

TEST_CASE("hierarchical all_reduce refuses unusable node layouts", "[collective][hierarchical]") {
  CHECK_THROWS_AS(HierarchicalAllReduce(4, 10, 4, {0, 0, 0, 1}), std::invalid_argument);
  CHECK(HierarchicalAllReduce::layout_error({5, 5, 5, 2}, 4) ==
        "hierarchical all_reduce needs the same number of the group's ranks on every node, but node 5 holds 3 and "
        "node 2 holds 1");
  CHECK(HierarchicalAllReduce::layout_error({0, 0, 1}, 4) ==
        "hierarchical all_reduce needs the node of each of the group's 4 ranks, got 3");
  CHECK(HierarchicalAllReduce::layout_error({0, 1, 0, 1}, 4).empty());
}

TEST_CASE("hierarchical all_reduce closed form uses the intra tier inside nodes", "[collective][hierarchical]") {
  CostParams params = cost_params(2e-6, 1e-9, 1e-10);
  params.intra_alpha_s = 0.5e-6;
  params.intra_beta_s_per_byte = 1e-10;
  // By hand: p = 8 on 2 nodes of g = 4, n = 1 MB (chunk n/g = 250 kB), alpha_i = 0.5 us,
  // beta_i = 0.1 ns/B, alpha = 2 us, beta = 1 ns/B, gamma = 0.1 ns/B:
  //   intra reduce-scatter 3 (0.5 + 25 + 25) us = 151.5 us
  //   inter all_reduce     2 us * 2 + 250 us + 12.5 us = 266.5 us
  //   intra all-gather     3 (0.5 + 25) us = 76.5 us                      total 494.5 us.
  CHECK(HierarchicalAllReduce(8, 250000, 4, blocked(8, 4)).cost(params) == Approx(494.5e-6).epsilon(1e-12));
  // g = 1 is the ring all_reduce; one node is a ring on the intra tier.
  const double n = 1e6;
  CHECK(HierarchicalAllReduce(8, 250000, 4, blocked(8, 1)).cost(params) ==
        Approx(14 * 2e-6 + 2 * 7.0 / 8 * n * 1e-9 + 7.0 / 8 * n * 1e-10).epsilon(1e-12));
  CHECK(HierarchicalAllReduce(8, 250000, 4, blocked(8, 8)).cost(params) ==
        Approx(14 * 0.5e-6 + 2 * 7.0 / 8 * n * 1e-10 + 7.0 / 8 * n * 1e-10).epsilon(1e-12));
  CHECK(HierarchicalAllReduce(1, 250000, 4, {0}).cost(params) == 0.0);
  // Without an intra tier, both levels use alpha and beta.
  const CostParams flat = cost_params(1e-6, 1e-9, 0);
  const double g = 4;
  const double big_n = 2;
  const double chunk = n / g;
  CHECK(HierarchicalAllReduce(8, 250000, 4, blocked(8, 4)).cost(flat) ==
        Approx(2 * (g - 1) * (1e-6 + chunk * 1e-9) + 2 * (big_n - 1) * 1e-6 + 2 * (big_n - 1) / big_n * chunk * 1e-9)
            .epsilon(1e-12));
}
