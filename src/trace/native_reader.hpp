#pragma once

#include <string>
#include <string_view>

#include "trace/trace.hpp"

namespace ccsim::trace {

/// Format tag and version of the native trace format (traces/README.md documents it).
inline constexpr std::string_view kNativeFormat = "ccsim-trace";
inline constexpr int kNativeVersion = 1;

/// Reads a native trace document strictly: unknown keys, wrong types, negative sizes,
/// out-of-range ranks and cross-rank inconsistencies are InputErrors naming file, line and
/// field. The result has passed validate().
Trace read_native(const std::string& path);
Trace parse_native(std::string_view text, const std::string& source);

}  // namespace ccsim::trace
