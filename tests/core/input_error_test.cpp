// Input errors (core/input_error.hpp): what they read like, and whether they are about the
// command line (cli/ exits 2 for an unknown name given there, 1 for one in a file).
#include <string>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"

using ccsim::InputError;

TEST_CASE("an input error reads like a compiler's and knows whether the command line gave it", "[input_error]") {
  const InputError in_file("traces/x.json", 42, "ranks[0]", "expected a rank");
  CHECK(std::string(in_file.what()) == "traces/x.json:42: field 'ranks[0]': expected a rank");
  CHECK_FALSE(in_file.from_command_line());
  CHECK(InputError("--platform", 0, "", "unknown preset").from_command_line());
  CHECK(InputError("command line", 0, "--dtype", "expected fp32").from_command_line());
}
