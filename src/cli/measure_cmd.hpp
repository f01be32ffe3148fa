#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "measure/measurement.hpp"
#include "measure/selection.hpp"

namespace ccsim::cli {

/// The options of `ccsim-measure` (and of `ccsim measure`, which starts it): registers them
/// on `app`, filling `options` and `output` when parsed. Values are checked in
/// finish_measure_options(), after parsing.
struct MeasureCommand {
  measure::MeasureOptions options;
  std::string output = "-";
  measure::Selection selection;  ///< checked into `options` by finish_measure_options()
};

/// Bound of --reps and --warmup.
inline constexpr std::int64_t kMaxRepetitions = 1000000;

void setup_measure_options(CLI::App& app, MeasureCommand& command);
/// Turns the textual options into MeasureOptions; throws InputError naming the option.
void finish_measure_options(MeasureCommand& command);

}  // namespace ccsim::cli
