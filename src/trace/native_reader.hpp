#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/trace.hpp"

namespace ccsim::trace {

/// Format tag and version of the native trace format (traces/README.md documents it).
inline constexpr std::string_view kNativeFormat = "ccsim-trace";
inline constexpr int kNativeVersion = 2;  ///< the version written by default; 1 still reads and writes

/// Limits on the values of a trace (traces/README.md): physically meaningful maxima, far
/// above any real job, that keep every derived time and size finite and exact.
inline constexpr double kMaxDurationMs = 365.25 * 24 * 3600 * 1e3;  ///< an operator runs at most a year
inline constexpr double kMaxFlops = 1e24;                           ///< about a year of a 30 PFLOP/s accelerator
inline constexpr double kMaxWorkloadFlops = 1e30;                   ///< workload.model_flops: FLOPs of one iteration
inline constexpr double kMaxPeakFlops = 1e21;                       ///< hardware.peak_flops: a zettaFLOP/s processor
inline constexpr double kMaxMemoryBps = 1e18;                       ///< hardware.memory_bandwidth: an exabyte/s
inline constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 50;  ///< 1 PiB per operator or message

/// Reads a native trace document strictly: unknown keys, wrong types, negative sizes,
/// out-of-range ranks and cross-rank inconsistencies are InputErrors naming file, line and
/// field. The result has passed validate().
Trace read_native(const std::string& path);
Trace parse_native(std::string_view text, const std::string& source);

}  // namespace ccsim::trace
