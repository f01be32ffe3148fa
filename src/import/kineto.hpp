#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "import/kineto_reader.hpp"
#include "import/run_summary.hpp"
#include "trace/trace.hpp"

namespace ccsim::import {

/// What `ccsim trace import kineto` does (traces/README.md, "Importing PyTorch profiler traces").
struct KinetoOptions {
  int iteration = -1;  ///< the k of Iteration#k to import; -1 = the first profiled one
  std::string name;    ///< the trace's name
  std::string source;  ///< what it was read from, for the trace's "source"
  int elem_bytes = 4;  ///< element size for the bytes of compute ops (Input Dims carry no dtype)
  /// The hardware the profile was measured on, written as the trace's "hardware"; none: not recorded.
  std::optional<trace::Hardware> hardware;
};

/// What one stream of a rank held during the imported iteration.
struct StreamSummary {
  StreamKind kind = StreamKind::kHostThread;
  std::string id;
  bool main = false;         ///< the training thread, imported operator by operator
  std::uint64_t events = 0;  ///< events that start inside the iteration
  double busy_ms = 0;        ///< sum of their durations (nested events counted once per level)
  std::map<std::string, std::uint64_t> by_name;
};

/// The import of one rank, with what the measurement says about it.
struct RankImport {
  std::string file;
  int rank = 0;
  std::string iteration;    ///< "Iteration#k"
  double iteration_ms = 0;  ///< the Iteration#k event's duration
  double ops_ms = 0;        ///< sum of the imported operators' measured durations
  /// Measured duration of each operator of Trace::ops[rank], in ms (collectives and
  /// transfers: the whole blocking call, including the wait; the native trace does not hold
  /// these, the replay simulates them).
  std::vector<double> op_ms;
  /// The traceEvents index of each collective's and transfer's ccl: event (-1 for compute,
  /// which gathers many events): where an error found after the import points.
  std::vector<std::int64_t> op_event;
  /// Events of the main thread inside the iteration that the importer does not understand,
  /// by name (their time stays in the enclosing operator), and other events not understood.
  std::map<std::string, std::uint64_t> unknown;
  std::uint64_t outside_iteration = 0;       ///< events of the file outside the imported iteration
  std::uint64_t not_nested = 0;              ///< main-thread events that overlap a sibling (not nested)
  std::uint64_t crossing_iteration_end = 0;  ///< main-thread events cut at the iteration's end
  /// ccl: events inside another ccl: event, by call ("ccl:all_reduce"): the outer call counts
  /// for the whole time, these are not operators of their own.
  std::map<std::string, std::uint64_t> nested_calls;
  std::vector<StreamSummary> streams;
};

struct KinetoImport {
  trace::Trace trace;
  std::vector<RankImport> ranks;  ///< in rank order
};

/// Builds the native trace of one iteration from one profile per rank (any order; each
/// rank exactly once).
KinetoImport import_kineto(const std::vector<RankProfile>& profiles, const KinetoOptions& options);

/// The rank files named by the command line: a directory contributes its rank<N>.json and
/// rank<N>.json.gz files (numeric order), a file itself. Throws InputError when there are
/// none, or when a rank has both.
std::vector<std::string> kineto_rank_files(const std::vector<std::string>& inputs);

/// The summary.json breakdown row an operator belongs to: "linear(attn.qkv)",
/// "all_reduce(tp:attn)", "python_untraced" for the CPU gaps.
std::string breakdown_row(const trace::Trace& trace, const trace::Op& op);

}  // namespace ccsim::import
