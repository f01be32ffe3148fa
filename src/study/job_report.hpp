#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/breakdown.hpp"
#include "report/comparison.hpp"
#include "report/figures.hpp"
#include "report/report_document.hpp"
#include "study/cost_study.hpp"
#include "study/replay_job.hpp"

namespace ccsim::study {

/// The breakdown of `result`, a replay of `job`, with its summary block (replay, report).
report::Breakdown job_breakdown(const ReplayJob& job, const engine::Result& result,
                                const report::BreakdownOptions& view);

/// Replay `a` against replay `b` of `job`, each with its summary block (compare: plain against
/// compressed; report).
report::Comparison job_comparison(const ReplayJob& job, const engine::Result& a, const engine::Result& b,
                                  const report::BreakdownOptions& view);

/// whatif's comparison: the baseline ("baseline") against the what-if ("what_if"), each with
/// the summary of its own job, the --set settings of `settings` as assumptions and the notes of
/// both runs (what_if_notes).
report::Comparison what_if_comparison(const WhatIfReplays& replays, const ReplaySettings& settings,
                                      const report::BreakdownOptions& view);

/// What `ccsim report` says of a job's replays: the plain breakdown, plain against compressed,
/// the cost, and the assumptions of the job.
struct JobReport {
  std::string title;                             ///< "ccsim report: TRACE on PLATFORM"
  report::Breakdown breakdown;                   ///< of the plain replay, its summary set
  std::optional<report::Comparison> comparison;  ///< plain against compressed, when compressed
  std::optional<CostStudy> cost;                 ///< when asked
  /// "trace: NAME (FILE), ...", "platform: NAME: DESCRIPTION", then setting_assumptions.
  std::vector<std::string> job_assumptions;
};

/// How a report is made of the replays.
struct JobReportOptions {
  std::string trace_file;  ///< as given, for the assumptions
  report::RowKey rows = report::RowKey::kName;
  std::optional<CostOptions> cost;  ///< checked (check_cost_options); none: no cost section
};

/// The report of `replays` (replay_job with JobRuns::kPlainThenCompressed: "plain" first, then
/// "compressed" if any) of a job set up with `settings`.
JobReport job_report(const JobReplays& replays, const ReplaySettings& settings, const JobReportOptions& options);

/// report.json, the data of the figures: the JSON documents replay, compare and cost print,
/// under "breakdown", "comparison" (when compressed) and "cost" (when asked).
std::string job_report_json(const JobReport& report);

/// What report::report_document renders of `report` (which must outlive it), made by
/// `command`, with `figures`.
report::ReportContent report_content(const JobReport& report, const std::string& command,
                                     const report::Figures& figures);

}  // namespace ccsim::study
