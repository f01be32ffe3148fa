#pragma once

#include <bit>
#include <cstdint>

namespace ccsim::compress {

// Adding 1.5 * 2^23 rounds a float of magnitude below 2^22 to the nearest integer (ties to
// even), which then sits in the low mantissa bits: no float-to-int conversion (undefined for
// out-of-range values) is needed, and the result is the same on every path. The codecs that
// quantise (ccsz, int8) share it.
inline constexpr float kRoundMagic = 12582912.0f;
inline constexpr std::uint32_t kRoundMagicBits = 0x4B400000u;

/// round(v) (ties to even) for |v| < 2^22, without a float-to-int conversion.
inline std::int32_t round_magic(float v) {
  return static_cast<std::int32_t>(std::bit_cast<std::uint32_t>(v + kRoundMagic) - kRoundMagicBits);
}

}  // namespace ccsim::compress
