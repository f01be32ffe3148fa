// The report of `trace import kineto` (import/kineto_report.hpp) on the profiled run of
// tests/data/kineto/tp2_pp2: the hardware, the check of each rank against its measured
// iteration and against the run's summary.json, with and without that summary.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "support/lines_of.hpp"
#include "import/kineto_report.hpp"
#include "import/kineto_run.hpp"

using namespace ccsim;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;

namespace {

using test::lines_of;

const std::string kRun = CCSIM_SOURCE_DIR "/tests/data/kineto/tp2_pp2";

}  // namespace

TEST_CASE("the import report checks every rank against the run's summary", "[import]") {
  import::KinetoRequest request;
  request.inputs = {kRun + "/it0"};
  request.summary = kRun + "/summary.json";
  const import::KinetoRun run = import::import_kineto_run(request);
  const std::vector<std::string> lines = lines_of(import::check_report(run));
  REQUIRE(lines.size() >= 8);
  CHECK(lines[0] == "  hardware: \"AMD EPYC, 2 cores, BLAS libblas.so.3.11.0\" (" + request.summary + ": environment)");
  CHECK(lines[1] == "  check against the measurement, per rank (ms):");
  CHECK(lines[2] == "  rank    Iteration#     operators   diff %      unprofiled      profiled      summary rows");
  for (int rank = 0; rank < 4; ++rank) {
    const import::RankImport& r = run.imported.ranks[static_cast<std::size_t>(rank)];
    CHECK_THAT(lines[3 + static_cast<std::size_t>(rank)],
               StartsWith(fmt::format("  {:>4}  {:>12.3f}  {:>12.3f}  {:>7.3f}  {:>14.3f}", rank, r.iteration_ms,
                                      r.ops_ms, 100 * (r.ops_ms - r.iteration_ms) / r.iteration_ms,
                                      run.summary->unprofiled_rank_ms[static_cast<std::size_t>(rank)])));
  }
  CHECK_THAT(lines[3], EndsWith("29/29 rows, worst recv(pp:grad) +26.706"));
  CHECK(lines[7] == fmt::format("  {}: iteration time without the profiler 780.636 ms, with it {:.3f} ms (median, max "
                                "over ranks); summary rows are means over the profiled steps",
                                request.summary, run.summary->profiled_ms));
}

TEST_CASE("the import report without a summary: no hardware, nothing to check the rows against", "[import]") {
  import::KinetoRequest request;
  request.inputs = {kRun + "/it0"};
  request.output = "out/tp2.json";
  const import::KinetoRun run = import::import_kineto_run(request);
  const std::vector<std::string> lines = lines_of(import::check_report(run));
  REQUIRE(lines.size() >= 7);
  CHECK(lines[0] ==
        "  hardware: not recorded (no --hardware, no summary.json): replays keep the compute durations and say so");
  for (std::size_t row = 3; row < 7; ++row) {
    CHECK_THAT(lines[row], EndsWith("               -             -  -"));
  }
}
