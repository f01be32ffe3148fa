#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/result.hpp"

namespace ccsim::report {

/// What the summary needs beyond a replay's result: the job's workload (from the trace) and
/// the accelerator's peak rate (from the platform). A figure is 0 when unknown.
struct JobFacts {
  double tokens_per_iteration = 0;  ///< global batch x sequence length
  std::int64_t global_batch = 0;    ///< sequences per iteration (for the text only)
  std::int64_t sequence_length = 0;
  double model_flops_per_iteration = 0;  ///< the publication's count (trace::Workload::model_flops)
  std::string model_flops_source;
  /// FLOPs the trace's compute operators execute per iteration, summed over all ranks
  /// (recomputation included, as the trace runs it); 0 when none carries FLOPs.
  double executed_flops_per_iteration = 0;
  /// Compute operators (all ranks, the whole trace) without FLOPs: HFU is then a lower bound.
  std::uint64_t compute_ops_without_flops = 0;
  std::uint64_t compute_ops = 0;
  double peak_flops_per_rank = 0;  ///< the platform accelerator's FLOP/s (AcceleratorSpec::flops)
  std::string accelerator;         ///< its model, for the text
};

/// Where one rank's time goes: [0, end_s] cut into disjoint parts (docs/summary.md). At each
/// instant the rank is in the first of these states that applies:
///  1. compute: a compute operator runs (on any stream);
///  2. exposed communication of kind K: a transfer of a communication operator of kind K runs
///     (an operator's time minus its wait, engine::OpRecord::wait_s), no compute does;
///  3. pipeline bubble: the rank waits for its peer inside a send or receive, nothing above;
///  4. collective wait: it waits for peers inside a collective, nothing above;
///  5. idle: no operator runs.
/// An operator's wait is placed at its start (exact for send and receive, whose wait precedes
/// the transfer; for a collective on a rank with streams the wait may lie between its steps,
/// and only the split between states 2 to 4 can differ, never the compute or the total).
/// Overlapped communication: the time a transfer runs while compute runs as well.
struct TimeSplit {
  int rank = 0;
  double end_s = 0;
  double compute_s = 0;
  std::vector<std::pair<std::string, double>> exposed_by_kind;  ///< kind, in order of first appearance
  double bubble_s = 0;
  double collective_wait_s = 0;
  double idle_s = 0;
  double overlapped_s = 0;
  double exposed_s() const;
  /// (name, seconds) of every part, in the order above, adding up to end_s: "compute", the
  /// kinds ("all_reduce", "send", ...), "pipeline bubble", "collective wait", "idle".
  std::vector<std::pair<std::string, double>> parts() const;
};

TimeSplit split_time(const engine::Result& result, int rank);

/// A figure of the summary that may be unknown: the value, or why there is none.
struct Figure {
  std::optional<double> value;
  std::string note;  ///< with a value: what it rests on; without: why it is unknown
};

/// The figures a user asks first about a replay: iteration time, throughput, FLOPs
/// utilization, and where the critical rank's time goes. Per iteration when the trace says how
/// many it holds, else of the whole trace (then tokens/s and the utilizations are unknown).
struct Summary {
  int critical_rank = 0;  ///< the rank that finishes last (the lowest of equals)
  int critical_stage = 0;
  int iterations = 0;      ///< as the trace says; 0: unknown, figures are of the whole trace
  double iteration_s = 0;  ///< the makespan / iterations (the whole trace when unknown)
  Figure tokens_per_s;
  Figure mfu;       ///< model FLOPs per iteration / (iteration x world size x peak)
  Figure hfu;       ///< the trace's executed FLOPs per iteration / the same
  TimeSplit split;  ///< of the critical rank, per iteration (divided by iterations)
};

Summary make_summary(const engine::Result& result, const JobFacts& facts);

/// The summary block of one run, or of two side by side (compare, whatif: `runs` names them),
/// as text; as JSON, one object per run.
void write_summary_text(const std::vector<std::pair<std::string, const Summary*>>& runs, std::ostream& out);
nlohmann::ordered_json summary_json(const Summary& summary);

/// One figure of the summary as a CSV row (scope "summary", the figure in `operator`): each
/// table's writer lays the values out in its own columns.
struct SummaryCsvRow {
  std::string figure;                         ///< "iteration_ms", "tokens_per_s", "mfu_pct", ...
  std::string note;                           ///< "n/a: why" when unknown
  std::vector<std::optional<double>> values;  ///< per run, in the figure's unit
  bool is_time = false;                       ///< values in ms, and a share of the iteration exists
  std::vector<double> shares_pct;             ///< per run, for times
};
std::vector<SummaryCsvRow> summary_csv_rows(const std::vector<const Summary*>& runs);

/// "1,234,567.89": fixed notation with thousands separators, `decimals` after the point.
std::string format_thousands(double value, int decimals);

}  // namespace ccsim::report
