#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <vector>

#include "compress/compress_spec.hpp"
#include "compress/model_reader.hpp"
#include "compress/quantizer.hpp"

using namespace ccsim::compress;

namespace {

/// The first `count` elements (at most 65,536) of a slice of real fp32 gradients (raw
/// little-endian float32; tests/data/README.md says where the slice comes from).
std::vector<double> gradients(std::size_t count) {
  std::ifstream in(CCSIM_SOURCE_DIR "/tests/data/grads-step1-slice.f32", std::ios::binary);
  REQUIRE(in);
  std::vector<unsigned char> bytes(count * 4);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(static_cast<std::size_t>(in.gcount()) == bytes.size());
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t word = std::uint32_t{bytes[4 * i]} | std::uint32_t{bytes[4 * i + 1]} << 8 |
                         std::uint32_t{bytes[4 * i + 2]} << 16 | std::uint32_t{bytes[4 * i + 3]} << 24;
    values[i] = std::bit_cast<float>(word);
  }
  return values;
}

double value_range(const std::vector<double>& v) {
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *hi - *lo;
}

double max_error(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

}  // namespace

TEST_CASE("error-bounded quantization keeps every gradient within the bound", "[compress]") {
  const std::vector<double> original = gradients(65536);
  const double range = value_range(original);
  REQUIRE(range > 0);
  for (double relative : {1e-2, 1e-3, 1e-4}) {
    const double bound = relative * range;
    std::vector<double> values = original;
    quantize_error_bounded(values, bound);
    INFO("REL " << relative << ", bound " << bound);
    for (std::size_t i = 0; i < values.size(); ++i) {
      REQUIRE(std::abs(values[i] - original[i]) <= bound);
      double steps = values[i] / (2 * bound);
      REQUIRE(std::abs(steps - std::nearbyint(steps)) < 1e-9);  // on the common grid
    }
    CHECK(max_error(values, original) > 0.5 * bound);  // the bound is used, not wasted
  }
  std::vector<double> exact = original;
  quantize_error_bounded(exact, 0);
  CHECK(exact == original);
  CHECK_THROWS_AS(quantize_error_bounded(exact, -1), std::invalid_argument);
}

TEST_CASE("the round trip of a shipped error-bounded model respects its bound", "[compress]") {
  const std::vector<double> original = gradients(65536);
  CompressorModel cuszp = read_compressor_model(find_compressor("cuszp", {CCSIM_SOURCE_DIR "/models/compressors"}));
  Query q = parse_compress_spec("cuszp:eb=1e-3").query;
  const double range = value_range(original);
  const double bound = cuszp.absolute_error_bound(q, range);
  CHECK(bound == Approx(1e-3 * range));
  std::vector<double> values = original;
  make_round_trip(cuszp, q, range)(values);
  CHECK(max_error(values, original) <= bound);
}

TEST_CASE("int8 with a scale per block errs by at most half a step", "[compress]") {
  const std::vector<double> original = gradients(65536);
  const std::size_t block = 256;
  std::vector<double> values = original;
  quantize_symmetric(values, 8, block);
  for (std::size_t begin = 0; begin < original.size(); begin += block) {
    std::size_t end = std::min(original.size(), begin + block);
    double max_abs = 0;
    for (std::size_t i = begin; i < end; ++i) max_abs = std::max(max_abs, std::abs(original[i]));
    const double step = max_abs / 127;
    if (step == 0) continue;  // an all-zero block stays zero (checked below)
    for (std::size_t i = begin; i < end; ++i) {
      REQUIRE(std::abs(values[i] - original[i]) <= step / 2 * (1 + 1e-12));
      REQUIRE(std::abs(std::nearbyint(values[i] / step) - values[i] / step) < 1e-6);  // an int8 level
    }
  }
  std::vector<double> zeros(10, 0.0);
  quantize_symmetric(zeros, 8, 4);
  CHECK(zeros == std::vector<double>(10, 0.0));
}

TEST_CASE("1-bit sign quantization keeps each block's mean magnitude", "[compress]") {
  const std::vector<double> original = gradients(10000);
  const std::size_t block = 1000;
  std::vector<double> values = original;
  quantize_sign(values, block);
  for (std::size_t begin = 0; begin < original.size(); begin += block) {
    double l1 = 0;
    for (std::size_t i = begin; i < begin + block; ++i) l1 += std::abs(original[i]);
    const double scale = l1 / block;
    for (std::size_t i = begin; i < begin + block; ++i) {
      REQUIRE(std::abs(values[i]) == Approx(scale));
      REQUIRE((values[i] < 0) == (original[i] < 0));
    }
  }
  std::vector<double> tail = {1.0, -3.0, 2.0, 5.0, -7.0};
  quantize_sign(tail, 2);  // blocks {1, -3}, {2, 5}, {-7}
  CHECK(tail == std::vector<double>{2.0, -2.0, 3.5, 3.5, -7.0});
}

TEST_CASE("top-k keeps the largest magnitudes", "[compress]") {
  const std::vector<double> original = gradients(65536);
  std::vector<double> values = original;
  sparsify_top_k(values, 0.01);
  std::size_t kept =
      static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [](double x) { return x != 0; }));
  CHECK(kept == 656);  // ceil(0.01 * 65536)
  double smallest_kept = INFINITY;
  double largest_dropped = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] != 0) {
      REQUIRE(values[i] == original[i]);
      smallest_kept = std::min(smallest_kept, std::abs(original[i]));
    } else {
      largest_dropped = std::max(largest_dropped, std::abs(original[i]));
    }
  }
  CHECK(smallest_kept >= largest_dropped);
  std::vector<double> ties = {1.0, -1.0, 1.0, 0.5};
  sparsify_top_k(ties, 0.5);
  CHECK(ties == std::vector<double>{1.0, -1.0, 0.0, 0.0});
}

TEST_CASE("error feedback carries what a round trip drops into the next step", "[compress]") {
  const std::vector<double> grads = gradients(3000);
  ErrorFeedback feedback([](std::span<double> v) { quantize_sign(v, 100); });
  std::vector<double> sent_total(1000, 0.0);
  std::vector<double> given_total(1000, 0.0);
  for (int step = 0; step < 3; ++step) {
    std::vector<double> buffer(grads.begin() + step * 1000, grads.begin() + (step + 1) * 1000);
    for (std::size_t i = 0; i < buffer.size(); ++i) given_total[i] += buffer[i];
    feedback.apply(buffer);
    for (std::size_t i = 0; i < buffer.size(); ++i) sent_total[i] += buffer[i];
  }
  // Everything given was sent, except what is still held back: sent + residual == given.
  for (std::size_t i = 0; i < sent_total.size(); ++i) {
    REQUIRE(sent_total[i] + feedback.residual()[i] == Approx(given_total[i]).margin(1e-12));
  }
  std::vector<double> wrong(5, 0.0);
  CHECK_THROWS_AS(feedback.apply(wrong), std::invalid_argument);
}
