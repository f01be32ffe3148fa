#pragma once

#include <cstddef>
#include <string>

#include "compress/codec.hpp"

namespace ccsim::compress {

/// Block quantisers without an a-priori error bound, meant for error feedback
/// (compress_with_feedback): `int8` and `onebit`, one fp32 scale per block.
///
/// * int8: s = max|x| / 127, q = round(x / s) in [-127, 127], x' = q * s (ZeRO++-style).
/// * onebit: s = mean|x|, one sign bit per element (set for x < 0), x' = +-s
///   (signSGD / 1-bit Adam with error feedback).
///
/// An all-zero block has s = 0 and decompresses to zeros. A block holding NaN or +-Inf
/// gets a NaN scale and decompresses to NaN throughout (the caller's data was already
/// unusable; error feedback would carry it on). Not homomorphic: scales differ per block.
///
/// Stream (little-endian): "CCI8" or "CC1B", version 1, 3 zero bytes, u32 block, u32 0,
/// u64 count; then per block an f32 scale and the block's n int8 values (int8) or
/// ceil(n / 8) bytes of sign bits, LSB first (onebit).
class QuantizeCodec : public Codec {
 public:
  enum class Kind { kInt8, kOneBit };
  static constexpr std::size_t kDefaultBlock = 256;
  static constexpr std::size_t kMaxBlock = std::size_t{1} << 20;

  /// Throws std::invalid_argument unless 1 <= block <= kMaxBlock.
  QuantizeCodec(Kind kind, std::size_t block = kDefaultBlock);

  std::string spec() const override;
  std::string_view name() const override { return kind_ == Kind::kInt8 ? "int8" : "onebit"; }
  std::size_t max_compressed_bytes(std::size_t count) const override;
  void compress(std::span<const float> in, std::vector<std::byte>& out) const override;
  std::size_t element_count(std::span<const std::byte> stream) const override;
  void decompress(std::span<const std::byte> stream, std::span<float> out) const override;
  void decompress_add(std::span<const std::byte> stream, std::span<float> out) const override;

 private:
  template <bool kAdd>
  void decode(std::span<const std::byte> stream, std::span<float> out) const;
  std::size_t payload_bytes(std::size_t n) const;

  Kind kind_;
  std::size_t block_;
};

}  // namespace ccsim::compress
