#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ccsim::report {

/// The figures of a report, or why there are none.
struct Figures {
  std::vector<std::pair<std::string, std::string>> images;  ///< file name (in the report's directory), caption
  std::string skipped;                                      ///< "figures skipped: ...", when there are none
};

/// The exit status of the figures script when matplotlib cannot be imported; its last line
/// of output says so.
inline constexpr int kFiguresMissingModule = 3;

/// The interpreter that runs the figures script: $CCSIM_PYTHON when set and not empty, else
/// Debian's /usr/bin/python3.
std::string figures_python();

/// Runs `python` `script` DIR/report.json DIR (scripts/report_figures.py: it writes PNGs into
/// DIR and prints "FILE<TAB>caption" per figure), its output kept in DIR/.figures.log and
/// removed after. Never throws for the script: an interpreter that cannot run, a missing
/// module (kFiguresMissingModule), a failure or no figure at all is said in `skipped`, with the
/// script's last line of output.
Figures make_figures(const std::filesystem::path& dir, const std::string& python, const std::string& script);

}  // namespace ccsim::report
