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
/// which Perfetto and chrome://tracing open), as it goes (the document is never whole in
/// memory): one process per rank and run, named "rank R (stage S)", one thread (track) per
/// stream of the rank's operators, named "stream K" (events of one track nest: a stream runs
/// its operators one after another); one complete event ("ph": "X") per operator on its
/// stream's track, named after the operator and its label, its kind as category, its bytes
/// and algorithm (when it has them) as arguments; and a "wait" event (category "wait"),
/// nested in its operator's event, for every interval the rank waited for peers inside a
/// communication (engine::Result::waits: replays made with ReplayOptions::wait_spans): a
/// pipeline bubble is the wait of the receive that ends it, a late peer the wait of a
/// collective. A replay runs each stream's operators back to back from 0, so a rank's tracks
/// have no gaps to mark. "ts" and "dur" are microseconds with 3 decimals (nanoseconds), from
/// each event's start and end rounded, so that events that nest still nest. Events are
/// ordered by process, then program order. "otherData" names the trace and the platform.
void write_timeline(const std::vector<TimelineRun>& runs, std::ostream& out);

}  // namespace ccsim::report
