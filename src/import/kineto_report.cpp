#include "import/kineto_report.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace ccsim::import {
namespace {

std::string join_counts(const std::map<std::string, std::uint64_t>& counts) {
  std::string out;
  for (const auto& [name, n] : counts) out += fmt::format("{}{} x{}", out.empty() ? "" : ", ", name, n);
  return out;
}

/// The row of rank `r` in the check table: its iteration and operators' time, the summary's
/// times of the rank, and the check of its summary rows.
std::string rank_row(const KinetoRun& run, const RankImport& r) {
  const std::optional<RunSummary>& summary = run.summary;
  const auto per_rank = [&](const std::vector<double>& v) {
    return r.rank < static_cast<int>(v.size()) ? fmt::format("{:.3f}", v[static_cast<std::size_t>(r.rank)])
                                               : std::string("-");
  };
  std::string rows = "-";
  if (const std::optional<RowCheck> check = check_rows(run, r)) {
    rows = fmt::format("{}/{} rows, worst {} {:+.3f}", check->matched, check->rows, check->worst_row, check->worst_ms);
  }
  return fmt::format("  {:>4}  {:>12.3f}  {:>12.3f}  {:>7.3f}  {:>14}  {:>12}  {}\n", r.rank, r.iteration_ms, r.ops_ms,
                     100 * (r.ops_ms - r.iteration_ms) / r.iteration_ms,
                     summary ? per_rank(summary->unprofiled_rank_ms) : "-",
                     summary ? per_rank(summary->profiled_rank_ms) : "-", rows);
}

/// What rank `r` left out or did not understand: streams summarised, unknown events, events
/// that overlap or cross the iteration's end, nested calls.
std::string rank_notes(const RankImport& r) {
  std::string out;
  for (const auto& s : r.streams) {
    if (s.main || s.events == 0) continue;
    out += fmt::format("  rank {}: {} {} not imported (summarised): {} events, {:.3f} ms: {}\n", r.rank,
                       stream_kind_name(s.kind), s.id, s.events, s.busy_ms, join_counts(s.by_name));
  }
  if (!r.unknown.empty())
    out += fmt::format("  rank {}: events not understood (their time stays in the enclosing operator): {}\n", r.rank,
                       join_counts(r.unknown));
  if (r.not_nested > 0)
    out += fmt::format(
        "  rank {}: {} main-thread events overlap an enclosing event's end (treated as siblings, "
        "counted from that end)\n",
        r.rank, r.not_nested);
  if (r.crossing_iteration_end > 0)
    out += fmt::format("  rank {}: {} main-thread events end after {} (counted up to its end)\n", r.rank,
                       r.crossing_iteration_end, r.iteration);
  if (!r.nested_calls.empty())
    out += fmt::format("  rank {}: calls inside another call (the outer one counts for the whole time): {}\n", r.rank,
                       join_counts(r.nested_calls));
  return out;
}

}  // namespace

std::string check_report(const KinetoRun& run) {
  const KinetoImport& imported = run.imported;
  const trace::Trace& t = imported.trace;
  const std::optional<RunSummary>& summary = run.summary;
  std::string out = t.hardware
                        ? fmt::format("  hardware: \"{}\" ({})", t.hardware->name, t.hardware->source)
                        : std::string(
                              "  hardware: not recorded (no --hardware, no summary.json): replays keep the compute "
                              "durations and say so");
  out += "\n  check against the measurement, per rank (ms):\n";
  out += fmt::format("  {:>4}  {:>12}  {:>12}  {:>7}  {:>14}  {:>12}  {:>16}\n", "rank", "Iteration#", "operators",
                     "diff %", "unprofiled", "profiled", "summary rows");
  for (const RankImport& r : imported.ranks) out += rank_row(run, r);
  if (summary)
    out += fmt::format(
        "  {}: iteration time without the profiler {:.3f} ms, with it {:.3f} ms (median, max over ranks); "
        "summary rows are means over the profiled steps\n",
        run.summary_path, summary->unprofiled_ms, summary->profiled_ms);
  for (const RankImport& r : imported.ranks) out += rank_notes(r);
  return out;
}

}  // namespace ccsim::import
