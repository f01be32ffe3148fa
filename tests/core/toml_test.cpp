// TOML documents read as the JSON of the same tree (core/toml.hpp), values on their TOML lines.
#include <string>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/toml.hpp"
#include "support/error_of.hpp"

using namespace ccsim;

namespace {

json::Value read(const std::string& text) { return json::parse(toml::to_json_text(text, "s.toml", {"set"}), "s.toml"); }

std::string error_of(const std::string& text) {
  return ccsim::test::message_of([&] { read(text); }, "(no error)");
}

}  // namespace

TEST_CASE("TOML lines end at LF, CRLF or a lone CR", "[core][toml]") {
  for (const char* end : {"\n", "\r\n", "\r"}) {
    const std::string e(end);
    INFO("line end " << (e == "\r" ? "CR" : e == "\n" ? "LF" : "CRLF"));
    const json::Value doc = read("a = 1" + e + "# two" + e + "[grid]" + e + "b = \"x\"" + e);
    CHECK(doc.find("a")->line() == 1);
    CHECK(doc.find("grid")->line() == 3);
    CHECK(doc.find("grid")->find("b")->line() == 4);
    CHECK(error_of("a = 1" + e + e + "a = 2" + e) == "s.toml:3: TOML syntax: Key a already present");
    CHECK(error_of("a = 1" + e + e + "b = \"\xff\"" + e).rfind("s.toml:3: expected UTF-8 text", 0) == 0);
  }
}

TEST_CASE("a TOML document becomes the same tree, each member on its TOML line, in file order", "[core][toml]") {
  const json::Value doc = read(R"(# a comment
zeta = "first"     # line 2
alpha = 7
[grid]
bytes = ["4096",
  "64KiB"]
ratio = 0.5
[grid.set]
inter.bandwidth = ["x1", "x2"]
"intra.latency" = "2us"
[[scenarios]]
trace = "a.json"
[[scenarios]]
trace = 'b.json'
)");
  REQUIRE(doc.is_object());
  REQUIRE(doc.members().size() == 4);
  // File order, not the alphabetical or hashed order of cpptoml's tables.
  CHECK(doc.members()[0].first == "zeta");
  CHECK(doc.members()[0].second.line() == 2);
  CHECK(doc.members()[1].first == "alpha");
  CHECK(doc.members()[1].second.text() == "7");
  CHECK(doc.members()[1].second.line() == 3);
  const json::Value& grid = *doc.find("grid");
  CHECK(grid.line() == 4);
  const json::Value& bytes = *grid.find("bytes");
  CHECK(bytes.line() == 5);
  REQUIRE(bytes.items().size() == 2);
  CHECK(bytes.items()[0].text() == "4096");
  CHECK(bytes.items()[1].text() == "64KiB");
  CHECK(grid.find("ratio")->text() == "0.5");
  CHECK(grid.find("ratio")->line() == 7);
  // Dotted keys under "set" stay one key, quoted or not.
  const json::Value& set = *grid.find("set");
  REQUIRE(set.members().size() == 2);
  CHECK(set.members()[0].first == "inter.bandwidth");
  CHECK(set.members()[0].second.line() == 9);
  CHECK(set.members()[1].first == "intra.latency");
  CHECK(set.members()[1].second.line() == 10);
  const json::Value& scenarios = *doc.find("scenarios");
  REQUIRE(scenarios.items().size() == 2);
  CHECK(scenarios.items()[0].line() == 11);
  CHECK(scenarios.items()[1].line() == 13);
  CHECK(scenarios.items()[1].find("trace")->text() == "b.json");
  CHECK(scenarios.items()[1].find("trace")->line() == 14);
}

TEST_CASE("TOML errors name the file and the line", "[core][toml]") {
  CHECK(error_of("a = 1\nb = [1, 2\n").rfind("s.toml:", 0) == 0);
  CHECK(error_of("a = 1\nb = = 2\n").rfind("s.toml:2: TOML syntax: ", 0) == 0);
  CHECK(error_of("a = 1\na = 2\n") == "s.toml:2: TOML syntax: Key a already present");
  CHECK(error_of("a = 1\nwhen = 1979-05-27\n") ==
        "s.toml:2: field 'when': expected a string, a number or a boolean, got a TOML date or time");
  CHECK(error_of("x = inf\n") == "s.toml:1: field 'x': expected a finite number, got inf");
}

TEST_CASE("only paths ending in .toml are TOML", "[core][toml]") {
  CHECK(toml::is_toml_path("sweeps/a.toml"));
  CHECK_FALSE(toml::is_toml_path("sweeps/a.json"));
  CHECK_FALSE(toml::is_toml_path("toml"));
}

TEST_CASE("cpptoml reads TOML 0.5: an array of mixed types is an error with its line", "[core][toml]") {
  CHECK(error_of("a = 1\nbytes = [4096, \"64KiB\"]\n") == "s.toml:2: TOML syntax: Arrays must be homogeneous");
}

TEST_CASE("a setting given twice under a flat table, as a quoted and a dotted key, names both lines", "[core][toml]") {
  // Found by tests/fuzz/toml_fuzz.cpp: the two keys are distinct for cpptoml, one member once
  // the flat table's nested tables become dotted keys, and the JSON held it twice.
  CHECK(error_of("[grid.set]\n\"intra.latency\" = \"1us\"\nintra.latency = \"2us\"\n") ==
        "s.toml:3: field 'grid.set.intra.latency': TOML: \"grid.set.intra.latency\" is given twice, on line 2 and "
        "on line 3 (a quoted key holding a dot names the same setting as the dotted key)");
  CHECK(
      error_of("[grid]\nset.\"intra.latency\" = 1\n\n[grid.set.intra]\nlatency = 2\n")
          .rfind(
              "s.toml:5: field 'grid.set.intra.latency': TOML: \"grid.set.intra.latency\" is given twice, on line 2 and "
              "on line 5",
              0) == 0);
}
