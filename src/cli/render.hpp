#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
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

template <typename Report>
std::string render(const Report& r, const std::string& format) {
  std::ostringstream text;
  render_to(r, format, text);
  return text.str();
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

/// Writes the runs' timeline (Chrome trace events) to `path` when --timeline was given.
inline void write_timeline_file(const std::string& path, const std::vector<report::TimelineRun>& runs) {
  if (path.empty()) return;
  std::ostringstream events;
  report::write_timeline(runs, events);
  write_output(path, events.str());
}

}  // namespace ccsim::cli
