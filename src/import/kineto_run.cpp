#include "import/kineto_run.hpp"

#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "trace/validate.hpp"

namespace ccsim::import {

KinetoRun import_kineto_run(const KinetoRequest& request) {
  namespace fs = std::filesystem;
  const std::vector<std::string> files = kineto_rank_files(request.inputs);
  std::vector<RankProfile> profiles;
  profiles.reserve(files.size());
  // Only the imported iteration's events are kept: a profile of many steps needs the memory of one.
  for (const std::string& f : files)
    profiles.push_back(read_rank_profile_file(f, ProfileWindow::iteration(request.iteration)));

  KinetoOptions options;
  options.iteration = request.iteration;
  const fs::path first(request.inputs.front());
  const std::string stem = fs::is_directory(first) ? fs::path(first).lexically_normal().filename().string()
                                                   : first.parent_path().filename().string();
  options.name = !request.name.empty()   ? request.name
                 : request.output != "-" ? fs::path(request.output).stem().string()
                                         : (stem.empty() ? std::string("kineto") : stem);
  std::string inputs;
  for (const auto& in : request.inputs) inputs += (inputs.empty() ? "" : " ") + in;
  options.source = "PyTorch profiler traces: " + inputs;
  KinetoRun run;
  // summary.json: given, or next to the rank files.
  run.summary_path = request.summary;
  if (run.summary_path.empty()) {
    const fs::path dir = fs::is_directory(first) ? first : first.parent_path();
    if (fs::is_regular_file(dir / "summary.json")) run.summary_path = (dir / "summary.json").string();
  }
  if (!run.summary_path.empty()) run.summary = read_run_summary(run.summary_path);

  if (request.hardware) {
    options.hardware = request.hardware();
  } else if (run.summary && !run.summary->hardware.empty()) {
    options.hardware = trace::Hardware{run.summary->hardware, 0, 0, fmt::format("{}: environment", run.summary_path)};
  }
  run.imported = import_kineto(profiles, options);
  // A mismatch found across ranks (a transfer's size, a collective's sequence) names the rank
  // file and event it came from.
  trace::validate(run.imported.trace, [&](int rank, std::size_t index) -> std::optional<SourceRef> {
    for (const RankImport& r : run.imported.ranks) {
      if (r.rank != rank || index >= r.op_event.size() || r.op_event[index] < 0) continue;
      return SourceRef{r.file, 0, fmt::format("traceEvents[{}]", r.op_event[index])};
    }
    return std::nullopt;
  });
  return run;
}

std::optional<RowCheck> check_rows(const KinetoRun& run, const RankImport& rank) {
  const auto r = static_cast<std::size_t>(rank.rank);
  if (!run.summary || r >= run.summary->rows.size() || run.summary->rows[r].empty()) return std::nullopt;
  const trace::Trace& t = run.imported.trace;
  std::map<std::string, double> mine;
  for (std::size_t i = 0; i < t.op_count(rank.rank); ++i) mine[breakdown_row(t, t.op(rank.rank, i))] += rank.op_ms[i];
  RowCheck check;
  check.rows = run.summary->rows[r].size();
  for (const auto& [row, ms] : run.summary->rows[r]) {
    if (mine.count(row)) ++check.matched;
    const double diff = mine[row] - ms;
    if (std::abs(diff) > std::abs(check.worst_ms)) check.worst_ms = diff, check.worst_row = row;
  }
  return check;
}

}  // namespace ccsim::import
