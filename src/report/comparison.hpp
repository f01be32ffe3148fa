#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "engine/result.hpp"
#include "report/breakdown.hpp"
#include "report/summary.hpp"

namespace ccsim::report {

/// One operator (or name) of a plain and a compressed run of the same trace.
struct ComparedRow {
  std::string name;
  std::string label;
  std::string plain_algorithm;
  std::string compressed_algorithm;
  double plain_s = 0;
  double compressed_s = 0;
  double plain_wait_s = 0;  ///< of plain_s and compressed_s, waiting for peers (Row::wait_s)
  double compressed_wait_s = 0;
  bool communication = false;  ///< a send, receive or collective (compute rows have no wait)
  double error_worst_eb = 0;   ///< of the compressed result, in units of eb
  double error_expected_eb = 0;
  bool is_collective() const { return !compressed_algorithm.empty(); }
  bool compressed() const { return error_worst_eb > 0; }
};

/// A stage (or rank) of both runs, side by side.
struct ComparedTable {
  std::string scope;
  int id = 0;
  std::vector<int> ranks;
  RowKey key = RowKey::kOperator;
  std::string by_name_because;  ///< Table::by_name_because of the first run's table
  std::vector<ComparedRow> rows;
  double plain_total_s = 0;
  double compressed_total_s = 0;
  double plain_wait_s = 0;  ///< the rows' wait, summed
  double compressed_wait_s = 0;
};

struct Comparison {
  /// The names of the two runs: text column headers ("plain ms") and JSON keys ("plain_ms").
  std::string a_label = "plain";
  std::string b_label = "compressed";
  /// What run b changes (`whatif`: its --set settings, in order); empty for plain vs compressed.
  std::vector<std::string> assumptions;
  std::string a_compression;  ///< the compression of run a ("none" for plain vs compressed)
  std::string trace_name;
  std::string platform_name;
  std::string network_model;
  std::string placement;
  std::string plain_algorithms;
  std::string compressed_algorithms;
  std::string compression;
  std::string compute;    ///< how compute durations were obtained, "" when not said
  std::string b_compute;  ///< the same for the second run (a what-if's may differ)
  std::vector<std::string> notes;
  double error_bound_abs = 0;  ///< NaN when unknown
  int world_size = 0;
  /// Nodes the ranks ran on in the first and the second run (engine::Result::nodes_used); 0
  /// when unknown.
  int a_nodes_used = 0, b_nodes_used = 0;
  int stage_count = 1;
  int iterations = 0;           ///< training iterations the trace holds; 0 when it does not say
  double plain_makespan_s = 0;  ///< the whole trace
  double compressed_makespan_s = 0;
  bool has_waits = false;  ///< both runs measured their waits: the wait columns are shown
  /// The summary blocks of both runs (report/summary.hpp), written first side by side; set by
  /// the caller, which knows the job's facts.
  std::optional<Summary> a_summary, b_summary;
  std::vector<ComparedTable> tables;
  /// Tables made one at a time as they are written, after `tables` (the runs' per-rank tables
  /// with BreakdownOptions::ranks_on_demand): `later_table(i)` makes the i-th of `later_count`.
  std::size_t later_count = 0;
  std::function<ComparedTable(std::size_t)> later_table;
};

/// Calls `visit` with each table of `c` in order: `tables`, then those made on demand.
void for_each_table(const Comparison& c, const std::function<void(const ComparedTable&)>& visit);

/// Pairs the breakdowns of two runs of the same trace (rows match by position). With
/// assumptions, the text and JSON forms describe a baseline and a what-if run (`ccsim whatif`).
/// With `options.ranks_on_demand`, the per-rank tables are paired as they are written, and the
/// comparison reads both results: it must not outlive them.
Comparison compare(const engine::Result& plain, const engine::Result& compressed, const BreakdownOptions& options);

void write_text(const Comparison& comparison, std::ostream& out);
void write_csv(const Comparison& comparison, std::ostream& out);
void write_json(const Comparison& comparison, std::ostream& out);

}  // namespace ccsim::report
