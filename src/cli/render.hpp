#pragma once

#include <string>

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

}  // namespace ccsim::cli
