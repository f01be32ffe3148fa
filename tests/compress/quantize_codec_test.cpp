#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "compress/quantize_codec.hpp"

using namespace ccsim::compress;

namespace {

std::vector<float> random_values(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<float> d(0.0f, 0.01f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace

TEST_CASE("int8 keeps each element within half a step of its block", "[codec]") {
  std::mt19937 rng(1);
  for (std::size_t block : {1, 7, 256, 1000}) {
    const QuantizeCodec codec(QuantizeCodec::Kind::kInt8, block);
    for (std::size_t n : {0, 1, 255, 256, 257, 3000}) {
      INFO("block " << block << " n " << n);
      std::vector<float> x = random_values(n, rng);
      if (n > 10) std::fill(x.begin(), x.begin() + 3, 0.0f);
      std::vector<std::byte> stream;
      codec.compress(x, stream);
      CHECK(stream.size() == codec.max_compressed_bytes(n));
      std::vector<float> y(n);
      codec.decompress(stream, y);
      for (std::size_t start = 0; start < n; start += block) {
        const std::size_t end = std::min(n, start + block);
        float amax = 0;
        for (std::size_t i = start; i < end; ++i) amax = std::max(amax, std::fabs(x[i]));
        const double s = amax / 127.0;
        for (std::size_t i = start; i < end; ++i) CHECK(std::fabs(static_cast<double>(x[i]) - y[i]) <= s * 0.5001);
      }
    }
  }
}

TEST_CASE("int8 and onebit: zero blocks stay zero, non-finite blocks become NaN", "[codec]") {
  for (auto kind : {QuantizeCodec::Kind::kInt8, QuantizeCodec::Kind::kOneBit}) {
    const QuantizeCodec codec(kind, 4);
    std::vector<float> x = {0, 0, 0, 0, 1, std::numeric_limits<float>::infinity(), 2, 3, -1, 1, -1, 1};
    std::vector<std::byte> stream;
    codec.compress(x, stream);
    std::vector<float> y(x.size());
    codec.decompress(stream, y);
    for (int i = 0; i < 4; ++i) CHECK(y[i] == 0.0f);
    for (int i = 4; i < 8; ++i) CHECK(std::isnan(y[i]));
    for (int i = 8; i < 12; ++i) CHECK(y[i] == x[i]);
  }
}

TEST_CASE("onebit sends signs and the mean magnitude of each block", "[codec]") {
  const QuantizeCodec codec(QuantizeCodec::Kind::kOneBit, 3);
  std::vector<float> x = {1, -2, 3, -0.5f, 0.0f, -0.0f, 4};
  std::vector<std::byte> stream;
  codec.compress(x, stream);
  CHECK(stream.size() == 24 + 3 * (4 + 1));
  std::vector<float> y(x.size());
  codec.decompress(stream, y);
  CHECK(y == std::vector<float>{2, -2, 2, -0.5f / 3, 0.5f / 3, 0.5f / 3, 4});
  std::vector<float> z(x.size(), 1.0f);
  codec.decompress_add(stream, z);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(z[i] == 1.0f + y[i]);
}
