#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "report/breakdown.hpp"
#include "report/comparison.hpp"
#include "report/timeline.hpp"

namespace ccsim::cli {

/// A breakdown or a comparison in the output format of --format (text, csv or json): the one
/// dispatch of replay, compare, whatif and trace inspect.
template <typename Report>
void render_to(const Report& r, const std::string& format, std::ostream& out) {
  if (format == "csv") {
    report::write_csv(r, out);
  } else if (format == "json") {
    report::write_json(r, out);
  } else {
    report::write_text(r, out);
  }
}

/// render() made as it is written (write_output's OutputProducer): a report is never whole in
/// memory. `r` must outlive the producer.
template <typename Report>
OutputProducer rendering(const Report& r, const std::string& format) {
  return [&r, format](const OutputSink& sink) {
    SinkStream out(sink);
    render_to(r, format, out);
    out.flush();
  };
}

/// Adds --timeline-ranks to `sub` (after its --timeline), bound to `ranks`; a value that is
/// not auto, all or a list of ranks is a usage error.
inline void add_timeline_ranks_option(CLI::App* sub, std::string& ranks) {
  sub->add_option("--timeline-ranks", ranks,
                  fmt::format("Ranks the timeline holds: 'auto' (every rank of a job of up to {} ranks, else the "
                              "first rank of each pipeline stage), 'all', or ranks and ranges such as 0-7,64",
                              report::kTimelineRankLimit))
      ->check(CLI::Validator(
          [](const std::string& value) -> std::string {
            if (value.empty()) return "";  // refused as every option's empty value is (check_option_values)
            try {
              report::parse_timeline_ranks(value);
              return "";
            } catch (const InputError& e) {
              return e.detail();
            }
          },
          "auto|all|RANKS"))
      ->needs("--timeline")
      ->capture_default_str();
}

/// Throws the usage error (exit 2) of --timeline-ranks listing a rank beyond a job of
/// `world_size` ranks: for a check before the simulation.
inline void check_timeline_ranks(const std::string& ranks, int world_size) {
  try {
    report::check_timeline_ranks(report::parse_timeline_ranks(ranks), world_size);
  } catch (const InputError& e) {
    throw CLI::ValidationError("--timeline-ranks", e.detail());
  }
}

/// Writes the runs' timeline (Chrome trace events) of the ranks `ranks` selects to `path`
/// when --timeline was given, as it is made, and says on stderr what it wrote: "wrote FILE (N
/// ranks of M, X MB)", after a note of which ranks and how to get others when `auto` left
/// ranks out.
inline void write_timeline_file(const std::string& path, const std::string& ranks,
                                const std::vector<report::TimelineRun>& runs) {
  if (path.empty() || runs.empty()) return;
  const report::TimelineRanks selected =
      report::select_timeline_ranks(report::parse_timeline_ranks(ranks), *runs.front().result);
  std::uint64_t bytes = 0;
  write_output(path, [&](const OutputSink& sink) {
    SinkStream out([&](std::string_view chunk) {
      bytes += chunk.size();
      sink(chunk);
    });
    report::write_timeline(runs, selected, out);
    out.flush();
  });
  if (selected.limited) {
    fmt::print(stderr, "note: timeline: wrote {}: ranks {}; for others: {}\n", selected.rule,
               report::format_rank_list(selected.ranks), report::kOtherRanksHint);
  }
  const std::string size = bytes < 1'000'000 ? fmt::format("{:.1f} kB", static_cast<double>(bytes) / 1e3)
                                             : fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
  fmt::print(stderr, "wrote {} ({} ranks of {}{}, {})\n", path == "-" ? "the timeline to standard output" : path,
             selected.ranks.size(), selected.world_size,
             runs.size() > 1 ? fmt::format(" in each of {} runs", runs.size()) : "", size);
}

}  // namespace ccsim::cli
