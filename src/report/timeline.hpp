#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/result.hpp"

namespace ccsim::report {

/// One replay in a timeline, under a name ("plain", "compressed"; empty for a single run).
struct TimelineRun {
  std::string name;
  /// The replay; each operator's stream (its track) is the result's (engine::Result::streams_of).
  const engine::Result* result = nullptr;
};

/// The most ranks a timeline holds unless asked for more (--timeline-ranks). A rank of GPT-3
/// 175B on 1,024 H100s (tp 8, pp 16, dp 8, 64 micro-batches, interleaved: 13,800 operators)
/// writes 1.7 MB of events; chrome://tracing fails to load files of some 256 MB and Perfetto
/// in a browser of some 2 GB, so 64 such ranks (110 MB, 220 MB for the two runs of compare
/// and whatif) still open in both.
inline constexpr int kTimelineRankLimit = 64;

/// Which ranks a timeline holds, as asked for on the command line (--timeline-ranks).
struct TimelineRankChoice {
  enum class Kind {
    kAuto,  ///< every rank of a job of at most kTimelineRankLimit ranks, else one rank per pipeline stage
    kAll,   ///< every rank
    kList,  ///< the ranks of `ranges`
  };
  Kind kind = Kind::kAuto;
  std::vector<std::pair<int, int>> ranges;  ///< kList: inclusive ranges of ranks, as given
  std::string text;                         ///< the value as given, for messages
};

/// Parses "auto", "all", or ranks and inclusive ranges separated by commas ("0,64,128-135").
/// Throws InputError (file "command line", field "--timeline-ranks") whose detail says what
/// is wrong: an empty item, a word that is none of these (with "did you mean"), a range whose
/// end is below its start.
TimelineRankChoice parse_timeline_ranks(std::string_view text);

/// Throws the InputError of parse_timeline_ranks for a listed rank that is not below
/// `world_size`.
void check_timeline_ranks(const TimelineRankChoice& choice, int world_size);

/// The ranks a timeline writes, and how they were chosen.
struct TimelineRanks {
  std::vector<int> ranks;  ///< ascending, distinct, each below world_size
  int world_size = 0;
  /// How they were chosen, in words: "every rank", "the first rank of each of the 16
  /// pipeline stages, as the job has more than 64 ranks", "the ranks asked for
  /// (--timeline-ranks 0-7)".
  std::string rule;
  /// Whether `auto` left ranks out: the user is told which were written and how to get others.
  bool limited = false;
};

/// The ranks of `result` that `choice` selects (check_timeline_ranks first: a rank beyond the
/// job is an std::out_of_range here). `auto` of a job of more than kTimelineRankLimit ranks
/// takes the lowest rank of each pipeline stage (engine::Result::stage), of kTimelineRankLimit
/// evenly spaced stages when there are more: where ranks are laid out by their coordinates
/// (Megatron's "tp,dp,pp" order and the like), one pipeline of one data-parallel replica.
TimelineRanks select_timeline_ranks(const TimelineRankChoice& choice, const engine::Result& result);

/// Ascending distinct ranks as a list of runs: "0-7,64,128-135".
std::string format_rank_list(const std::vector<int>& ranks);

/// What a user gives to get other ranks than those of `auto`, in words (for messages and metadata).
inline constexpr std::string_view kOtherRanksHint =
    "--timeline-ranks all, or ranks and ranges such as 0-7,64 (each rank adds its events to the file)";

/// Writes the replays as Chrome trace events (the JSON object form, `{"traceEvents": [...]}`,
/// which Perfetto and chrome://tracing open), the ranks of `ranks` only, as it goes (the
/// document is never whole in memory): one process per written rank and run (pid = rank, plus
/// the world size times the run's index), named "rank R (stage S)", one thread (track) per
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
/// ordered by process, then program order. "otherData" names the trace and the platform and
/// says which ranks were written, of how many, why, and how to get others.
void write_timeline(const std::vector<TimelineRun>& runs, const TimelineRanks& ranks, std::ostream& out);

/// write_timeline of every rank of the runs (which have one world size).
void write_timeline(const std::vector<TimelineRun>& runs, std::ostream& out);

/// The --timeline file: the timeline of `runs` with the ranks `ranks` selects (--timeline-ranks,
/// parse_timeline_ranks) written to `path` as it is made (core's write_output: never whole in
/// memory, "-" for standard output). Returns what to tell the user: "wrote FILE (N ranks of
/// M, X MB)\n" (" in each of K runs" for several), after a note of the ranks written and how to
/// get others when `auto` left ranks out; nothing is written and "" returned for an empty
/// `path` or no run.
std::string write_timeline_file(const std::string& path, const std::string& ranks,
                                const std::vector<TimelineRun>& runs);

}  // namespace ccsim::report
