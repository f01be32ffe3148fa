#pragma once

namespace ccsim::cli {

// The exit codes of ccsim and ccsim-measure; CLI11 uses its own (>= 100) for malformed
// command lines.
inline constexpr int kBadInput = 1;     ///< bad input: the message names file, line and field
inline constexpr int kStalled = 3;      ///< a simulation that cannot progress
inline constexpr int kInternal = 4;     ///< an internal error
inline constexpr int kCheckFailed = 5;  ///< ccsim-measure: a measured result failed its check

}  // namespace ccsim::cli
