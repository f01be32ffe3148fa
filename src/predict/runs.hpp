#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/result.hpp"
#include "import/run_summary.hpp"
#include "predict/prediction.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

// The inputs of a prediction: the traced runs to fit on and the measured runs of the target.
namespace ccsim::predict {

/// A run to fit on, imported (a directory of rank files) or read (a native trace), with its trace.
struct LoadedRun {
  FittedRun run;
  trace::Trace trace;
};

/// Reads the run at `path`: a directory of rank<N>.json profiles (imported for `platform`'s
/// accelerator) or a native trace, and the summary.json beside it. Unless `keep_profiler`, the
/// compute durations are brought to the iteration time the summary measured without the profiler.
LoadedRun load_run(const std::string& path, const topology::Platform& platform, bool keep_profiler);

/// Multiplies the measured compute durations of `trace` by `factor`, and with `calls` the
/// measured times of its collectives and transfers too.
void scale_measured(trace::Trace& trace, double factor, bool calls);

/// The last component of `path` ("runs/dp2.json" -> "dp2.json", "runs/dp2/" -> "dp2").
std::string run_name(const std::string& path);

/// The runs of the configuration to predict (--config, each a summary.json): one run, or
/// repeats of one configuration, whose measurement is the median of their iteration times.
struct TargetRuns {
  std::optional<import::RunSummary> first;  ///< the configuration (the first summary), its probe the runs' mean
  std::vector<import::RunSummary> all;
  double measured_ms = -1;  ///< median over the runs that measured one, max over ranks
  std::string measured_from;
  std::vector<double> steps_ms;  ///< every timed step of the runs (max over ranks)
  int runs_with_steps = 0;
};

/// Reads the --config summaries; InputError for one without a configuration or of another
/// configuration than the first.
TargetRuns read_targets(const std::vector<std::string>& files);

/// The span of the positive `probes` (GFLOP/s).
ProbeSpan probe_span(const std::vector<double>& probes);

/// Per rank, mean over the ranks: the time `result`'s collectives spent waiting for their
/// peers (OpRecord::wait_s) and the rank's compute time, in ms.
std::pair<double, double> collective_wait_and_compute_ms(const trace::Trace& trace, const engine::Result& result);

}  // namespace ccsim::predict
