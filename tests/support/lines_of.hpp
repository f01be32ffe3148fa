#pragma once

#include <string>
#include <vector>

#include "core/text_lines.hpp"

namespace ccsim::test {

/// The lines of a report, without their line ends (core/text_lines.hpp's rule), for tests
/// that check a report line by line.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (const auto& [number, line] : split_lines(text)) lines.emplace_back(line);
  return lines;
}

}  // namespace ccsim::test
