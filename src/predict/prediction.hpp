#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/compute_backend.hpp"
#include "calibrate/compute_fit.hpp"
#include "calibrate/compute_model.hpp"
#include "engine/result.hpp"
#include "import/run_summary.hpp"
#include "study/data_lookup.hpp"
#include "synth/megatron.hpp"
#include "trace/trace.hpp"

namespace ccsim::predict {

/// What to predict (`ccsim predict`): the traced runs to fit compute and the backend's
/// collectives on, and the configuration to synthesise and replay, from --config summaries
/// and sizes and a split that override theirs (or the first run, replayed as traced).
struct PredictOptions {
  /// Directories of rank<N>.json PyTorch profiles (with their summary.json), or native traces.
  std::vector<std::string> runs;
  /// summary.json of the run to predict: its configuration and measured time; several are
  /// repeats of one configuration, measured as the median of their times.
  std::vector<std::string> config;
  std::string model = "small-gpt";                            ///< preset or file the sizes apply to
  int layers = 0, hidden = 0, heads = 0, seq = 0, vocab = 0;  ///< 0: the configuration's, else the model's
  std::string act;         ///< relu | gelu; "": the configuration's, else the model's
  synth::Parallelism par;  ///< the split; fields not `given` yield to --config's
  /// Which fields of `par` were given (they override the configuration's).
  bool given_tp = false, given_pp = false, given_dp = false, given_micro_batches = false,
       given_micro_batch_size = false;
  std::optional<double> measured_ms;  ///< the measurement to compare with (--measured-ms), over --config's
  std::string platform = "local";     ///< NAME|FILE the runs were traced on and the prediction replays on
  bool keep_profiler = false;         ///< fit on the profiled durations as they are
  bool scale_speed = false;           ///< scale each run's measured times by its GEMM probe over the target's
  bool traced = false;                ///< replay the first run as traced instead of a synthesised trace
  calibrate::FlopExponent flop_exponent = calibrate::FlopExponent::kFit;
  /// The files the caller writes afterwards, (option, path): checked once the platform and the
  /// --config summaries are read, before the runs are loaded ("-" is standard output).
  std::vector<std::pair<std::string, std::string>> outputs;
  /// Called with a line of progress (no newline) as each run is read; may be empty.
  std::function<void(const std::string& line)> progress;
};

/// One traced run the compute model and the backend were fitted on (or left out of the fit).
struct FittedRun {
  std::string path;
  int ranks = 0;
  std::optional<import::RunSummary> summary;
  double iteration_ms = -1;    ///< the profiled iteration, max over ranks (-1: not known)
  double profiler_factor = 1;  ///< compute durations were multiplied by this
  double speed_factor = 1;     ///< scale_speed: measured times were multiplied by this
  /// Replayed as traced (a synthesised target only): per rank, mean over the ranks, the time
  /// its collectives spent waiting for peers, and its compute; -1 when not replayed.
  double collective_wait_ms = -1;
  double compute_ms = -1;
};

/// How far apart in speed the runs were made: the GEMM probes (summary.json) of the fitted
/// runs and of the target's runs, those that have one.
struct ProbeSpan {
  int runs = 0;
  double min = 0, max = 0;
};

/// A predicted iteration and everything it rests on; measured_ms > 0 when there is a
/// measurement to compare with.
struct Prediction {
  std::string target;    ///< what was replayed, in words
  std::string platform;  ///< the platform's name
  std::vector<FittedRun> runs;
  std::string sharing_note;               ///< which runs were fitted on, for the sharing of cores; "" when all
  std::vector<std::string> speed_notes;   ///< scale_speed: each run scaled, and by what
  calibrate::ComputeModel compute_model;  ///< fitted on the runs (least squares on absolute residuals)
  int compute_ops = 0;                    ///< operators it was fitted on
  calibrate::BackendFit backend;          ///< the traced backend's collectives as one tier
  std::string compute_note;               ///< how the replayed operators were timed
  std::string config_note;                ///< why --config's measurement is not compared; "" when it is
  trace::Trace trace;                     ///< the replayed trace
  engine::Result result;
  double predicted_ms = 0;
  double measured_ms = -1;
  std::string measured_from;
  std::vector<double> measured_steps_ms;          ///< the measurement's timed steps (max over ranks), when known
  int measured_step_runs = 0;                     ///< runs those steps come from
  std::vector<import::RunSummary> measured_runs;  ///< the --config summaries the measurement is the median of
  double target_probe_gflops = 0;                 ///< the target's GEMM probe (the mean of its runs'); 0: none
  ProbeSpan probes;
};

/// Loads and fits the runs, synthesises the target (or takes the first run as traced) and
/// replays it on the platform with the fitted compute and backend. `lookup` reads the platform
/// and its network model. Throws InputError for bad options or input, naming the file or the
/// option ("command line", "--measured-ms").
Prediction predict(const PredictOptions& options, const study::DataLookup& lookup);

/// The report of `ccsim predict` (text, and `--format json`); with `breakdown`, the replay's
/// per-operator breakdown too.
std::string prediction_text(const Prediction& prediction, bool breakdown);
std::string prediction_json(const Prediction& prediction, bool breakdown);

}  // namespace ccsim::predict
