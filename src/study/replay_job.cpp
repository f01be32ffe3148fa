#include "study/replay_job.hpp"

#include <fmt/format.h>

namespace ccsim::study {
namespace {

/// The platform and engine options of `settings`, before --compute (which needs them both).
ReplayJob set_up_without_compute(trace::Trace trace, const ReplaySettings& settings, const DataLookup& lookup) {
  ReplayJob job;
  job.platform = replay_platform(settings, trace, lookup);
  job.options = replay_options(settings, job.platform, lookup);
  job.trace = std::move(trace);
  return job;
}

void apply_job_compute(ReplayJob& job, const ReplaySettings& settings, bool wait_spans, const DataLookup& lookup) {
  job.compute = apply_compute(settings, job.trace, job.platform, job.options, lookup);
  job.options.wait_spans = wait_spans;
}

void add_replay(JobReplays& out, std::string label, const engine::ReplayOptions& options) {
  out.results.push_back(engine::replay(out.job.trace, out.job.platform, options));
  out.labels.push_back(std::move(label));
}

/// The replays `request.runs` asks for, then the setting notes of the last one.
void run_replays(JobReplays& out, const ReplaySettings& settings, const JobRequest& request, const DataLookup& lookup) {
  if (request.runs == JobRuns::kAsSet) {
    add_replay(out, "", out.job.options);
  } else {
    engine::ReplayOptions plain = out.job.options;
    plain.compression = engine::CompressionOptions{};
    if (!request.plain_algorithm.empty()) plain.all_reduce_algorithm = request.plain_algorithm;
    add_replay(out, "plain", plain);
    if (out.job.options.compression.enabled()) add_replay(out, "compressed", out.job.options);
  }
  if (!settings.settings.empty()) {
    out.setting_notes =
        study::setting_notes(settings, out.job.trace, out.job.platform, out.last(), out.job.compute, lookup);
  }
}

}  // namespace

std::vector<std::pair<std::string, const engine::Result*>> JobReplays::runs() const {
  std::vector<std::pair<std::string, const engine::Result*>> out;
  for (std::size_t i = 0; i < results.size(); ++i) out.emplace_back(labels[i], &results[i]);
  return out;
}

JobReplays replay_job(trace::Trace trace, const ReplaySettings& settings, const JobRequest& request,
                      const DataLookup& lookup) {
  JobReplays out;
  out.job = set_up_without_compute(std::move(trace), settings, lookup);
  apply_job_compute(out.job, settings, request.wait_spans, lookup);
  if (request.before_replays) request.before_replays(out.job);
  run_replays(out, settings, request, lookup);
  if (request.note_settings) note_settings(settings, out.setting_notes, out.results.back());
  return out;
}

WhatIfReplays replay_what_if(trace::Trace trace, const ReplaySettings& settings, const JobRequest& request,
                             const DataLookup& lookup) {
  ReplaySettings baseline_settings = settings;
  baseline_settings.settings.clear();
  WhatIfReplays out;
  out.baseline.job = set_up_without_compute(trace, baseline_settings, lookup);
  out.what_if.job = set_up_without_compute(std::move(trace), settings, lookup);
  // --compute for each run's own accelerator, as replay does: the what-if is `replay --set ...`
  // (an accelerator.flops=x2 rescales compute measured elsewhere to the faster accelerator).
  apply_job_compute(out.baseline.job, baseline_settings, request.wait_spans, lookup);
  apply_job_compute(out.what_if.job, settings, request.wait_spans, lookup);
  if (request.before_replays) request.before_replays(out.what_if.job);
  JobRequest one = request;
  one.runs = JobRuns::kAsSet;
  run_replays(out.baseline, baseline_settings, one, lookup);
  run_replays(out.what_if, settings, one, lookup);
  return out;
}

std::vector<std::string> what_if_notes(const WhatIfReplays& replays) {
  std::vector<std::string> notes;
  for (const std::string& note : replays.baseline.last().notes) notes.push_back("baseline: " + note);
  for (const std::string& note : replays.what_if.last().notes) notes.push_back("what_if: " + note);
  for (const std::string& note : replays.what_if.setting_notes) notes.push_back("what_if: " + note);
  return notes;
}

std::vector<std::string> setting_assumptions(const ReplaySettings& settings,
                                             const std::vector<std::string>& setting_notes) {
  std::vector<std::string> out;
  for (const std::string& setting : settings.settings) out.push_back(fmt::format("set: {} (--set)", setting));
  for (const std::string& note : setting_notes) out.push_back("set: " + note);
  return out;
}

}  // namespace ccsim::study
