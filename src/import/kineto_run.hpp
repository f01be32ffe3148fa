#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "import/kineto.hpp"
#include "import/run_summary.hpp"
#include "trace/trace.hpp"

namespace ccsim::import {

/// What `ccsim trace import kineto` imports: the rank files of one profiled run and how to
/// name and describe the trace they make.
struct KinetoRequest {
  std::vector<std::string> inputs;  ///< a directory of rank<N>.json[.gz] files, or the files (not empty)
  std::string output = "-";         ///< where the trace goes ("-": stdout): its stem names the trace
  std::string name;                 ///< the trace's name; empty: the output's stem, else the inputs' folder
  std::string summary;              ///< summary.json to check against; empty: the one next to the rank files
  int iteration = -1;               ///< Iteration#k; -1: the first profiled one
  /// The accelerator the profile was measured on (--hardware), asked once the rank files and
  /// the summary are read; unset: the machine summary.json names, without peak rates.
  std::function<trace::Hardware()> hardware;
};

/// One profiled run imported: the validated trace with what each rank's files said, and the
/// run's summary.json when there is one.
struct KinetoRun {
  KinetoImport imported;
  std::string summary_path;  ///< "" when there is no summary
  std::optional<RunSummary> summary;
};

/// Reads the rank files (only the imported iteration's events), the summary, imports and
/// validates the trace; a mismatch found across ranks names the rank file and event it came
/// from. Throws InputError.
KinetoRun import_kineto_run(const KinetoRequest& request);

/// How a rank's imported operators, summed per summary.json breakdown row (breakdown_row),
/// compare with the summary's rows of that rank.
struct RowCheck {
  std::size_t matched = 0;  ///< summary rows the import has too
  std::size_t rows = 0;     ///< the summary's rows of the rank
  std::string worst_row;    ///< the row farthest apart ("" when none differs)
  double worst_ms = 0;      ///< imported minus the summary's, of that row (signed)
};

/// The check of `rank` (an element of run.imported.ranks); none without a summary or when the
/// summary has no rows for the rank.
std::optional<RowCheck> check_rows(const KinetoRun& run, const RankImport& rank);

}  // namespace ccsim::import
