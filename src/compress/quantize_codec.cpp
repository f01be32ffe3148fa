#include "compress/quantize_codec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "compress/rounding.hpp"
#include "compress/stream_io.hpp"

namespace ccsim::compress {
namespace {

constexpr std::uint8_t kQuantizeVersion = 1;
constexpr std::size_t kQuantizeHeaderBytes = 24;
constexpr char kInt8Magic[5] = "CCI8";
constexpr char kOneBitMagic[5] = "CC1B";

}  // namespace

QuantizeCodec::QuantizeCodec(Kind kind, std::size_t block) : kind_(kind), block_(block) {
  if (block == 0 || block > kMaxBlock) throw std::invalid_argument(fmt::format("{}: bad block size {}", name(), block));
}

std::string QuantizeCodec::spec() const {
  if (block_ == kDefaultBlock) return std::string(name());
  return fmt::format("{}:block={}", name(), block_);
}

std::size_t QuantizeCodec::payload_bytes(std::size_t n) const { return kind_ == Kind::kInt8 ? n : (n + 7) / 8; }

std::size_t QuantizeCodec::max_compressed_bytes(std::size_t count) const {
  std::size_t full = count / block_, rest = count % block_;
  return kQuantizeHeaderBytes + full * (4 + payload_bytes(block_)) + (rest ? 4 + payload_bytes(rest) : 0);
}

void QuantizeCodec::compress(std::span<const float> in, std::vector<std::byte>& out) const {
  out.resize(max_compressed_bytes(in.size()));
  std::byte* p = put_magic(out.data(), kind_ == Kind::kInt8 ? kInt8Magic : kOneBitMagic, kQuantizeVersion);
  p = put(p, static_cast<std::uint32_t>(block_));
  p = put(p, std::uint32_t{0});
  p = put(p, static_cast<std::uint64_t>(in.size()));
  for (std::size_t start = 0; start < in.size(); start += block_) {
    const std::size_t n = std::min(block_, in.size() - start);
    const float* x = in.data() + start;
    if (kind_ == Kind::kInt8) {
      float amax = 0;
      for (std::size_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
      bool finite = true;
      for (std::size_t i = 0; i < n; ++i) finite &= std::isfinite(x[i]);
      float scale = !finite ? std::numeric_limits<float>::quiet_NaN() : amax / 127.0f;
      p = put(p, scale);
      const float inv = finite && amax > 0 ? 127.0f / amax : 0.0f;
      auto* q = reinterpret_cast<std::int8_t*>(p);
      for (std::size_t i = 0; i < n; ++i) {
        q[i] = static_cast<std::int8_t>(std::clamp(round_magic(x[i] * inv), -127, 127));
      }
      p += n;
    } else {
      double sum = 0;
      for (std::size_t i = 0; i < n; ++i) sum += std::fabs(x[i]);
      float scale = static_cast<float>(sum / static_cast<double>(n));
      if (!std::isfinite(scale)) scale = std::numeric_limits<float>::quiet_NaN();
      p = put(p, scale);
      const std::size_t bytes = (n + 7) / 8;
      for (std::size_t b = 0; b < bytes; ++b) {
        unsigned bits = 0;
        for (std::size_t j = 0; j < 8 && b * 8 + j < n; ++j) bits |= unsigned{x[b * 8 + j] < 0} << j;
        p[b] = static_cast<std::byte>(bits);
      }
      p += bytes;
    }
  }
}

std::size_t QuantizeCodec::element_count(std::span<const std::byte> stream) const {
  StreamReader r(stream, std::string(name()));
  r.expect_magic(kind_ == Kind::kInt8 ? kInt8Magic : kOneBitMagic, kQuantizeVersion);
  auto block = r.get<std::uint32_t>();
  r.get<std::uint32_t>();
  auto count = r.get<std::uint64_t>();
  if (block == 0 || block > kMaxBlock) r.fail(fmt::format("bad block size {}", block));
  // A block takes at least 5 bytes.
  if (count / block > r.remaining() / 5 + 1) r.fail(fmt::format("element count {} exceeds the stream", count));
  QuantizeCodec shape(kind_, block);
  if (shape.max_compressed_bytes(count) != stream.size()) {
    r.fail(fmt::format("stream of {} elements in blocks of {} needs {} bytes", count, block,
                       shape.max_compressed_bytes(count)));
  }
  return static_cast<std::size_t>(count);
}

template <bool kAdd>
void QuantizeCodec::decode(std::span<const std::byte> stream, std::span<float> out) const {
  const std::size_t count = element_count(stream);  // also checks the exact length
  if (count != out.size()) {
    throw CodecError(fmt::format("{}: stream has {} elements, expected {}", name(), count, out.size()));
  }
  std::uint32_t block;
  std::memcpy(&block, stream.data() + 8, sizeof block);
  const std::byte* p = stream.data() + kQuantizeHeaderBytes;
  for (std::size_t start = 0; start < count; start += block) {
    const std::size_t n = std::min<std::size_t>(block, count - start);
    float scale;
    std::memcpy(&scale, p, sizeof scale);
    p += 4;
    float* dst = out.data() + start;
    if (kind_ == Kind::kInt8) {
      const auto* q = reinterpret_cast<const std::int8_t*>(p);
      for (std::size_t i = 0; i < n; ++i) {
        float v = static_cast<float>(q[i]) * scale;
        if constexpr (kAdd) {
          dst[i] += v;
        } else {
          dst[i] = v;
        }
      }
      p += n;
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        bool negative = (std::to_integer<unsigned>(p[i / 8]) >> (i % 8)) & 1u;
        float v = negative ? -scale : scale;
        if constexpr (kAdd) {
          dst[i] += v;
        } else {
          dst[i] = v;
        }
      }
      p += (n + 7) / 8;
    }
  }
}

void QuantizeCodec::decompress(std::span<const std::byte> stream, std::span<float> out) const {
  decode<false>(stream, out);
}

void QuantizeCodec::decompress_add(std::span<const std::byte> stream, std::span<float> out) const {
  decode<true>(stream, out);
}

}  // namespace ccsim::compress
