// Line ends of text inputs (core/text_lines.hpp): LF, CRLF and a lone CR each end one line.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "core/text_lines.hpp"

using ccsim::line_end_at;
using ccsim::line_of;
using ccsim::split_lines;

namespace {

using Lines = std::vector<std::pair<int, std::string_view>>;

}  // namespace

TEST_CASE("LF, CRLF and a lone CR each end one line", "[core][lines]") {
  CHECK(line_end_at("a\nb", 1) == 1);
  CHECK(line_end_at("a\r\nb", 1) == 2);
  CHECK(line_end_at("a\rb", 1) == 1);
  CHECK(line_end_at("a\r", 1) == 1);
  CHECK(line_end_at("ab", 1) == 0);
  CHECK(line_end_at("ab", 2) == 0);
  // "b" sits on line 3 whichever line ends the file uses, and so does the byte after "\n\r".
  CHECK(line_of("x\ny\nb", 4) == 3);
  CHECK(line_of("x\r\ny\r\nb", 6) == 3);
  CHECK(line_of("x\ry\rb", 4) == 3);
  CHECK(line_of("x\n\rb", 3) == 3);
  CHECK(line_of("x\r\nb", 2) == 1);  // the LF of a CRLF ends line 1, it starts no line
  CHECK(line_of("", 0) == 1);
}

TEST_CASE("a text splits into numbered lines without their line ends", "[core][lines]") {
  CHECK(split_lines("a\nb\n") == Lines{{1, "a"}, {2, "b"}});
  CHECK(split_lines("a\r\nb\r\n") == Lines{{1, "a"}, {2, "b"}});
  CHECK(split_lines("a\rb\r") == Lines{{1, "a"}, {2, "b"}});
  CHECK(split_lines("a\r\rb") == Lines{{1, "a"}, {2, ""}, {3, "b"}});
  CHECK(split_lines("a\n\r\nb") == Lines{{1, "a"}, {2, ""}, {3, "b"}});
  CHECK(split_lines("") == Lines{});
}
