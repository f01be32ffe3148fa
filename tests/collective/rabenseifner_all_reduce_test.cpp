#include <catch2/catch.hpp>

#include <cmath>

#include "collective/rabenseifner_all_reduce.hpp"
#include "support.hpp"

using namespace ccsim::collective;
using namespace ccsim::collective::testing;

TEST_CASE("rabenseifner sums every element on every rank", "[collective][rabenseifner]") {
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) require_all_reduced(RabenseifnerAllReduce(p, count, 4));
  }
}

TEST_CASE("rabenseifner moves 2(p-1)/p of the buffer in 2 log2 p messages per rank", "[collective][rabenseifner]") {
  const std::uint64_t count = 1024;
  const std::uint64_t n = count * 4;
  for (int p : {2, 4, 8, 16}) {
    const int rounds = static_cast<int>(std::log2(p));
    ExecutionStats stats = require_all_reduced(RabenseifnerAllReduce(p, count, 4));
    for (int r = 0; r < p; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      CHECK(stats.bytes_sent[ur] == 2 * share(n, p - 1, p));
      CHECK(stats.bytes_received[ur] == 2 * share(n, p - 1, p));
      CHECK(stats.bytes_reduced[ur] == share(n, p - 1, p));
    }
    CHECK(stats.messages == static_cast<std::size_t>(2 * p * rounds));
  }
}

TEST_CASE("rabenseifner folds a group that is not a power of two", "[collective][rabenseifner]") {
  // p = 7: p' = 4, r = 3; ranks 0, 2, 4 fold into 1, 3, 5 (n each way), the core moves 2(3/4)n.
  const std::uint64_t count = 64;
  const std::uint64_t n = count * 4;
  ExecutionStats stats = require_all_reduced(RabenseifnerAllReduce(7, count, 4));
  CHECK(stats.bytes_sent[0] == n);
  CHECK(stats.bytes_sent[1] == n + 2 * share(n, 3, 4));
  CHECK(stats.bytes_reduced[1] == n + share(n, 3, 4));
  CHECK(stats.bytes_sent[6] == 2 * share(n, 3, 4));
  CHECK(stats.messages == 2 * 4 * 2 + 2 * 3);
}

TEST_CASE("rabenseifner closed form is the textbook formula", "[collective][rabenseifner]") {
  const CostParams params = cost_params(2e-6, 1e-10, 2e-11);
  for (int p : {2, 4, 8, 16, 1024}) {
    const double n = 1 << 20;
    const double lg = std::log2(p);
    const double expected = 2 * lg * params.alpha_s + 2.0 * (p - 1) / p * n * params.beta_s_per_byte +
                            (p - 1.0) / p * n * params.gamma_s_per_byte;
    INFO("p=" << p);
    CHECK(RabenseifnerAllReduce(p, 1 << 18, 4).cost(params) == Approx(expected).epsilon(1e-12));
  }
  CHECK(RabenseifnerAllReduce(1, 1 << 18, 4).cost(params) == 0.0);
  // By hand: p = 6 (p' = 4, r = 2), n = 1 MB, alpha = 1 us, beta = 1 ns/B, gamma = 0.1 ns/B:
  // core 4 us + 1.5 ms + 0.075 ms; fold 2 (1 us + 1 ms) + 0.1 ms = 2.102 ms; total 3.681 ms.
  CHECK(RabenseifnerAllReduce(6, 250000, 4).cost(cost_params(1e-6, 1e-9, 1e-10)) == Approx(3.681e-3).epsilon(1e-12));
}
