#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

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
  /// Bytes on the wire for `raw_bytes` of data, rounded up to whole bytes. The model reader
  /// bounds the ratio (compress/model_reader.hpp) and the trace reader the sizes, so the
  /// quotient always fits; a ratio or size outside them is a bug, not a zero-byte message:
  /// converting an out-of-range double to an integer is undefined behaviour.
  std::uint64_t wire_bytes(std::uint64_t raw_bytes) const {
    if (ratio == 1.0) return raw_bytes;
    const double wire = std::ceil(static_cast<double>(raw_bytes) / ratio);
    if (!(ratio > 0) || !(wire < 18446744073709551616.0)) {  // 2^64; also catches NaN
      throw std::out_of_range("CompressorCost::wire_bytes: " + std::to_string(raw_bytes) + " bytes at ratio " +
                              std::to_string(ratio) + " do not fit in 64 bits");
    }
    return static_cast<std::uint64_t>(wire);
  }
};

}  // namespace ccsim::compress
