// A command line written back as a user would type it (core/command_line.hpp): ccsim report
// records the command that made it.
#include <string>

#include <catch2/catch.hpp>

#include "core/command_line.hpp"

using ccsim::shell_word;

TEST_CASE("words a shell reads as they are stay so; others are quoted", "[command_line]") {
  CHECK(shell_word("traces/qu2025-profile.json") == "traces/qu2025-profile.json");
  CHECK(shell_word("--set=nodes=1280,x:y+z@1%") == "--set=nodes=1280,x:y+z@1%");
  CHECK(shell_word("") == "''");
  CHECK(shell_word("two words") == "'two words'");
  CHECK(shell_word("$HOME") == "'$HOME'");
  CHECK(shell_word("it's") == "'it'\\''s'");
}

TEST_CASE("this process's command line names the program as asked", "[command_line]") {
  const std::string line = ccsim::own_command_line("tests", "none");
  CHECK((line == "tests" || line.starts_with("tests ")));
}
