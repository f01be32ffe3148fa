#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace ccsim {

// Line numbers of the project's text inputs (JSON, TOML, CSV and benchmark outputs): a line
// ends at LF, at CRLF and at a lone CR (old Mac files), so that a file with any of these
// line ends gets the line numbers an editor shows. Every reader that numbers lines uses
// these functions, and no other rule.

/// The length of the line end that starts at `pos`: 2 for CRLF, 1 for LF or a lone CR, 0 when
/// `pos` starts no line end (or is past the end of `text`).
std::size_t line_end_at(std::string_view text, std::size_t pos);

/// The line (from 1) that holds byte `offset` of `text`.
int line_of(std::string_view text, std::size_t offset);

/// The lines of `text`, numbered from 1, without their line ends; a final line end starts no
/// line of its own, and an empty text has none.
std::vector<std::pair<int, std::string_view>> split_lines(std::string_view text);

}  // namespace ccsim
