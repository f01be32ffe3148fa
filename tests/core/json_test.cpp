#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"
#include "support/error_of.hpp"

using ccsim::InputError;
namespace json = ccsim::json;

namespace {

std::string error_of(std::string_view text) {
  return ccsim::test::message_of([&] { json::parse(text, "doc.json"); });
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

TEST_CASE("json values and errors count lines ended by LF, CRLF or a lone CR", "[json]") {
  for (const char* end : {"\n", "\r\n", "\r"}) {
    INFO("line end " << (std::string(end) == "\r" ? "CR" : std::string(end) == "\n" ? "LF" : "CRLF"));
    const std::string e(end);
    json::Value v = json::parse("{" + e + "\"a\": 1," + e + e + "\"b\": 2" + e + "}", "doc.json");
    CHECK(v.find("a")->line() == 2);
    CHECK(v.find("b")->line() == 4);
    CHECK(error_of("{" + e + "\"a\": 1," + e + e + "\"b\" 2}") == "doc.json:4: JSON syntax: expected ':', got '2'");
  }
  // A line end inside a string is one, CR or LF.
  CHECK(error_of("[\"a\rb\"]") == "doc.json:1: JSON syntax: unterminated string (newline inside a string)");
}

TEST_CASE("json strings decode escapes and unicode", "[json]") {
  json::Value v = json::parse(R"(["a\"b\\c\n", "\u00e9\ud83d\ude00"])", "doc.json");
  CHECK(v.items()[0].text() == "a\"b\\c\n");
  CHECK(v.items()[1].text() == "\xc3\xa9\xf0\x9f\x98\x80");
}

TEST_CASE("json strings must be valid UTF-8", "[json]") {
  // Found by tests/fuzz (network_model): a name with a byte 0xFF was read, then broke the
  // JSON writer (nlohmann throws on invalid UTF-8) as an internal error.
  CHECK(error_of("{\n\"name\": \"a\xff\"}") ==
        "doc.json:2: field 'name': expected UTF-8 text, got the byte 0xFF at byte 1 (after \"a\")");
  for (const char* bad : {"[\"\xc3\"]", "[\"\xc0\xaf\"]", "[\"\xed\xa0\x80\"]", "[\"\xf4\x90\x80\x80\"]"}) {
    INFO(bad);  // truncated, overlong '/', surrogate, above U+10FFFF
    CHECK_THAT(error_of(bad), Catch::StartsWith("doc.json:1: field '[0]': expected UTF-8 text, got the byte"));
  }
  CHECK_THAT(error_of(R"(["\udc00"])"), Catch::StartsWith("doc.json:1:"));
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
  // Nested: the key's whole path, as every other field error spells it.
  CHECK(error_of("{\"r\": [{\"b\": {\"a\": 1, \"a\": 2}}]}") ==
        "doc.json:1: field 'r[0].b.a': the key appears twice in the same object");
  CHECK(error_of("") == "doc.json:1: JSON syntax: unexpected end of file, expected a value");
}

TEST_CASE("json nesting is bounded", "[json]") {
  std::string deep(300, '[');
  CHECK(error_of(deep) == "doc.json:1: JSON nesting deeper than 256 levels");
}

TEST_CASE("object reader checks types and unknown keys", "[json]") {
  json::Value v = json::parse("{\n \"n\": -1,\n \"s\": 3,\n \"x\": {\"y\": 1}\n}", "f.json");
  json::ObjectReader r(v, "f.json", "top");
  CHECK_THROWS_WITH(r.required("n").non_negative(),
                    "f.json:2: field 'top.n': expected a non-negative number, got \"-1\"");
  CHECK_THROWS_WITH(r.required("s").string(), "f.json:3: field 'top.s': expected a string, got \"3\"");
  CHECK_THROWS_WITH(r.required("missing").string(), "f.json:1: field 'top.missing': missing (required)");
  CHECK_THROWS_WITH(r.finish(), "f.json:4: field 'top.x': unknown key; valid keys here: missing, n, s");
  json::ObjectReader child = r.child("x");
  CHECK(child.required("y").positive_integer() == 1);
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("a member looked up as optional has every check of a required one, none where absent or null", "[json]") {
  json::Value v = json::parse("{\n \"n\": 0,\n \"z\": null,\n \"a\": [1],\n \"o\": 2\n}", "f.json");
  json::ObjectReader r(v, "f.json", "top");
  // Absent and null read as none, whatever the check.
  CHECK(r.optional("absent").positive_integer() == std::nullopt);
  CHECK(r.optional("z").string() == std::nullopt);
  CHECK(r.optional("z").array() == nullptr);
  CHECK_FALSE(r.optional("z"));
  // Present, the same check as for a required member, with the same words at the member.
  CHECK_THROWS_WITH(r.optional("n").positive_integer(),
                    "f.json:2: field 'top.n': expected a positive integer, got \"0\"");
  CHECK_THROWS_WITH(r.required("n").positive_integer(),
                    "f.json:2: field 'top.n': expected a positive integer, got \"0\"");
  CHECK(r.optional("n").non_negative() == 0.0);
  CHECK(r.optional("a").array() == &*r.required("a"));
  CHECK(r.required("a").array().items().size() == 1);
  CHECK_THROWS_WITH(r.optional("o").object(), "f.json:5: field 'top.o': expected an object, got \"2\"");
  // A required member that is null is there: its check, not its absence, is the error.
  CHECK_THROWS_WITH(r.required("z").boolean(), "f.json:3: field 'top.z': expected true or false, got null");
  CHECK(r.has("z"));
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("object reader offers the closest name for a misspelt key or value", "[json]") {
  json::Value v = json::parse("{\n \"nic\": 1,\n \"kind\": \"allreduce\",\n \"sorce\": \"x\"\n}", "f.json");
  json::ObjectReader r(v, "f.json", "node");
  // A missing required key beside an unknown one spelt like it: the typo, at its line.
  CHECK_THROWS_WITH(r.required("nics").integer(),
                    "f.json:2: field 'node.nics': missing (required); the object has \"nic\": did you mean nics?");
  // None close: the plain message, at the object's line.
  CHECK_THROWS_WITH(r.required("accelerators").integer(), "f.json:1: field 'node.accelerators': missing (required)");
  CHECK_THROWS_WITH(r.required("kind").choice({"all_reduce", "all_gather"}),
                    "f.json:3: field 'node.kind': expected one of all_reduce, all_gather, got \"allreduce\"; did you "
                    "mean all_reduce?");
  r.allow({"source"});
  CHECK_THROWS_WITH(r.finish(),
                    "f.json:2: field 'node.nic': unknown key; did you mean nics? valid keys here: "
                    "accelerators, kind, nics, source");
  CHECK_THROWS_AS(r.finish(), ccsim::UnknownNameError);
}

TEST_CASE("object reader integers are exact", "[json]") {
  json::Value v = json::parse(R"({"big": 9007199254740993, "e": 1e6, "f": 1.5})", "f.json");
  json::ObjectReader r(v, "f.json", "");
  CHECK(r.required("big").non_negative_integer() == 9007199254740993ull);
  CHECK(r.required("e").non_negative_integer() == 1000000ull);
  CHECK_THROWS_WITH(r.required("f").non_negative_integer(),
                    "f.json:1: field 'f': expected a non-negative integer, got \"1.5\"");
}

TEST_CASE("object reader checks the range of huge numbers before converting them", "[json]") {
  // 1e300 and -1e300 are integral doubles far outside int64: converting them first would be
  // undefined behaviour (UBSan: "outside the range of representable values").
  json::Value v = json::parse(R"({"huge": 1e300, "neg": -1e300, "e15": 9.1e15, "half": -2.5, "ok": -3e2})", "f.json");
  json::ObjectReader r(v, "f.json", "");
  CHECK_THROWS_WITH(r.required("huge").integer(), "f.json:1: field 'huge': expected an integer, got \"1e300\"");
  CHECK_THROWS_WITH(r.required("neg").integer(), "f.json:1: field 'neg': expected an integer, got \"-1e300\"");
  CHECK_THROWS_WITH(r.required("e15").integer(), "f.json:1: field 'e15': expected an integer, got \"9.1e15\"");
  CHECK_THROWS_WITH(r.required("half").integer(), "f.json:1: field 'half': expected an integer, got \"-2.5\"");
  CHECK(r.required("ok").integer() == -300);
  CHECK_THROWS_WITH(r.required("huge").non_negative_integer(),
                    "f.json:1: field 'huge': expected a non-negative integer, got \"1e300\"");
}

TEST_CASE("every integer and number field can carry a range", "[json]") {
  json::Value v = json::parse(R"({"root": 4294967297, "r2": 3e0, "s": "x", "b": 1125899906842625,
 "d": 1e300, "t": 0, "p": 2.5})",
                              "f.json");
  json::ObjectReader r(v, "f.json", "op");
  // 4294967297 is 2^32 + 1: narrowed to 32 bits first it would read as 1.
  CHECK_THROWS_WITH(r.required("root").integer_in(0, 7),
                    "f.json:1: field 'op.root': expected an integer from 0 to 7, got \"4294967297\"");
  CHECK(r.required("r2").integer_in(0, 7) == 3);
  CHECK_THROWS_WITH(r.required("s").integer_in(0, 7), "f.json:1: field 'op.s': expected an integer, got \"x\"");
  CHECK(r.optional("absent").integer_in(0, 7) == std::nullopt);
  CHECK_THROWS_WITH(r.required("b").non_negative_integer_at_most(std::uint64_t{1} << 50),
                    "f.json:1: field 'op.b': expected an integer from 0 to 1125899906842624, got \"1125899906842625\"");
  CHECK_THROWS_WITH(r.required("d").number_in(0, 1e6),
                    "f.json:2: field 'op.d': expected a non-negative number of at most 1e+06, got \"1e300\"");
  CHECK_THROWS_WITH(r.required("t").number_in(0, 60, true),
                    "f.json:2: field 'op.t': expected a positive number of at most 60, got \"0\"");
  CHECK_THROWS_WITH(r.required("p").number_in(3, 4),
                    "f.json:2: field 'op.p': expected a number from 3 to 4, got \"2.5\"");
  CHECK_THROWS_WITH(r.required("s").number_in(3, 4), "f.json:1: field 'op.s': expected a number, got \"x\"");
  CHECK(r.required("p").number_in(2.5, 4) == 2.5);
  CHECK(r.optional("absent").number_in(0, 1) == std::nullopt);
}

TEST_CASE("json strings must be UTF-8, and the error names the field", "[json][utf8]") {
  CHECK(error_of("{\"ranks\": [{\"name\": \"ok\"},\n {\"name\": \"a\xff\"}]}") ==
        "doc.json:2: field 'ranks[1].name': expected UTF-8 text, got the byte 0xFF at byte 1 (after \"a\")");
  // A lone low surrogate decodes to an encoded surrogate (CESU), which is not UTF-8 either.
  CHECK(error_of(R"({"a": "x\udc00"})") ==
        "doc.json:1: field 'a': expected UTF-8 text, got the byte 0xED at byte 1 (after \"x\")");
  CHECK(error_of("{\"k\xc3\": 1}") ==
        "doc.json:1: field '(a key)': expected UTF-8 text, got the byte 0xC3 at byte 1 (after \"k\")");
  CHECK(error_of("[\"\xc0\xaf\"]") ==
        "doc.json:1: field '[0]': expected UTF-8 text, got the byte 0xC0 at byte 0 (after \"\")");
  CHECK(error_of("\"\xed\xa0\x80\"") ==
        "doc.json:1: field '(document)': expected UTF-8 text, got the byte 0xED at byte 0 (after \"\")");
  CHECK(error_of("{\"a\": \"\xc3\xa9\xf0\x9f\x98\x80\"}") == "no error");
}
