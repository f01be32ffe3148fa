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
std::string render(const Report& r, const std::string& format) {
  std::ostringstream text;
  if (format == "csv") {
    report::write_csv(r, text);
  } else if (format == "json") {
    report::write_json(r, text);
  } else {
    report::write_text(r, text);
  }
  return text.str();
}

/// Writes the runs' timeline (Chrome trace events) to `path` when --timeline was given.
inline void write_timeline_file(const std::string& path, const std::vector<report::TimelineRun>& runs) {
  if (path.empty()) return;
  std::ostringstream events;
  report::write_timeline(runs, events);
  write_output(path, events.str());
}

}  // namespace ccsim::cli
