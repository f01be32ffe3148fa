#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"

using ccsim::InputError;
namespace json = ccsim::json;

namespace {

std::string error_of(std::string_view text) {
  try {
    json::parse(text, "doc.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("json values remember their line", "[json]") {
  json::Value v = json::parse("{\n  \"a\": 1,\n  \"b\": [true,\n   \"x\"]\n}", "doc.json");
  REQUIRE(v.is_object());
  CHECK(v.line() == 1);
  CHECK(v.find("a")->line() == 2);
  CHECK(v.find("a")->text() == "1");
  CHECK(v.find("b")->items()[1].line() == 4);
  CHECK(v.find("b")->items()[1].text() == "x");
  CHECK(v.find("c") == nullptr);
}

TEST_CASE("json strings decode escapes and unicode", "[json]") {
  json::Value v = json::parse(R"(["a\"b\\c\n", "\u00e9\ud83d\ude00"])", "doc.json");
  CHECK(v.items()[0].text() == "a\"b\\c\n");
  CHECK(v.items()[1].text() == "\xc3\xa9\xf0\x9f\x98\x80");
}

TEST_CASE("json strings must be valid UTF-8", "[json]") {
  // Found by tests/fuzz (network_model): a name with a byte 0xFF was read, then broke the
  // JSON writer (nlohmann throws on invalid UTF-8) as an internal error.
  CHECK(error_of("{\n\"name\": \"a\xff\"}") == "doc.json:2: invalid UTF-8 in a string (byte 0xFF)");
  CHECK(error_of("[\"\xc3\"]") == "doc.json:1: invalid UTF-8 in a string (byte 0x22 after 0xC3)");
  CHECK(error_of("[\"\xc0\xaf\"]") == "doc.json:1: invalid UTF-8 in a string (byte 0xC0)");  // overlong '/'
  CHECK(error_of("[\"\xed\xa0\x80\"]") == "doc.json:1: invalid UTF-8 in a string (byte 0xA0 after 0xED)");  // surrogate
  CHECK(error_of("[\"\xf4\x90\x80\x80\"]") == "doc.json:1: invalid UTF-8 in a string (byte 0x90 after 0xF4)");
  CHECK(error_of(R"(["\udc00"])") == "doc.json:1: JSON syntax: lone low surrogate in \\u escape");
  CHECK(json::parse("[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]", "doc.json").items()[0].text() ==
        "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

TEST_CASE("json syntax errors name file and line", "[json]") {
  CHECK(error_of("{\n  \"a\": 1\n  \"b\": 2\n}") == "doc.json:3: JSON syntax: expected '}', got '\"'");
  CHECK(error_of("{\"a\": 1,}") == "doc.json:1: JSON syntax: expected a string key");
  CHECK(error_of("[1, 2") == "doc.json:1: JSON syntax: expected ']', got end of file");
  CHECK(error_of("{\"a\": 01}") == "doc.json:1: JSON syntax: expected '}', got '1'");
  CHECK(error_of("{\"a\": tru}") == "doc.json:1: JSON syntax: unexpected 't', expected a value");
  CHECK(error_of("\n\n\"abc") == "doc.json:3: JSON syntax: unterminated string");
  CHECK(error_of("{} {}") == "doc.json:1: unexpected '{' after the end of the document");
  CHECK(error_of("{\"a\": 1,\n \"a\": 2}") == "doc.json:2: field 'a': the key appears twice in the same object");
  CHECK(error_of("") == "doc.json:1: JSON syntax: unexpected end of file, expected a value");
}

TEST_CASE("json nesting is bounded", "[json]") {
  std::string deep(300, '[');
  CHECK(error_of(deep) == "doc.json:1: JSON nesting deeper than 256 levels");
}

TEST_CASE("object reader checks types and unknown keys", "[json]") {
  json::Value v = json::parse("{\n \"n\": -1,\n \"s\": 3,\n \"x\": {\"y\": 1}\n}", "f.json");
  json::ObjectReader r(v, "f.json", "top");
  CHECK_THROWS_WITH(r.non_negative("n"), "f.json:2: field 'top.n': expected a non-negative number, got \"-1\"");
  CHECK_THROWS_WITH(r.string("s"), "f.json:3: field 'top.s': expected a string, got \"3\"");
  CHECK_THROWS_WITH(r.string("missing"), "f.json:1: field 'top.missing': missing (required)");
  CHECK_THROWS_WITH(r.finish(), "f.json:4: field 'top.x': unknown key; valid keys here: missing, n, s");
  json::ObjectReader child = r.child("x");
  CHECK(child.positive_integer("y") == 1);
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("object reader integers are exact", "[json]") {
  json::Value v = json::parse(R"({"big": 9007199254740993, "e": 1e6, "f": 1.5})", "f.json");
  json::ObjectReader r(v, "f.json", "");
  CHECK(r.non_negative_integer("big") == 9007199254740993ull);
  CHECK(r.non_negative_integer("e") == 1000000ull);
  CHECK_THROWS_WITH(r.non_negative_integer("f"), "f.json:1: field 'f': expected a non-negative integer, got \"1.5\"");
}
