#pragma once

namespace ccsim::cli {

// The exit codes of ccsim and ccsim-measure, listed by `ccsim --help` and README.md
// ("Exit codes"). Every malformed command line exits kUsage: CLI11's own codes (>= 100) are
// mapped to it where the parse fails (main.cpp, measure_main.cpp), and so is an
// UnknownNameError about a name given on the command line (main.cpp: an unknown --platform
// preset, --compress model or key; --set keys are checked by CLI11, option_values.hpp).
inline constexpr int kBadInput = 1;     ///< bad input: the message names file, line and field
inline constexpr int kUsage = 2;        ///< a malformed command line: unknown option or name, missing or bad value
inline constexpr int kStalled = 3;      ///< a simulation that cannot progress
inline constexpr int kInternal = 4;     ///< an internal error
inline constexpr int kCheckFailed = 5;  ///< ccsim-measure: a measured result failed its check

}  // namespace ccsim::cli
