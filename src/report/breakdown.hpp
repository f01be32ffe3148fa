#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "engine/result.hpp"
#include "report/summary.hpp"

namespace ccsim::report {

/// How the rows of a breakdown are formed.
enum class RowKey : std::uint8_t {
  kOperator,  ///< one row per operator of the iteration, in program order (the published form)
  kName,      ///< one row per operator name (and label), summed over its calls
  /// One row per part of each rank's time (report/summary.hpp, TimeSplit): compute, exposed
  /// communication by kind, pipeline bubble, collective wait, idle; they add up to the total.
  kKind,
  /// kOperator for a table whose ranks run at most kAutoOperatorRows operators, kName beyond
  /// (a synthesized stage of thousands of operators reads as a page, not 14,000 lines).
  kAuto,
};

/// The rows of --rows `text`: "auto", "name", "kind", else (as "operator") RowKey::kOperator.
RowKey row_key_of(const std::string& text);

/// The most operators per rank that RowKey::kAuto lists one by one.
inline constexpr std::size_t kAutoOperatorRows = 100;

/// One row: an operator (or a name), its time per iteration and its share of the iteration.
struct Row {
  std::string name;
  std::string label;
  std::uint64_t calls = 0;  ///< operators merged into this row: the most any rank of the table ran
  double time_s = 0;        ///< mean over the table's ranks
  double share = 0;         ///< time_s / the table's total_s
  /// Part of time_s spent waiting for peers (engine::OpRecord::wait_s; report/README.md,
  /// "Wait"), mean over the table's ranks.
  double wait_s = 0;
  bool communication = false;  ///< a send, receive or collective (compute rows have no wait)
  /// Part of time_s during which an operator of another stream of the rank ran (the
  /// operator overlapped it), mean over the table's ranks; 0 without streams.
  double overlap_s = 0;
  std::string algorithm;      ///< collectives: the algorithm that ran (first rank's)
  double error_worst_eb = 0;  ///< compressed collectives: error of the result in units of eb
  double error_expected_eb = 0;
};

/// A breakdown of one rank, or of one pipeline stage (mean over its ranks).
struct Table {
  std::string scope;  ///< "stage" or "rank"
  int id = 0;         ///< stage or rank number
  std::vector<int> ranks;
  RowKey key = RowKey::kOperator;
  /// Why the rows are by name where rows by operator were asked for (or chosen by kAuto):
  /// "its ranks run different operators", "13,824 operators per rank"; empty otherwise. The
  /// report says it beside the table's title.
  std::string by_name_because;
  std::vector<Row> rows;
  double total_s = 0;  ///< mean iteration time of the ranks (their last operator's end)
  double wait_s = 0;   ///< the rows' wait, summed
};

struct Breakdown {
  std::string trace_name;
  std::string platform_name;
  std::string network_model;
  std::string algorithm;
  std::string placement;
  std::string compression;
  std::string compute;  ///< how compute durations were obtained, "" when not said
  std::vector<std::string> notes;
  double error_bound_abs = 0;  ///< of one compression; NaN when unknown, +inf when unbounded
  int world_size = 0;
  int nodes_used = 0;  ///< nodes the ranks ran on (engine::Result::nodes_used); 0 when unknown
  int stage_count = 1;
  int iterations = 0;        ///< training iterations the trace holds; 0 when it does not say
  double makespan_s = 0;     ///< the whole trace
  bool has_waits = false;    ///< engine::Result::has_waits: the wait column is shown
  bool has_streams = false;  ///< some rank ran operators on several streams: the overlap column is shown
  /// The summary block, written first (text, CSV rows of scope "summary", JSON "summary"); set
  /// by the caller, which knows the job's facts (make_summary).
  std::optional<Summary> summary;
  std::vector<Table> tables;
  /// Tables made one at a time as they are written, after `tables`
  /// (BreakdownOptions::ranks_on_demand): `later_table(i)` makes the i-th of `later_count`.
  std::size_t later_count = 0;
  std::function<Table(std::size_t)> later_table;
};

/// Calls `visit` with each table of `b` in order: `tables`, then the tables made on demand,
/// each made, visited and let go in turn.
void for_each_table(const Breakdown& b, const std::function<void(const Table&)>& visit);

struct BreakdownOptions {
  RowKey key = RowKey::kOperator;
  bool per_stage = true;
  bool per_rank = false;
  /// With per_rank: each rank's table is made when it is written (Breakdown::later_table), so
  /// that the tables of 10,240 ranks are never in memory at once. The breakdown then reads the
  /// result: it must not outlive it.
  bool ranks_on_demand = false;
};

/// Builds the per-operator breakdown from a simulation result. A stage whose ranks do not
/// run the same operator sequence cannot be shown per operator and falls back to names.
Breakdown make_breakdown(const engine::Result& result, const BreakdownOptions& options);

/// The error of a compressed result, "worst / expected": absolute when `eb` (the bound of one
/// compression) is finite, in units of eb when it is unknown (NaN: a relative bound without a
/// value range), "no bound" for compressors without one (+inf); empty for an exact result.
std::string format_error(double worst_eb, double expected_eb, double eb);

/// What the simulated time of a whole trace is, as a report says it: "iteration 12.000 ms"
/// for a trace of one iteration, "trace total 24.000 ms, 2 iterations, 12.000 ms per
/// iteration", or "trace total 24.000 ms (the trace does not say how many iterations it
/// holds)": a sum of several iterations is never called an iteration.
std::string format_span(double total_s, int iterations);

/// " on 1 node", " on 4 nodes"; "" for 0 (not known: a trace's own durations).
std::string on_nodes(int nodes);

/// A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& text);

/// "0-3, 8, 10-11"
std::string format_ranks(const std::vector<int>& ranks);

void write_text(const Breakdown& breakdown, std::ostream& out);
void write_csv(const Breakdown& breakdown, std::ostream& out);
void write_json(const Breakdown& breakdown, std::ostream& out);

}  // namespace ccsim::report
