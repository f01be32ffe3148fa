#include <catch2/catch.hpp>

#include <numeric>

#include "collective/memory_executor.hpp"
#include "collective/ring_all_reduce.hpp"

using namespace ccsim::collective;

namespace {

// Rank r holds values r * 1000 + i, so every element of the sum is distinct and checkable.
std::vector<std::vector<double>> inputs(int p, std::uint64_t count) {
  std::vector<std::vector<double>> buffers(static_cast<std::size_t>(p), std::vector<double>(count));
  for (int r = 0; r < p; ++r) {
    for (std::uint64_t i = 0; i < count; ++i)
      buffers[static_cast<std::size_t>(r)][i] = r * 1000.0 + static_cast<double>(i);
  }
  return buffers;
}

}  // namespace

TEST_CASE("ring all_reduce sums every element on every rank", "[collective][ring]") {
  for (int p : {1, 2, 3, 4, 5, 8}) {
    for (std::uint64_t count : {0ull, 1ull, 7ull, 64ull, 1001ull}) {
      RingAllReduce ring(p, count, 4);
      auto buffers = inputs(p, count);
      execute_in_memory(ring, buffers);
      for (int r = 0; r < p; ++r) {
        for (std::uint64_t i = 0; i < count; ++i) {
          double expected = 1000.0 * p * (p - 1) / 2 + static_cast<double>(p) * static_cast<double>(i);
          INFO("p=" << p << " count=" << count << " rank=" << r << " i=" << i);
          REQUIRE(buffers[static_cast<std::size_t>(r)][i] == expected);
        }
      }
    }
  }
}

TEST_CASE("ring all_reduce moves 2(p-1)/p of the buffer per rank", "[collective][ring]") {
  for (int p : {2, 4, 8}) {
    const std::uint64_t count = 1024;  // divisible by p: the textbook figure is exact
    RingAllReduce ring(p, count, 2);
    auto buffers = inputs(p, count);
    ExecutionStats stats = execute_in_memory(ring, buffers);
    const std::uint64_t n = count * 2;
    for (int r = 0; r < p; ++r) {
      CHECK(stats.bytes_sent[static_cast<std::size_t>(r)] == 2 * (p - 1) * n / p);
      CHECK(stats.bytes_received[static_cast<std::size_t>(r)] == 2 * (p - 1) * n / p);
      CHECK(stats.bytes_reduced[static_cast<std::size_t>(r)] == (p - 1) * n / p);
    }
    CHECK(stats.messages == static_cast<std::size_t>(2 * p * (p - 1)));
    CHECK(ring.steps(0).size() == static_cast<std::size_t>(2 * (p - 1)));
  }
}

TEST_CASE("ring all_reduce closed form is the textbook formula", "[collective][ring]") {
  const CostParams params = cost_params(2e-6, 1.0 / 10e9, 1.0 / 50e9);
  for (int p : {1, 2, 3, 16, 1024}) {
    for (double n : {0.0, 4096.0, 134217728.0}) {
      RingAllReduce ring(p, static_cast<std::uint64_t>(n / 4), 4);
      double expected = 2 * (p - 1) * params.alpha_s + 2.0 * (p - 1) / p * n * params.beta_s_per_byte +
                        (p - 1.0) / p * n * params.gamma_s_per_byte;
      INFO("p=" << p << " n=" << n);
      CHECK(ring.cost(params) == Approx(expected).epsilon(1e-12));
    }
  }
  // One concrete value, worked by hand: p=4, n=1 MB, alpha=1us, beta=1ns/B, gamma=0.1ns/B:
  // 6us + 1.5ms + 0.075ms = 1.581 ms.
  RingAllReduce ring(4, 250000, 4);
  CHECK(ring.cost(cost_params(1e-6, 1e-9, 1e-10)) == Approx(1.581e-3).epsilon(1e-12));
}

TEST_CASE("chunks split a buffer into near-equal contiguous parts", "[collective]") {
  RingAllReduce ring(3, 10, 4);
  CHECK(ring.chunk(0, 3).offset == 0);
  CHECK(ring.chunk(0, 3).count == 4);
  CHECK(ring.chunk(1, 3).offset == 4);
  CHECK(ring.chunk(1, 3).count == 3);
  CHECK(ring.chunk(2, 3).offset == 7);
  CHECK(ring.chunk(2, 3).count == 3);
}
