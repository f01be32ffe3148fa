#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "collective/breakeven.hpp"
#include "collective/compressed_ring_all_reduce.hpp"
#include "collective/ring_all_reduce.hpp"

using namespace ccsim::collective;

namespace {

ccsim::compress::CompressorCost codec() {
  ccsim::compress::CompressorCost c;
  c.ratio = 4;
  c.compress_t0_s = 10e-6;
  c.compress_Bps = 10e9;
  c.decompress_t0_s = 5e-6;
  c.decompress_Bps = 20e9;
  return c;
}

ScheduleFactory ring(int p) {
  return [p](std::uint64_t count) { return std::make_unique<RingAllReduce>(p, count, 4); };
}

ScheduleFactory compressed_ring(int p) {
  return [p](std::uint64_t count) { return std::make_unique<CompressedRingAllReduce>(p, count, 4); };
}

/// A schedule whose closed form is not affine.
class Quadratic : public Schedule {
 public:
  using Schedule::Schedule;
  Algorithm algorithm() const override { return Algorithm::kRingAllReduce; }  // passes for the ring
  std::vector<Step> steps(int) const override { return {}; }
  double cost(const CostParams&) const override { return 1e-18 * static_cast<double>(bytes() * bytes()); }
};

}  // namespace

TEST_CASE("break-even of the compressed ring against the ring", "[collective][breakeven]") {
  // p = 8, alpha = 1 us, beta = 1 ns/B, gamma = 0.1 ns/B, ratio 4, C(x) = 10 us + x / 10 GB/s,
  // D(x) = 5 us + x / 20 GB/s. Compression wins iff 2(p-1)/p n beta (1 - 1/r) > p C(n/p) +
  // 2(p-1) D(n/p): 1.3125 n ns > 150 us + 0.1875 n ns, i.e. n > 150 us / 1.125 ns = 133333.3 B.
  const CostParams params = cost_params(1e-6, 1e-9, 1e-10, codec());
  const AffineCost plain = affine_cost(ring(8), params);
  const AffineCost compressed = affine_cost(compressed_ring(8), params);
  CHECK(plain.fixed_s == Approx(14e-6).epsilon(1e-12));
  CHECK(plain.per_byte_s == Approx(1.8375e-9).epsilon(1e-9));
  CHECK(compressed.fixed_s == Approx(164e-6).epsilon(1e-12));
  CHECK(compressed.per_byte_s == Approx(0.7125e-9).epsilon(1e-9));

  const BreakEven even = break_even(ring(8), compressed_ring(8), params);
  CHECK(even.bytes == Approx(150e-6 / 1.125e-9).epsilon(1e-9));
  CHECK(even.speedup_limit == Approx(1.8375 / 0.7125).epsilon(1e-9));
  // At the break-even size both closed forms agree; one element above, compression wins; one
  // below, it loses.
  CHECK(plain.at(even.bytes) == Approx(compressed.at(even.bytes)).epsilon(1e-12));
  const auto above = static_cast<std::uint64_t>(std::ceil(even.bytes / 4));
  CHECK(CompressedRingAllReduce(8, above, 4).cost(params) < RingAllReduce(8, above, 4).cost(params));
  CHECK(CompressedRingAllReduce(8, above - 1, 4).cost(params) > RingAllReduce(8, above - 1, 4).cost(params));
  CHECK(CompressedRingAllReduce(8, 100 * above, 4).cost(params) < RingAllReduce(8, 100 * above, 4).cost(params));
}

TEST_CASE("break-even through requests equals break-even through factories", "[collective][breakeven]") {
  const CostParams params = cost_params(1e-6, 1e-9, 1e-10, codec());
  Request plain;
  plain.algorithm = "ring";
  plain.size = 8;
  Request compressed = plain;
  compressed.algorithm = "compressed-ring";
  compressed.compression = Compression::kErrorBounded;
  CHECK(break_even(plain, compressed, params).bytes == Approx(break_even(ring(8), compressed_ring(8), params).bytes));
}

TEST_CASE("break-even: never, always, and the limits", "[collective][breakeven]") {
  const double inf = std::numeric_limits<double>::infinity();
  // A ratio of 1 only adds compression time: never.
  auto useless = codec();
  useless.ratio = 1;
  const BreakEven never = break_even(ring(8), compressed_ring(8), cost_params(1e-6, 1e-9, 1e-10, useless));
  CHECK(never.bytes == inf);
  CHECK(never.speedup_limit < 1);
  // Free compression with ratio 4: always, and the speedup tends to the gain on the wire.
  ccsim::compress::CompressorCost free;
  free.ratio = 4;
  const BreakEven always = break_even(ring(8), compressed_ring(8), cost_params(1e-6, 1e-9, 0, free));
  CHECK(always.bytes == 0.0);
  CHECK(always.speedup_limit == Approx(4.0).epsilon(1e-9));
  // Affine forms directly: equal slopes, cheaper fixed cost: always; dearer: never.
  CHECK(break_even(AffineCost{2, 1}, AffineCost{1, 1}).bytes == 0.0);
  CHECK(break_even(AffineCost{1, 1}, AffineCost{2, 1}).bytes == inf);
  CHECK(break_even(AffineCost{1, 1}, AffineCost{2, 1}).speedup_limit == 1.0);
  CHECK(break_even(AffineCost{1, 1}, AffineCost{2, 0}).speedup_limit == inf);
  CHECK(break_even(AffineCost{1, 2}, AffineCost{3, 1}).bytes == 2.0);
}

TEST_CASE("affine_cost refuses a closed form that is not affine", "[collective][breakeven]") {
  auto quadratic = [](std::uint64_t count) { return std::make_unique<Quadratic>(2, count, 1); };
  CHECK_THROWS_AS(affine_cost(quadratic, cost_params(0, 0, 0)), std::logic_error);
}
