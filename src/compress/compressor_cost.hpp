#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace ccsim::compress {

/// What compression costs and saves for one compressor at one setting, in the form the
/// collective schedules and the engine use: the ratio on the wire and affine times
/// t0 + bytes / throughput for compress, decompress and homomorphic add, where bytes are
/// always the uncompressed (raw) bytes processed. A default-constructed cost is "no
/// compression": ratio 1 and free operations.
struct CompressorCost {
  double ratio = 1.0;  ///< raw bytes / compressed bytes (>= 1 for a useful compressor)
  double compress_t0_s = 0;
  double compress_Bps = std::numeric_limits<double>::infinity();
  double decompress_t0_s = 0;
  double decompress_Bps = std::numeric_limits<double>::infinity();
  double add_t0_s = 0;  ///< homomorphic add of two compressed blocks
  double add_Bps = std::numeric_limits<double>::infinity();

  double compress_s(double raw_bytes) const { return compress_t0_s + raw_bytes / compress_Bps; }
  double decompress_s(double raw_bytes) const { return decompress_t0_s + raw_bytes / decompress_Bps; }
  double add_s(double raw_bytes) const { return add_t0_s + raw_bytes / add_Bps; }
  /// Bytes on the wire for `raw_bytes` of data, rounded up to whole bytes.
  std::uint64_t wire_bytes(std::uint64_t raw_bytes) const {
    if (ratio == 1.0) return raw_bytes;
    return static_cast<std::uint64_t>(std::ceil(static_cast<double>(raw_bytes) / ratio));
  }
};

}  // namespace ccsim::compress
