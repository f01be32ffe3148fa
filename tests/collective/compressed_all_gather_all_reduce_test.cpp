#include <catch2/catch.hpp>

#include <cmath>

#include "collective/compressed_all_gather_all_reduce.hpp"
#include "collective/error_model.hpp"
#include "support.hpp"

using namespace ccsim::collective;
using namespace ccsim::collective::testing;

TEST_CASE("compressed all-gather all_reduce: own input raw, the p - 1 others compressed once",
          "[collective][compressed-allgather]") {
  const double eb = 0.125;
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) {
      CompressedAllGatherAllReduce schedule(p, count, 4);
      Buffers buffers = off_grid_inputs(p, count);
      const Buffers inputs = buffers;
      const std::vector<double> exact = sum_over_ranks(buffers);
      execute_in_memory(schedule, buffers, grid_quantizer(eb));
      const double bound = all_reduce_error("compressed-allgather", p).worst * eb + 1e-9;
      for (int r = 0; r < p; ++r) {
        for (std::uint64_t i = 0; i < count; ++i) {
          double expected = 0;
          for (int s = 0; s < p; ++s) {
            const double x = inputs[static_cast<std::size_t>(s)][i];
            expected += s == r ? x : quantize(x, eb);
          }
          INFO("p=" << p << " count=" << count << " rank=" << r << " i=" << i);
          REQUIRE(buffers[static_cast<std::size_t>(r)][i] == Approx(expected).margin(1e-9));
          REQUIRE(std::abs(buffers[static_cast<std::size_t>(r)][i] - exact[i]) <= bound);
        }
      }
    }
  }
}

TEST_CASE("compressed all-gather all_reduce sends (p-1) n / r per rank", "[collective][compressed-allgather]") {
  ccsim::compress::CompressorCost codec;
  codec.ratio = 32;  // 1-bit sign of a 4-byte float, ignoring the scale
  const std::uint64_t count = 64;
  const std::uint64_t n = count * 4;
  for (int p : {2, 3, 4, 8, 16}) {
    CompressedAllGatherAllReduce schedule(p, count, 4);
    Buffers buffers = distinct_inputs(p, count);
    ExecutionStats stats = execute_in_memory(schedule, buffers);
    for (int r = 0; r < p; ++r) {
      INFO("p=" << p << " rank=" << r);
      const auto ur = static_cast<std::size_t>(r);
      const auto others = static_cast<std::uint64_t>(p - 1);
      CHECK(stats.bytes_sent[ur] == 0);
      CHECK(stats.compressed_bytes_sent[ur] == others * n);
      CHECK(stats.bytes_compressed[ur] == n);
      CHECK(stats.bytes_decompressed[ur] == others * n);
      CHECK(stats.bytes_reduced[ur] == others * n);
    }
    CHECK(stats.messages == static_cast<std::size_t>(p * (p - 1)));
    CHECK(compressed_wire_bytes(schedule, codec) == static_cast<std::uint64_t>(p * (p - 1)) * n / 32);
  }
}

TEST_CASE("compressed all-gather all_reduce closed form", "[collective][compressed-allgather]") {
  ccsim::compress::CompressorCost codec;
  codec.ratio = 4;
  codec.compress_t0_s = 10e-6;
  codec.compress_Bps = 10e9;
  codec.decompress_t0_s = 5e-6;
  codec.decompress_Bps = 20e9;
  const CostParams params = cost_params(2e-6, 1e-10, 2e-11, codec);
  for (int p : {2, 3, 8, 16, 1024}) {
    const double n = 1 << 22;
    const double expected = codec.compress_s(n) + (p - 1) * (params.alpha_s + n / 4 * params.beta_s_per_byte +
                                                             codec.decompress_s(n) + n * params.gamma_s_per_byte);
    INFO("p=" << p);
    CHECK(CompressedAllGatherAllReduce(p, 1 << 20, 4).cost(params) == Approx(expected).epsilon(1e-12));
  }
  CHECK(CompressedAllGatherAllReduce(1, 1 << 20, 4).cost(params) == 0.0);
  // By hand: p = 4, n = 1 MB, alpha = 1 us, beta = 1 ns/B, gamma = 0.1 ns/B: C(n) = 110 us, then
  // 3 (1 us + 250 us + D(n) = 55 us + 100 us) = 1218 us: 1328 us.
  CHECK(CompressedAllGatherAllReduce(4, 250000, 4).cost(cost_params(1e-6, 1e-9, 1e-10, codec)) ==
        Approx(1328e-6).epsilon(1e-12));
}
