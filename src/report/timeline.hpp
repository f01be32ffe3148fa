#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engine/result.hpp"

namespace ccsim::report {

/// One replay in a timeline, under a name ("plain", "compressed"; empty for a single run).
struct TimelineRun {
  std::string name;
  const engine::Result* result = nullptr;
};

/// Writes the replays as Chrome trace events (the JSON object form, `{"traceEvents": [...]}`,
/// which Perfetto and chrome://tracing open): one process per rank and run, named "rank R
/// (stage S)", one complete event ("ph": "X", microseconds) per operator with its kind as
/// category and label, bytes and algorithm as arguments, and an "idle" event for every gap
/// between a rank's consecutive operators (the rank waits for nothing it issued: a pipeline
/// bubble or a late start), and a "wait" event, nested in its operator's, for every interval
/// the rank waited for peers inside a communication (engine::Result::waits: replays made with
/// ReplayOptions::wait_spans). Events are ordered by process, then time.
void write_timeline(const std::vector<TimelineRun>& runs, std::ostream& out);

/// Idle time of each rank: the gaps between its consecutive operators and from time 0 to its
/// first one (what the "idle" events show), in seconds.
std::vector<double> idle_by_rank(const engine::Result& result);

}  // namespace ccsim::report
