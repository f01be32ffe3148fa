#include "core/text_lines.hpp"

#include <climits>

namespace ccsim {

std::size_t line_end_at(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return 0;
  if (text[pos] == '\n') return 1;
  if (text[pos] != '\r') return 0;
  return pos + 1 < text.size() && text[pos + 1] == '\n' ? 2 : 1;
}

int line_of(std::string_view text, std::size_t offset) {
  int line = 1;
  for (std::size_t pos = 0; pos < offset && pos < text.size();) {
    const std::size_t end = line_end_at(text, pos);
    if (end == 0) {
      ++pos;
      continue;
    }
    if (pos + end > offset) break;  // `offset` is the LF of a CRLF: it belongs to the line it ends
    if (line == INT_MAX) return 0;  // InputError's "no line": better than a wrong one
    ++line;
    pos += end;
  }
  return line;
}

std::vector<std::pair<int, std::string_view>> split_lines(std::string_view text) {
  std::vector<std::pair<int, std::string_view>> lines;
  int number = 0;
  std::size_t start = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = line_end_at(text, pos);
    if (end == 0) {
      ++pos;
      continue;
    }
    lines.emplace_back(++number, text.substr(start, pos - start));
    pos += end;
    start = pos;
  }
  if (start < text.size()) lines.emplace_back(++number, text.substr(start));
  return lines;
}

}  // namespace ccsim
