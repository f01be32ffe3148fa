#include <catch2/catch.hpp>

#include <numeric>

#include "collective/binomial_broadcast.hpp"
#include "collective/binomial_tree_all_reduce.hpp"
#include "support.hpp"

using namespace ccsim::collective;
using namespace ccsim::collective::testing;

TEST_CASE("binomial broadcast brings the root's buffer to every rank, from every root", "[collective][binomial]") {
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) {
      for (int root = 0; root < p; ++root) {
        BinomialBroadcast broadcast(p, count, 4, root);
        Buffers buffers = distinct_inputs(p, count);
        ExecutionStats stats = execute_in_memory(broadcast, buffers);
        for (int r = 0; r < p; ++r) {
          for (std::uint64_t i = 0; i < count; ++i) {
            INFO("p=" << p << " count=" << count << " root=" << root << " rank=" << r << " i=" << i);
            REQUIRE(buffers[static_cast<std::size_t>(r)][i] == root * 1000.0 + static_cast<double>(i));
          }
        }
        // Every rank but the root receives the buffer exactly once.
        const std::uint64_t n = count * 4;
        for (int r = 0; r < p; ++r) CHECK(stats.bytes_received[static_cast<std::size_t>(r)] == (r == root ? 0 : n));
        CHECK(stats.messages == static_cast<std::size_t>(p - 1));
      }
    }
  }
}

TEST_CASE("binomial broadcast: the root sends ceil(log2 p) times", "[collective][binomial]") {
  for (auto [p, rounds] : {std::pair{2, 1}, {3, 2}, {5, 3}, {8, 3}, {9, 4}, {16, 4}}) {
    BinomialBroadcast broadcast(p, 10, 4, p - 1);
    Buffers buffers = distinct_inputs(p, 10);
    ExecutionStats stats = execute_in_memory(broadcast, buffers);
    CHECK(stats.bytes_sent[static_cast<std::size_t>(p - 1)] == static_cast<std::uint64_t>(rounds) * 40);
  }
}

TEST_CASE("binomial broadcast refuses a root outside the group", "[collective][binomial]") {
  CHECK_THROWS_WITH(BinomialBroadcast(4, 10, 4, 4), "broadcast: root 4 is not a rank of a group of 4");
  CHECK_THROWS_WITH(BinomialBroadcast(4, 10, 4, -1), "broadcast: root -1 is not a rank of a group of 4");
}

TEST_CASE("binomial broadcast closed form is ceil(log2 p)(alpha + n beta)", "[collective][binomial]") {
  const CostParams params = cost_params(1e-6, 1e-9, 1e-10);
  CHECK(BinomialBroadcast(1, 250, 4, 0).cost(params) == 0.0);
  CHECK(BinomialBroadcast(8, 250, 4, 3).cost(params) == Approx(3 * (1e-6 + 1e-6)).epsilon(1e-12));
  // By hand: p = 9 needs 4 rounds; n = 1 MB, alpha = 1 us, beta = 1 ns/B: 4 (1 us + 1 ms) = 4.004 ms.
  CHECK(BinomialBroadcast(9, 250000, 4, 0).cost(params) == Approx(4.004e-3).epsilon(1e-12));
}

TEST_CASE("binomial tree all_reduce sums every element on every rank", "[collective][binomial]") {
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) require_all_reduced(BinomialTreeAllReduce(p, count, 4));
  }
}

TEST_CASE("binomial tree all_reduce sends the buffer 2(p-1) times", "[collective][binomial]") {
  for (int p : {2, 3, 4, 7, 8, 16}) {
    const std::uint64_t n = 100 * 4;
    ExecutionStats stats = require_all_reduced(BinomialTreeAllReduce(p, 100, 4));
    CHECK(std::accumulate(stats.bytes_sent.begin(), stats.bytes_sent.end(), std::uint64_t{0}) ==
          2 * static_cast<std::uint64_t>(p - 1) * n);
    CHECK(std::accumulate(stats.bytes_reduced.begin(), stats.bytes_reduced.end(), std::uint64_t{0}) ==
          static_cast<std::uint64_t>(p - 1) * n);
    CHECK(stats.messages == static_cast<std::size_t>(2 * (p - 1)));
  }
  // The root adds one buffer per round: log2 p for a power of two.
  ExecutionStats stats = require_all_reduced(BinomialTreeAllReduce(16, 100, 4));
  CHECK(stats.bytes_reduced[0] == 4 * 400);
}

TEST_CASE("binomial tree all_reduce closed form is the textbook formula", "[collective][binomial]") {
  const CostParams params = cost_params(2e-6, 1e-10, 2e-11);
  const double n = 4000;
  for (auto [p, rounds] : {std::pair{1, 0}, {2, 1}, {3, 2}, {8, 3}, {9, 4}, {16, 4}}) {
    const double expected =
        2 * rounds * (params.alpha_s + n * params.beta_s_per_byte) + rounds * n * params.gamma_s_per_byte;
    INFO("p=" << p);
    CHECK(BinomialTreeAllReduce(p, 1000, 4).cost(params) == Approx(expected).epsilon(1e-12));
  }
  // By hand: p = 4, n = 1 MB, alpha = 1 us, beta = 1 ns/B, gamma = 0.1 ns/B:
  // 4 (1 us + 1 ms) + 2 (0.1 ms) = 4.204 ms.
  CHECK(BinomialTreeAllReduce(4, 250000, 4).cost(cost_params(1e-6, 1e-9, 1e-10)) == Approx(4.204e-3).epsilon(1e-12));
}
