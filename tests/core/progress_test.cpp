#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "core/progress.hpp"

using ccsim::Progress;

TEST_CASE("a progress line gives the phase, the share done and the time left at the pace so far", "[core][progress]") {
  CHECK(Progress::line("replay", 0.25, 3.0) == "replay: 25 % (ETA 9 s, 3 s so far)");
  CHECK(Progress::line("sweep", 0.0, 2.4) == "sweep: 0 % (ETA unknown, 2 s so far)");
  CHECK(Progress::line("replay", 1.7, 4.0) == "replay: 100 % (ETA 0 s, 4 s so far)");  // clamped
}

TEST_CASE("progress stays silent when disabled and during a step's first seconds", "[core][progress]") {
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  {
    Progress off("replay", false, out);
    off.update(0.5);
    Progress quiet("replay", true, out);  // enabled, but the step is younger than two seconds
    quiet.update(0.5);
  }
  CHECK(std::ftell(out) == 0);
  std::fclose(out);
}
