// Importing a profiled run (import/kineto_run.hpp): the four rank files of
// tests/data/kineto/tp2_pp2/it0, named, described and checked against the run's summary.json
// as `ccsim trace import kineto` does; the row checks are those of the run's own summary.
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "import/kineto_run.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;

namespace {

const std::string kRun = CCSIM_SOURCE_DIR "/tests/data/kineto/tp2_pp2";

}  // namespace

TEST_CASE("a run imported without a summary is named after its output and records no hardware", "[import]") {
  import::KinetoRequest request;
  request.inputs = {kRun + "/it0"};
  request.output = "out/tp2.json";
  const import::KinetoRun run = import::import_kineto_run(request);
  const trace::Trace& t = run.imported.trace;
  CHECK(t.name == "tp2");
  CHECK(t.source == "PyTorch profiler traces: " + kRun + "/it0");
  CHECK(t.world_size == 4);
  CHECK(t.op_count() == 4244);
  CHECK_FALSE(t.hardware);
  CHECK(run.summary_path.empty());
  CHECK_FALSE(run.summary);
  REQUIRE(run.imported.ranks.size() == 4);
  CHECK(run.imported.ranks[0].iteration == "Iteration#0");
  CHECK_FALSE(import::check_rows(run, run.imported.ranks[0]));
  // To stdout, the trace takes the folder's name; --name wins over both.
  request.output = "-";
  CHECK(import::import_kineto_run(request).imported.trace.name == "it0");
  request.name = "given";
  CHECK(import::import_kineto_run(request).imported.trace.name == "given");
}

TEST_CASE("a run's summary gives the hardware and each rank's rows to check against", "[import]") {
  import::KinetoRequest request;
  request.inputs = {kRun + "/it0"};
  request.summary = kRun + "/summary.json";
  const import::KinetoRun run = import::import_kineto_run(request);
  REQUIRE(run.summary);
  CHECK(run.summary_path == request.summary);
  CHECK(run.summary->unprofiled_ms == Approx(780.636));
  REQUIRE(run.imported.trace.hardware);
  CHECK(run.imported.trace.hardware->name == "AMD EPYC, 2 cores, BLAS libblas.so.3.11.0");
  CHECK(run.imported.trace.hardware->source == request.summary + ": environment");
  const std::optional<import::RowCheck> rank0 = import::check_rows(run, run.imported.ranks[0]);
  REQUIRE(rank0);
  CHECK(rank0->matched == 29);
  CHECK(rank0->rows == 29);
  CHECK(rank0->worst_row == "recv(pp:grad)");
  CHECK(rank0->worst_ms == Approx(26.706).margin(5e-4));
  const std::optional<import::RowCheck> rank2 = import::check_rows(run, run.imported.ranks[2]);
  REQUIRE(rank2);
  CHECK(rank2->rows == 31);
  CHECK(rank2->worst_row == "recv(pp:act)");
  CHECK(rank2->worst_ms == Approx(-41.224).margin(5e-4));
}

TEST_CASE("the hardware a run names is asked for after its files are read, and wins over the summary's", "[import]") {
  import::KinetoRequest request;
  request.inputs = {kRun + "/it0"};
  request.summary = kRun + "/summary.json";
  int asked = 0;
  request.hardware = [&] {
    ++asked;
    return trace::Hardware{"accelerator", 1e12, 1e11, "given"};
  };
  const import::KinetoRun run = import::import_kineto_run(request);
  CHECK(asked == 1);
  REQUIRE(run.imported.trace.hardware);
  CHECK(run.imported.trace.hardware->name == "accelerator");
  CHECK(run.imported.trace.hardware->peak_flops == 1e12);
  // Rank files that are not there are refused before the hardware is asked for.
  request.inputs = {kRun + "/nowhere"};
  CHECK_THROWS_WITH(import::import_kineto_run(request), Contains("nowhere: no such file"));
  CHECK(asked == 1);
  request.inputs = {kRun + "/it0"};
  request.iteration = 7;
  CHECK_THROWS_WITH(import::import_kineto_run(request), Contains("no Iteration#7"));
}
