#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "calibrate/measurement_file.hpp"

namespace ccsim::calibrate {

/// The formats calibration reads measurements from (models/README.md, "Measurements from
/// other benchmarks"). Each becomes a MeasurementFile: one all_reduce series (or p2p
/// ping-pong points for osu_latency) that `calibrate network` and `validate` fit and check
/// like a series of `ccsim measure`.
enum class BenchmarkFormat {
  kCcsim,      ///< ccsim-measurements JSON (ccsim measure)
  kOsu,        ///< OSU micro-benchmarks text output: osu_allreduce, osu_latency
  kNcclTests,  ///< nccl-tests text output of all_reduce_perf
  kCsv,        ///< CSV with a header: bytes, time_us or time_s, optional ranks/algorithm/transport
};

/// What the file's content says it is: JSON object -> ccsim, "# OSU" -> OSU, a nccl-tests
/// header (nThread/nGpus or "Collective test starting") -> nccl-tests, else CSV.
BenchmarkFormat detect_benchmark_format(std::string_view text);
const char* format_name(BenchmarkFormat format);

/// Reads measurements in any of the formats above. `ranks` is the process count of the run
/// where the file does not say it (OSU allreduce output, CSV without a ranks column); given
/// for a file that says it, it must agree. Errors name file, line and field (column).
MeasurementFile read_any_measurements(const std::string& path, std::optional<int> ranks = std::nullopt);
MeasurementFile parse_benchmark_output(std::string_view text, const std::string& source,
                                       std::optional<int> ranks = std::nullopt);

}  // namespace ccsim::calibrate
