#include <new>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "core/phase.hpp"

using ccsim::Phase;

TEST_CASE("phases nest and name what ran out of memory", "[phase]") {
  CHECK(Phase::what().empty());
  CHECK(Phase::out_of_memory_message() == "out of memory");
  {
    Phase outer("reading the platform p.json", "reduce the platform's size");
    {
      Phase inner("building 3 links", "");
      CHECK(Phase::out_of_memory_message() == "out of memory while building 3 links");
    }
    CHECK(Phase::out_of_memory_message() ==
          "out of memory while reading the platform p.json; reduce the platform's size");
  }
  CHECK(Phase::what().empty());
}

TEST_CASE("the phase an exception leaves stays the one reported", "[phase]") {
  try {
    Phase outer("simulating 4 ranks", "fewer ranks");
    Phase inner("building the platform (7 links)", "a smaller platform");
    throw std::bad_alloc();
  } catch (const std::bad_alloc&) {
    CHECK(Phase::out_of_memory_message() == "out of memory while building the platform (7 links); a smaller platform");
  }
  Phase next("the next step", "");  // a new phase clears the failed one
  CHECK(Phase::what() == "the next step");
}

TEST_CASE("a phase is mirrored into a buffer, truncated to fit", "[phase]") {
  char buffer[16];
  Phase::mirror_to(buffer, sizeof buffer);
  {
    Phase p("abc", "hint");
    CHECK(std::string(buffer) == "abc\nhint");
    Phase q("a phase longer than the buffer", "x");
    CHECK(std::string(buffer) == "a phase longer ");
  }
  Phase::mirror_to(nullptr, 0);
  CHECK(std::string(buffer).empty());  // the last change before the mirror stopped: no phase
}
