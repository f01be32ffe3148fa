#include <catch2/catch.hpp>

#include <cmath>

#include "collective/error_model.hpp"
#include "collective/homomorphic_ring_all_reduce.hpp"
#include "support.hpp"

using namespace ccsim::collective;
using namespace ccsim::collective::testing;

TEST_CASE("homomorphic ring gives every rank the exact sum of the quantized inputs", "[collective][homomorphic-ring]") {
  const double eb = 0.125;
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) {
      HomomorphicRingAllReduce ring(p, count, 4);
      Buffers buffers = off_grid_inputs(p, count);
      std::vector<double> quantized_sum(count, 0.0);
      const std::vector<double> exact = sum_over_ranks(buffers);
      for (const auto& buffer : buffers) {
        for (std::uint64_t i = 0; i < count; ++i) quantized_sum[i] += quantize(buffer[i], eb);
      }
      execute_in_memory(ring, buffers, grid_quantizer(eb));
      const double bound = all_reduce_error("homomorphic-ring", p).worst * eb + 1e-9;
      for (int r = 0; r < p; ++r) {
        for (std::uint64_t i = 0; i < count; ++i) {
          INFO("p=" << p << " count=" << count << " rank=" << r << " i=" << i);
          // p = 1 runs no steps: the input stays raw.
          REQUIRE(buffers[static_cast<std::size_t>(r)][i] == (p == 1 ? exact[i] : quantized_sum[i]));
          REQUIRE(std::abs(buffers[static_cast<std::size_t>(r)][i] - exact[i]) <= bound);
        }
      }
    }
  }
}

TEST_CASE("homomorphic ring compresses and decompresses once and adds compressed", "[collective][homomorphic-ring]") {
  ccsim::compress::CompressorCost codec;
  codec.ratio = 8;
  const std::uint64_t count = 5760;
  const std::uint64_t n = count * 4;
  for (int p : {2, 3, 4, 5, 6, 8, 9, 16}) {
    HomomorphicRingAllReduce ring(p, count, 4);
    Buffers buffers = distinct_inputs(p, count);
    ExecutionStats stats = execute_in_memory(ring, buffers);
    for (int r = 0; r < p; ++r) {
      INFO("p=" << p << " rank=" << r);
      const auto ur = static_cast<std::size_t>(r);
      CHECK(stats.bytes_sent[ur] == 0);
      CHECK(stats.compressed_bytes_sent[ur] == 2 * share(n, p - 1, p));
      CHECK(stats.bytes_added_compressed[ur] == share(n, p - 1, p));
      CHECK(stats.bytes_reduced[ur] == 0);
      CHECK(stats.bytes_compressed[ur] == n);
      CHECK(stats.bytes_decompressed[ur] == n);
    }
    CHECK(stats.messages == static_cast<std::size_t>(2 * p * (p - 1)));
    CHECK(compressed_wire_bytes(ring, codec) == static_cast<std::uint64_t>(p) * 2 * share(n, p - 1, p) / 8);
  }
}

TEST_CASE("homomorphic ring closed form", "[collective][homomorphic-ring]") {
  ccsim::compress::CompressorCost codec;
  codec.ratio = 4;
  codec.compress_t0_s = 10e-6;
  codec.compress_Bps = 10e9;
  codec.decompress_t0_s = 5e-6;
  codec.decompress_Bps = 20e9;
  codec.add_t0_s = 2e-6;
  codec.add_Bps = 50e9;
  const CostParams params = cost_params(2e-6, 1e-10, 2e-11, codec);
  for (int p : {2, 3, 8, 16, 1024}) {
    const double n = 1 << 22;
    const double expected = p * codec.compress_s(n / p) + 2 * (p - 1) * params.alpha_s +
                            2.0 * (p - 1) / p * (n / 4) * params.beta_s_per_byte + (p - 1) * codec.add_s(n / p) +
                            p * codec.decompress_s(n / p);
    INFO("p=" << p);
    CHECK(HomomorphicRingAllReduce(p, 1 << 20, 4).cost(params) == Approx(expected).epsilon(1e-12));
  }
  CHECK(HomomorphicRingAllReduce(1, 1 << 20, 4).cost(params) == 0.0);
  // By hand: p = 4, n = 1 MB, alpha = 1 us, beta = 1 ns/B: 4 C(250 kB) = 4 (10 + 25) = 140 us,
  // 6 us + 375 us on the wire, 3 H(250 kB) = 3 (2 + 5) = 21 us, 4 D(250 kB) = 4 (5 + 12.5) =
  // 70 us: 612 us.
  CHECK(HomomorphicRingAllReduce(4, 250000, 4).cost(cost_params(1e-6, 1e-9, 1e-10, codec)) ==
        Approx(612e-6).epsilon(1e-12));
}
