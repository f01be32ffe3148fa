#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "measure/measurement.hpp"

namespace ccsim::cli {

/// The options of `ccsim-measure` (and of `ccsim measure`, which starts it): registers them
/// on `app`, filling `options` and `output` when parsed. Values are checked in
/// finish_measure_options(), after parsing.
struct MeasureCommand {
  measure::MeasureOptions options;
  std::string output = "-";
  std::string ops = "all_reduce";
  std::string algorithms = "mpi,ring";
  std::string transports = "mpi";
  std::string sizes = "1KiB:64MiB:x4";
  std::string layout;
  std::string groups = "world";
};

/// Bounds of --reps and --warmup, and of --np (ccsim measure's launcher checks it too).
inline constexpr std::int64_t kMaxRepetitions = 1000000;
inline constexpr std::int64_t kMaxProcesses = 1 << 20;

void setup_measure_options(CLI::App& app, MeasureCommand& command);
/// Turns the textual options into MeasureOptions; throws InputError naming the option.
void finish_measure_options(MeasureCommand& command);

/// "1KiB:256MiB" (powers of two), "1KiB:256MiB:x4" (every factor of 4), or a list
/// "4KiB,1MiB,3MB"; throws InputError (field `field`).
std::vector<std::uint64_t> parse_size_list(const std::string& text, const std::string& field);

}  // namespace ccsim::cli
