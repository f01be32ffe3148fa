#pragma once

#include <cstddef>
#include <string>

#include "compress/codec.hpp"

namespace ccsim::compress {

/// ZFP (libzfp) in fixed-accuracy mode on fp32 as a 1-D array, serial.
///
/// zfp's tolerance is not a strict bound: on real gradients a few elements in millions
/// come back slightly over it (see models/compressors/zfp.json), so error_bound() is
/// negative (no guarantee) and tolerance() reports what zfp was asked for.
///
/// Stream (little-endian): "CCZF", version 1, 3 zero bytes, u64 count, f64 tolerance,
/// u64 payload bytes, then zfp's bit stream without zfp's own header. A payload is decoded
/// from a zero-padded copy of zfp's maximum size, so a corrupt stream cannot make zfp
/// read past its buffer.
class ZfpCodec : public Codec {
 public:
  /// Throws std::invalid_argument unless tolerance > 0 and finite.
  explicit ZfpCodec(double tolerance);

  std::string spec() const override;
  std::string_view name() const override { return "zfp"; }
  std::size_t max_compressed_bytes(std::size_t count) const override;
  void compress(std::span<const float> in, std::vector<std::byte>& out) const override;
  std::size_t element_count(std::span<const std::byte> stream) const override;
  void decompress(std::span<const std::byte> stream, std::span<float> out) const override;

  double tolerance() const { return tolerance_; }

 private:
  double tolerance_;
};

}  // namespace ccsim::compress
