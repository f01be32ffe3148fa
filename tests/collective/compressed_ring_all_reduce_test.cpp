#include <catch2/catch.hpp>

#include <cmath>

#include "collective/compressed_ring_all_reduce.hpp"
#include "collective/error_model.hpp"
#include "support.hpp"

using namespace ccsim::collective;
using namespace ccsim::collective::testing;

namespace {

/// The compressor of the hand-computed examples: ratio 4, compress 10 us + 10 GB/s,
/// decompress 5 us + 20 GB/s, homomorphic add 2 us + 50 GB/s.
ccsim::compress::CompressorCost example_codec() {
  ccsim::compress::CompressorCost codec;
  codec.ratio = 4;
  codec.compress_t0_s = 10e-6;
  codec.compress_Bps = 10e9;
  codec.decompress_t0_s = 5e-6;
  codec.decompress_Bps = 20e9;
  codec.add_t0_s = 2e-6;
  codec.add_Bps = 50e9;
  return codec;
}

}  // namespace

TEST_CASE("compressed ring with a lossless compressor sums exactly", "[collective][compressed-ring]") {
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) require_all_reduced(CompressedRingAllReduce(p, count, 4));
  }
}

TEST_CASE("compressed ring stays within its error bound on every element", "[collective][compressed-ring]") {
  const double eb = 0.125;
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) {
      CompressedRingAllReduce ring(p, count, 4);
      Buffers buffers = off_grid_inputs(p, count);
      const std::vector<double> exact = sum_over_ranks(buffers);
      execute_in_memory(ring, buffers, grid_quantizer(eb));
      const double worst = all_reduce_error("compressed-ring", p, ResultCopy::kWorst).worst * eb + 1e-9;
      const double best = all_reduce_error("compressed-ring", p, ResultCopy::kBest).worst * eb + 1e-9;
      for (int r = 0; r < p; ++r) {
        const Block own = ring.chunk(r, p);
        for (std::uint64_t i = 0; i < count; ++i) {
          const bool owned = i >= own.offset && i < own.offset + own.count;
          INFO("p=" << p << " count=" << count << " rank=" << r << " i=" << i << " owned=" << owned);
          REQUIRE(std::abs(buffers[static_cast<std::size_t>(r)][i] - exact[i]) <= (owned ? best : worst));
        }
      }
    }
  }
}

TEST_CASE("compressed ring moves 2(p-1)/p of the buffer compressed and compresses it once",
          "[collective][compressed-ring]") {
  const auto codec = example_codec();
  const std::uint64_t count = 2880;  // n/p divisible by the ratio for every p below
  const std::uint64_t n = count * 4;
  for (int p : {2, 3, 4, 5, 6, 8, 9, 16}) {
    CompressedRingAllReduce ring(p, count, 4);
    Buffers buffers = distinct_inputs(p, count);
    ExecutionStats stats = execute_in_memory(ring, buffers);
    for (int r = 0; r < p; ++r) {
      INFO("p=" << p << " rank=" << r);
      const auto ur = static_cast<std::size_t>(r);
      CHECK(stats.bytes_sent[ur] == 0);
      CHECK(stats.compressed_bytes_sent[ur] == 2 * share(n, p - 1, p));
      CHECK(stats.compressed_bytes_received[ur] == 2 * share(n, p - 1, p));
      CHECK(stats.bytes_compressed[ur] == n);  // p - 1 chunks in reduce-scatter, the owned one once
      CHECK(stats.bytes_decompressed[ur] == 2 * share(n, p - 1, p));
      CHECK(stats.bytes_reduced[ur] == share(n, p - 1, p));
      CHECK(stats.bytes_added_compressed[ur] == 0);
    }
    CHECK(stats.messages == static_cast<std::size_t>(2 * p * (p - 1)));
    // On the wire: raw / ratio.
    CHECK(compressed_wire_bytes(ring, codec) == static_cast<std::uint64_t>(p) * 2 * share(n, p - 1, p) / 4);
  }
}

TEST_CASE("compressed ring closed form: ring terms on n/r plus compression terms", "[collective][compressed-ring]") {
  const auto codec = example_codec();
  const CostParams params = cost_params(2e-6, 1e-10, 2e-11, codec);
  for (int p : {2, 3, 8, 16, 1024}) {
    const double n = 1 << 22;
    const double m = n / p;
    const double expected = 2 * (p - 1) * params.alpha_s + 2.0 * (p - 1) / p * (n / 4) * params.beta_s_per_byte +
                            (p - 1) * (codec.compress_s(m) + codec.decompress_s(m) + m * params.gamma_s_per_byte) +
                            codec.compress_s(m) + (p - 1) * codec.decompress_s(m);
    INFO("p=" << p);
    CHECK(CompressedRingAllReduce(p, 1 << 20, 4).cost(params) == Approx(expected).epsilon(1e-12));
  }
  CHECK(CompressedRingAllReduce(1, 1 << 20, 4).cost(params) == 0.0);
  // By hand: p = 4, n = 1 MB (m = 250 kB), alpha = 1 us, beta = 1 ns/B, gamma = 0.1 ns/B, the
  // example codec: C(m) = 10 + 25 = 35 us, D(m) = 5 + 12.5 = 17.5 us, m gamma = 25 us.
  //   6 us + 1.5 * 250 kB * 1 ns/B = 375 us + 3 (35 + 17.5 + 25) = 232.5 us + 35 us + 3 * 17.5 us
  //   = 701 us.
  CHECK(CompressedRingAllReduce(4, 250000, 4).cost(cost_params(1e-6, 1e-9, 1e-10, codec)) ==
        Approx(701e-6).epsilon(1e-12));
}
