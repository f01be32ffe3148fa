#pragma once

#include <cstddef>
#include <string>

#include "compress/codec.hpp"

namespace ccsim::compress {

/// ccsz: an error-bounded, homomorphic lossy codec of fp32 in the SZx / fZ-light family.
///
/// Values are quantised on one grid anchored at zero, q = round(x / step), and a block of
/// `block` elements is stored as its smallest q (qmin) plus the residuals q - qmin
/// bit-packed with the block's bit width w (0..32); a block whose q are all equal (w = 0)
/// is a constant block and stores qmin only. Decompression is x' = q * step.
///
/// The bound is strict: every decompressed element is within `abs` of its input, float
/// rounding included. step is 2 * abs * (1 - 2^-9) rounded down to 12 significant bits, so
/// q * step is exact in float for |q| < 2^12 and the float rounding of x / step cannot push
/// an element over the bound; each element is nevertheless verified (|x - x'| compared in
/// float against a threshold one float below abs, so that rounding of the check itself
/// cannot hide an overrun). A block with any element that fails (NaN, +-Inf, |x / step| at
/// or above 2^22, where rounding is not exact, or a float rounding case the margin does not
/// cover) is stored raw: its floats verbatim, so NaN and Inf round-trip bit for bit.
///
/// Because the grid is shared, two streams of the same bound and block size add in the
/// integer domain (add_compressed): q = qa + qb, repacked with a new base and width, with
/// no conversion to float; each element's error is the sum of the two errors. A block that
/// is raw in either input, or whose sum leaves int32, becomes a raw block holding
/// float(a' + b'), the decompressed sum rounded once to float.
///
/// Stream (little-endian): "CCSZ", version 1, 3 zero bytes, u32 block, u32 0, u64 count,
/// f64 abs; then per block a tag byte w: 0..32 followed by i32 qmin and w * block / 8 bytes
/// of residuals (64 residuals per w 64-bit words, LSB first; the last, partial block is
/// padded to a full block), or 255 followed by the block's floats (count - start for the
/// last block). The AVX2 path (chosen at run time) and the portable path write identical
/// streams.
class CcszCodec : public Codec {
 public:
  static constexpr std::size_t kDefaultBlock = 128;
  static constexpr std::size_t kBlockMultiple = 64;
  static constexpr std::size_t kMaxBlock = 65536;

  /// Throws std::invalid_argument unless abs > 0 and finite and block is a multiple of 64
  /// up to kMaxBlock.
  explicit CcszCodec(double abs, std::size_t block = kDefaultBlock);

  std::string spec() const override;
  std::string_view name() const override { return "ccsz"; }
  std::size_t max_compressed_bytes(std::size_t count) const override;
  void compress(std::span<const float> in, std::vector<std::byte>& out) const override;
  std::size_t element_count(std::span<const std::byte> stream) const override;
  void decompress(std::span<const std::byte> stream, std::span<float> out) const override;
  void decompress_add(std::span<const std::byte> stream, std::span<float> out) const override;
  double error_bound() const override { return abs_; }
  bool homomorphic() const override { return true; }
  /// Throws CodecError when a or b is malformed or their count, bound or block differ.
  void add_compressed(std::span<const std::byte> a, std::span<const std::byte> b,
                      std::vector<std::byte>& out) const override;

  /// The grid step (see the class comment).
  float step() const { return step_; }

  /// Whether the AVX2 kernels are in use; set_portable(true) forces the portable ones
  /// (tests compare the two). Process-wide, not thread-safe against running codecs.
  static bool uses_avx2();
  static void set_portable(bool portable);

 private:
  template <bool kAdd>
  void decode(std::span<const std::byte> stream, std::span<float> out) const;

  double abs_;
  std::size_t block_;
  float step_;
  float inv_step_;
  float threshold_;
};

}  // namespace ccsim::compress
