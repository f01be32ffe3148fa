#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/breakdown.hpp"
#include "report/comparison.hpp"
#include "report/document.hpp"

namespace ccsim::report {

/// What `ccsim report` says about its runs (docs/reports.md): the plain run's breakdown, plain
/// against compressed when there is a compressor, the assumptions, the cost and the figures.
struct ReportContent {
  std::string title;    ///< "ccsim report: TRACE on PLATFORM"
  std::string command;  ///< the command line that made the report
  /// The plain run, its summary set (make_summary). Must outlive report_document's call.
  const Breakdown* breakdown = nullptr;
  /// Plain against compressed, both summaries set; nullptr without a compressor.
  const Comparison* comparison = nullptr;
  /// The assumptions of the job and its settings ("trace: ...", "platform: ...", "set: ..."),
  /// listed before those the runs state (network, compute, placement, algorithms, error, notes).
  std::vector<std::string> job_assumptions;
  /// The cost's assumptions (study::CostStudy's), listed last, each after "cost: "; those of the
  /// network and compute ("network: ...", "compute: ...") are left out: the runs state them.
  std::vector<std::string> cost_assumptions;
  /// The cost section's sentence ("4 ranks on 1 node(s), 1,000 iterations.") and table rows
  /// ({what, plain[, compressed, saving]}); none: not computed.
  std::optional<std::string> cost_sentence;
  std::vector<std::vector<std::string>> cost_rows;
  std::vector<std::pair<std::string, std::string>> figures;  ///< image file (beside the report), caption
  std::string figures_skipped;                               ///< why there are none
};

/// The report as a Document (its Markdown and HTML): the summary block and table, the
/// assumptions, the time per operator kind, the breakdown (plain and compressed side by side
/// with a comparison), the cost and the figures, in that order.
Document report_document(const ReportContent& content);

/// The time per operator kind of each stage table, summed over its rows (mean over the stage's
/// ranks): what the stacked-bar figure shows. A send, receive or collective counts its
/// transfer under its name and its wait for peers (the pipeline bubble, a late member) under
/// kWaitingForPeers. Rows: {scope, kind, time ms} (plain) or {scope, kind, plain ms,
/// compressed ms} (compared), kinds in name order per table.
inline constexpr const char* kWaitingForPeers = "waiting for peers";
std::vector<std::vector<std::string>> kind_rows(const Breakdown& breakdown);
std::vector<std::vector<std::string>> kind_rows(const Comparison& comparison);

}  // namespace ccsim::report
