#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/compute_model.hpp"
#include "engine/replay.hpp"
#include "engine/result.hpp"
#include "study/data_lookup.hpp"
#include "study/replay_setup.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::study {

/// A trace set up for its replays on one platform, as every simulating command sets it up.
struct ReplayJob {
  trace::Trace trace;  ///< compute durations as --compute made them (apply_compute)
  topology::Platform platform;
  engine::ReplayOptions options;  ///< as the settings say: compressed with --compress
  calibrate::ComputeAdjustment compute;
};

/// Which replays a command runs of its job.
enum class JobRuns {
  kAsSet,                ///< one replay, as the settings say ("", replay)
  kPlainThenCompressed,  ///< "plain" without compression, then "compressed" when the settings compress
};

/// What a command asks of the replays of its job.
struct JobRequest {
  JobRuns runs = JobRuns::kAsSet;
  bool wait_spans = false;      ///< engine::ReplayOptions::wait_spans of every replay (for a timeline)
  std::string plain_algorithm;  ///< the plain replay's all_reduce algorithm; empty: the settings'
  /// Lists the --set settings and setting_notes first among the last replay's notes (note_settings).
  bool note_settings = false;
  /// Called once the job is set up and before any simulation, which may take long: the caller's
  /// checks of its outputs. What it throws ends the job.
  std::function<void(const ReplayJob&)> before_replays;
};

/// A job and its replays, in the order they ran.
struct JobReplays {
  ReplayJob job;
  std::vector<std::string> labels;      ///< of each replay: "" (JobRuns::kAsSet), "plain", "compressed"
  std::vector<engine::Result> results;  ///< one per label
  /// setting_notes of the last replay, which the settings describe (empty without --set).
  std::vector<std::string> setting_notes;

  const engine::Result& last() const { return results.back(); }
  /// Each replay with its label, as study_cost and report::write_timeline take them.
  std::vector<std::pair<std::string, const engine::Result*>> runs() const;
};

/// Sets up `trace` for replays with `settings` (replay_platform, replay_options, then
/// apply_compute), calls `request.before_replays`, replays it as `request` says and notes the
/// settings. Errors are those of the steps, in that order.
JobReplays replay_job(trace::Trace trace, const ReplaySettings& settings, const JobRequest& request,
                      const DataLookup& lookup);

/// A trace replayed as it is (the baseline: the settings without --set) and with the changes of
/// --set (the what-if), each on its own platform and with its own --compute adjustment.
struct WhatIfReplays {
  JobReplays baseline;
  JobReplays what_if;
};

/// replay_job of `trace` twice, baseline then what-if, with `request` (its `runs` and
/// `note_settings` aside: one replay each, the notes as they come); both are set up, the
/// platforms and options before --compute, and `request.before_replays` sees the what-if's job
/// before either runs.
WhatIfReplays replay_what_if(trace::Trace trace, const ReplaySettings& settings, const JobRequest& request,
                             const DataLookup& lookup);

/// The notes of a what-if: the baseline's, then the what-if's and its setting notes, each
/// prefixed by its run's label ("baseline: ", "what_if: ").
std::vector<std::string> what_if_notes(const WhatIfReplays& replays);

/// The assumptions a cost or a report states of the settings: "set: KEY=VALUE (--set)" for each
/// --set setting, then "set: NOTE" for each of `setting_notes`.
std::vector<std::string> setting_assumptions(const ReplaySettings& settings,
                                             const std::vector<std::string>& setting_notes);

}  // namespace ccsim::study
