#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim {

// Units live in names (bytes, latency_s, bandwidth_Bps); these constants convert at the edges.
inline constexpr double kMillisecond = 1e-3;
inline constexpr double kMicrosecond = 1e-6;
inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kGB = 1e9;

/// Element type of a tensor on the wire.
enum class DType : std::uint8_t { kF32, kF16, kBF16, kF64, kI32, kI8, kU8 };

/// Bytes per element.
int dtype_bytes(DType dtype);
/// Canonical name: "fp32", "fp16", "bf16", "fp64", "int32", "int8", "uint8".
std::string_view dtype_name(DType dtype);
/// Accepts the canonical names and the PyTorch spellings ("float32", "float16", "bfloat16", ...).
std::optional<DType> parse_dtype(std::string_view text);
/// "fp32, fp16, bf16, fp64, int32, int8, uint8" for error messages.
std::string_view dtype_choices();
/// The canonical names of dtype_choices(), for "did you mean" (core/spelling.hpp).
const std::vector<std::string>& dtype_names();

}  // namespace ccsim
