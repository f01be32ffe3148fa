#include <catch2/catch.hpp>

#include "collective/recursive_doubling_all_reduce.hpp"
#include "support.hpp"

using namespace ccsim::collective;
using namespace ccsim::collective::testing;

TEST_CASE("recursive doubling sums every element on every rank", "[collective][recursive-doubling]") {
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) require_all_reduced(RecursiveDoublingAllReduce(p, count, 4));
  }
}

TEST_CASE("recursive doubling exchanges the whole buffer log2 p times", "[collective][recursive-doubling]") {
  const std::uint64_t count = 48;
  const std::uint64_t n = count * 8;
  for (int p : {2, 4, 8, 16}) {
    const int rounds = p == 2 ? 1 : p == 4 ? 2 : p == 8 ? 3 : 4;
    ExecutionStats stats = require_all_reduced(RecursiveDoublingAllReduce(p, count, 8));
    for (int r = 0; r < p; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      CHECK(stats.bytes_sent[ur] == rounds * n);
      CHECK(stats.bytes_received[ur] == rounds * n);
      CHECK(stats.bytes_reduced[ur] == rounds * n);
    }
    CHECK(stats.messages == static_cast<std::size_t>(p * rounds));
  }
}

TEST_CASE("recursive doubling folds a group that is not a power of two", "[collective][recursive-doubling]") {
  // p = 6: p' = 4, r = 2. Ranks 0 and 2 fold into 1 and 3 and get the result back; ranks 1, 3,
  // 4, 5 run two rounds.
  const std::uint64_t count = 10;
  const std::uint64_t n = count * 4;
  ExecutionStats stats = require_all_reduced(RecursiveDoublingAllReduce(6, count, 4));
  for (std::size_t r : {0u, 2u}) {
    CHECK(stats.bytes_sent[r] == n);
    CHECK(stats.bytes_received[r] == n);
    CHECK(stats.bytes_reduced[r] == 0);
  }
  for (std::size_t r : {1u, 3u}) {
    CHECK(stats.bytes_sent[r] == 3 * n);
    CHECK(stats.bytes_received[r] == 3 * n);
    CHECK(stats.bytes_reduced[r] == 3 * n);
  }
  for (std::size_t r : {4u, 5u}) CHECK(stats.bytes_sent[r] == 2 * n);
  CHECK(stats.messages == 4 * 2 + 2 * 2);
}

TEST_CASE("recursive doubling closed form is the textbook formula", "[collective][recursive-doubling]") {
  const CostParams params = cost_params(2e-6, 1e-10, 2e-11);
  const double n = 4096;
  auto round = params.alpha_s + n * params.beta_s_per_byte + n * params.gamma_s_per_byte;
  auto fold = 2 * (params.alpha_s + n * params.beta_s_per_byte) + n * params.gamma_s_per_byte;
  CHECK(RecursiveDoublingAllReduce(1, 1024, 4).cost(params) == 0.0);
  CHECK(RecursiveDoublingAllReduce(8, 1024, 4).cost(params) == Approx(3 * round).epsilon(1e-12));
  CHECK(RecursiveDoublingAllReduce(16, 1024, 4).cost(params) == Approx(4 * round).epsilon(1e-12));
  CHECK(RecursiveDoublingAllReduce(12, 1024, 4).cost(params) == Approx(3 * round + fold).epsilon(1e-12));
  // By hand: p = 5 (p' = 4, r = 1), n = 1 kB, alpha = 1 us, beta = 1 ns/B, gamma = 0.1 ns/B:
  // 2 rounds of (1 + 1 + 0.1) us = 4.2 us, fold 2 (1 + 1) + 0.1 = 4.1 us: 8.3 us.
  CHECK(RecursiveDoublingAllReduce(5, 250, 4).cost(cost_params(1e-6, 1e-9, 1e-10)) == Approx(8.3e-6).epsilon(1e-12));
}
