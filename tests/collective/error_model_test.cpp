#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>

#include "collective/compressed_ring_all_reduce.hpp"
#include "collective/error_model.hpp"
#include "collective/homomorphic_ring_all_reduce.hpp"
#include "support.hpp"

using namespace ccsim::collective;
using namespace ccsim::collective::testing;

namespace {

/// Uniform inputs in [0, 100): their quantization errors are close to uniform on [-eb, eb].
Buffers random_inputs(int p, std::uint64_t count, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(0.0, 100.0);
  Buffers buffers(static_cast<std::size_t>(p), std::vector<double>(count));
  for (auto& buffer : buffers) {
    for (double& x : buffer) x = uniform(engine);
  }
  return buffers;
}

}  // namespace

TEST_CASE("error model counts the compressions an element goes through", "[collective][error]") {
  CHECK(all_reduce_error("compressed-ring", 8).compressions == 8);
  CHECK(all_reduce_error("compressed-ring", 8, ResultCopy::kBest).compressions == 7);
  CHECK(all_reduce_error("homomorphic-ring", 8).compressions == 8);
  CHECK(all_reduce_error("homomorphic-ring", 8, ResultCopy::kBest).compressions == 8);
  CHECK(all_reduce_error("compressed-allgather", 8).compressions == 7);
  CHECK(all_reduce_error("ring", 8).compressions == 0);
  CHECK(all_reduce_error("hierarchical", 8).worst == 0.0);
  CHECK(all_reduce_error("compressed-ring", 1).compressions == 0);
  CHECK(all_reduce_error("compressed-ring", 16).worst == 16.0);
  // sqrt(2/pi) sqrt(k/3): k = 3 gives sqrt(2/pi) = 0.7979.
  CHECK(error_of_compressions(3).expected == Approx(std::sqrt(2 / std::numbers::pi)).epsilon(1e-12));
  CHECK(error_of_compressions(0).expected == 0.0);
  CHECK_THROWS_WITH(all_reduce_error("auto", 4), "all_reduce_error: \"auto\" is not an all_reduce algorithm");
  CHECK_THROWS_WITH(all_reduce_error("tree", 4), "all_reduce_error: \"tree\" is not an all_reduce algorithm");
  CHECK_THROWS_AS(all_reduce_error("ring", 0), std::invalid_argument);
}

TEST_CASE("error model's expected error matches the schedules on random data", "[collective][error]") {
  // Mean |error| over 20000 elements has a standard error under 1% of the expected value.
  const double eb = 0.125;
  const int p = 8;
  const std::uint64_t count = 20000;
  SECTION("homomorphic ring: p compressions everywhere") {
    Buffers buffers = random_inputs(p, count, 1);
    const std::vector<double> exact = sum_over_ranks(buffers);
    execute_in_memory(HomomorphicRingAllReduce(p, count, 4), buffers, grid_quantizer(eb));
    double total = 0;
    for (std::uint64_t i = 0; i < count; ++i) total += std::abs(buffers[0][i] - exact[i]);
    CHECK(total / count / eb == Approx(all_reduce_error("homomorphic-ring", p).expected).epsilon(0.03));
  }
  SECTION("compressed ring: p compressions on copies, p - 1 on the owner's") {
    Buffers buffers = random_inputs(p, count, 2);
    const std::vector<double> exact = sum_over_ranks(buffers);
    CompressedRingAllReduce ring(p, count, 4);
    execute_in_memory(ring, buffers, grid_quantizer(eb));
    double owned = 0;
    double copies = 0;
    for (int r = 0; r < p; ++r) {
      const Block own = ring.chunk(r, p);
      for (std::uint64_t i = 0; i < count; ++i) {
        const double error = std::abs(buffers[static_cast<std::size_t>(r)][i] - exact[i]);
        (i >= own.offset && i < own.offset + own.count ? owned : copies) += error;
      }
    }
    CHECK(owned / count / eb ==
          Approx(all_reduce_error("compressed-ring", p, ResultCopy::kBest).expected).epsilon(0.03));
    CHECK(copies / (count * (p - 1)) / eb == Approx(all_reduce_error("compressed-ring", p).expected).epsilon(0.03));
  }
}
