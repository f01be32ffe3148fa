#include <catch2/catch.hpp>

#include <string>

#include "core/input_error.hpp"
#include "core/utf8.hpp"

using ccsim::invalid_utf8_at;

TEST_CASE("well-formed UTF-8 is accepted", "[utf8]") {
  CHECK(invalid_utf8_at("") == std::nullopt);
  CHECK(invalid_utf8_at("plain ascii") == std::nullopt);
  CHECK(invalid_utf8_at("\xc3\xa9") == std::nullopt);          // U+00E9
  CHECK(invalid_utf8_at("\xe2\x82\xac") == std::nullopt);      // U+20AC
  CHECK(invalid_utf8_at("\xef\xbf\xbf") == std::nullopt);      // U+FFFF
  CHECK(invalid_utf8_at("\xf0\x9f\x98\x80") == std::nullopt);  // U+1F600
  CHECK(invalid_utf8_at("\xf4\x8f\xbf\xbf") == std::nullopt);  // U+10FFFF, the last code point
  CHECK(invalid_utf8_at(std::string("a\0b", 3)) == std::nullopt);
}

TEST_CASE("ill-formed UTF-8 is found at its first bad byte", "[utf8]") {
  CHECK(invalid_utf8_at("ab\xff") == 2u);
  CHECK(invalid_utf8_at("\x80") == 0u);              // a lone continuation byte
  CHECK(invalid_utf8_at("\xc0\xaf") == 0u);          // overlong '/'
  CHECK(invalid_utf8_at("\xc1\xbf") == 0u);          // overlong
  CHECK(invalid_utf8_at("\xe0\x80\xaf") == 0u);      // overlong, three bytes
  CHECK(invalid_utf8_at("\xf0\x80\x80\xaf") == 0u);  // overlong, four bytes
  CHECK(invalid_utf8_at("\xed\xa0\x80") == 0u);      // U+D800, a surrogate
  CHECK(invalid_utf8_at("\xf4\x90\x80\x80") == 0u);  // U+110000, above the last code point
  CHECK(invalid_utf8_at("\xf5\x80\x80\x80") == 0u);
  CHECK(invalid_utf8_at("x\xc3") == 1u);  // truncated at the end
  CHECK(invalid_utf8_at("x\xe2\x82") == 1u);
  CHECK(invalid_utf8_at("\xc3(") == 0u);  // continuation byte missing
  CHECK(invalid_utf8_at("\xe2\x82(") == 0u);
}

TEST_CASE("check_utf8 names where the text came from", "[utf8]") {
  ccsim::SourceRef where{"--placement", 0, ""};
  CHECK_NOTHROW(ccsim::check_utf8("tp,pp,dp", where));
  CHECK_THROWS_WITH(ccsim::check_utf8("tp\xfe", where),
                    "--placement: expected UTF-8 text, got the byte 0xFE at byte 2 (after \"tp\")");
}
