#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engine/result.hpp"

namespace ccsim::report {

/// One replay in a timeline, under a name ("plain", "compressed"; empty for a single run).
struct TimelineRun {
  std::string name;
  /// The replay; each operator's stream (its track) is the result's (engine::Result::streams_of).
  const engine::Result* result = nullptr;
};

/// Writes the replays as Chrome trace events (the JSON object form, `{"traceEvents": [...]}`,
/// which Perfetto and chrome://tracing open): one process per rank and run, named "rank R
/// (stage S)", one thread (track) per stream of the rank's operators, named "stream K"
/// (events of one track nest: a stream runs its operators one after another), one complete
/// event ("ph": "X", microseconds) per operator on its stream's track with its kind as
/// category and label, bytes and algorithm as arguments, an "idle" event on stream 0's track
/// for every interval in which none of the rank's streams runs an operator (the rank waits
/// for nothing it issued: a pipeline bubble or a late start), and a "wait" event, nested in
/// its operator's, for every interval the rank waited for peers inside a communication
/// (engine::Result::waits: replays made with ReplayOptions::wait_spans). Events are ordered
/// by process, then program order.
void write_timeline(const std::vector<TimelineRun>& runs, std::ostream& out);

/// Idle time of each rank: the time from 0 to its last operator's end in which none of its
/// operators runs (what the "idle" events show), in seconds.
std::vector<double> idle_by_rank(const engine::Result& result);

}  // namespace ccsim::report
