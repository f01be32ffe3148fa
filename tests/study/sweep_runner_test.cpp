// The rows of a sweep (study/sweep_runner.hpp) on the repository's data: the collective mode by
// the closed forms on the tiny platform (4 nodes of 2 accelerators: intra links 1 us and
// 10 GB/s to the node's hub, reductions at 10 GB/s), errors at the spec value they are about,
// and the CSV and JSON renderings.
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "engine/child_process.hpp"
#include "study/data_folders.hpp"
#include "study/sweep.hpp"
#include "study/sweep_runner.hpp"
#include "support/error_of.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string kRoot = CCSIM_SOURCE_DIR;
const std::string kSpec = kRoot + "/tests/data/s.json";  // platform files beside it: tests/data/tiny.json

study::SweepRunner runner(const std::string& body, const std::string& engine = "") {
  study::SweepSpec spec =
      study::parse_sweep_spec(R"({"format": "ccsim-sweep", "version": 1, "mode": "collective", )" + body, kSpec);
  const study::SweepEngine chosen = study::choose_sweep_engine(spec, engine);
  study::SweepRunner r(std::move(spec), chosen, study::folder_lookup(study::data_folders(kRoot)));
  r.check_files();
  return r;
}

}  // namespace

TEST_CASE("a collective scenario: one row per algorithm, the ring's time by hand", "[study]") {
  study::SweepRunner r = runner(R"("scenarios": [{"platform": "tiny.json", "ranks": 2, "bytes": "64MiB"}]})");
  CHECK(r.engine() == study::SweepEngine::kClosedForm);
  const nlohmann::ordered_json rows = r.rows(0);
  REQUIRE(rows.size() >= 2);
  std::vector<std::string> columns;
  for (const auto& [key, value] : rows[0].items()) columns.push_back(key);
  CHECK(columns == std::vector<std::string>{"scenario", "platform", "compress", "dtype", "ranks", "nodes", "bytes",
                                            "algorithm", "auto_choice", "engine", "nic_sharing", "time_ms",
                                            "algbw_GBps", "busbw_GBps"});
  const nlohmann::ordered_json& ring = rows[0];
  CHECK(ring["algorithm"] == "ring");
  CHECK(ring["platform"] == "tiny");
  CHECK(ring["nodes"] == 1);
  CHECK(ring["engine"] == "closed-form");
  // 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma; alpha: two intra links of 1 us
  const double n = 64.0 * 1024 * 1024;
  const double ring_s = 2 * 2e-6 + n / 1e10 + n / 2 / 1e10;
  CHECK(ring["time_ms"].get<double>() == Approx(ring_s * 1e3));
  CHECK(ring["algbw_GBps"].get<double>() == Approx(n / ring_s / 1e9));
  CHECK(ring["busbw_GBps"].get<double>() == Approx(n / ring_s / 1e9));  // 2(p-1)/p = 1 for two ranks
  // Every row names the same auto choice, the fastest of the rows.
  double fastest = 1e300;
  std::string chosen;
  for (const auto& row : rows) {
    CHECK(row["auto_choice"] == rows[0]["auto_choice"]);
    if (row["time_ms"].get<double>() < fastest) {
      fastest = row["time_ms"].get<double>();
      chosen = row["algorithm"].get<std::string>();
    }
  }
  CHECK(rows[0]["auto_choice"] == chosen);
  CHECK(r.evaluate(0) == rows.dump());
}

TEST_CASE("a collective scenario with an algorithm shows that one alone; one that does not apply is refused",
          "[study]") {
  study::SweepRunner r = runner(R"("scenarios": [
    {"platform": "tiny.json", "ranks": 2, "bytes": "64MiB", "algo": "ring"},
    {"platform": "tiny.json", "ranks": 2, "bytes": "64MiB", "algo": "hierarchical"}]})");
  const nlohmann::ordered_json rows = r.rows(0);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["algorithm"] == "ring");
  const std::string error = test::message_of([&] { r.rows(1); });
  CHECK_THAT(error, StartsWith(kSpec + ":3: field 'scenarios[1].algo': \"hierarchical\" does not apply to this "
                                       "scenario (2 ranks on 1 node(s), compress none); those that apply: ring"));
}

TEST_CASE("an error of a scenario is reported at the spec value it is about", "[study]") {
  study::SweepRunner r = runner(R"("scenarios": [
    {"platform": "tiny.json", "ranks": 9, "bytes": "64MiB"}]})");
  CHECK(test::message_of([&] { r.rows(0); }) ==
        kSpec + ":2: field 'scenarios[0].ranks': platform \"tiny\" has 8 accelerators, fewer than 9 ranks");
}

TEST_CASE("the files of a sweep are checked before any work, at the spec value that names them", "[study]") {
  CHECK_THAT(test::message_of([&] {
               runner(R"("scenarios": [
    {"platform": "no-such-platform", "ranks": 2, "bytes": "64MiB"}]})");
             }),
             StartsWith(kSpec + ":2: field 'scenarios[0].platform': ") && Contains("no-such-platform"));
  CHECK_THAT(test::message_of([&] {
               runner(R"("scenarios": [
    {"platform": "tiny.json", "ranks": 2, "bytes": "64MiB", "compress": "nosuch"}]})");
             }),
             StartsWith(kSpec + ":2: field 'scenarios[0].compress': ") && Contains("nosuch"));
}

TEST_CASE("the engine of a sweep: --engine, else the spec's; the closed form only for collectives", "[study]") {
  study::SweepSpec trace = study::parse_sweep_spec(
      R"({"format": "ccsim-sweep", "version": 1, "mode": "trace", "scenarios": [{"trace": "t.json"}]})", "t.json");
  CHECK(study::choose_sweep_engine(trace, "") == study::SweepEngine::kSim);
  CHECK(test::message_of([&] { study::choose_sweep_engine(trace, "closed-form"); }) ==
        "command line: field '--engine': the closed form covers the collective mode (\"mode\": \"collective\"); a "
        "trace is replayed by SimGrid (engine \"sim\")");
  const study::SweepRunner r = runner(R"("scenarios": [{"platform": "tiny.json", "ranks": 2, "bytes": 4}]})", "sim");
  CHECK(r.engine() == study::SweepEngine::kSim);
}

TEST_CASE("sweep rows as CSV (nulls empty, text quoted where it must be) and as JSON", "[study]") {
  const study::SweepSpec spec = study::parse_sweep_spec(
      R"({"format": "ccsim-sweep", "version": 1, "mode": "collective",
          "scenarios": [{"platform": "p", "ranks": 2, "bytes": 4}]})",
      "s.json");
  std::vector<nlohmann::ordered_json> rows(2);
  rows[0]["scenario"] = 1;
  rows[0]["status"] = "refused: a, b";
  rows[0]["time_ms"] = nullptr;
  rows[1]["scenario"] = 2;
  rows[1]["status"] = "ok";
  rows[1]["time_ms"] = 1.5;
  CHECK(study::render_sweep_rows(spec, study::SweepEngine::kClosedForm, rows, "csv") ==
        "scenario,status,time_ms\n1,\"refused: a, b\",\n2,ok,1.5\n");
  const nlohmann::ordered_json doc =
      nlohmann::ordered_json::parse(study::render_sweep_rows(spec, study::SweepEngine::kSim, rows, "json"));
  CHECK(doc["sweep"] == "s.json");
  CHECK(doc["mode"] == "collective");
  CHECK(doc["engine"] == "sim");
  CHECK(doc["scenarios"] == 1);
  CHECK(doc["rows"].size() == 2);
}

TEST_CASE("a sweep's rows come from its outcomes in scenario order; a failure is rethrown") {
  const std::vector<std::string> outcomes = {
      engine::encode_outcome([] { return std::string(R"([{"a": 1}])"); }),
      engine::encode_outcome([] { return std::string(R"([{"a": 2}, {"a": 3}])"); })};
  const std::vector<nlohmann::ordered_json> rows = study::outcome_rows(outcomes);
  REQUIRE(rows.size() == 3);
  CHECK(rows[2]["a"] == 3);
  const std::vector<std::string> failed = {
      outcomes[0], engine::encode_outcome([]() -> std::string { throw InputError("spec.json", 3, "x", "bad"); })};
  CHECK(test::message_of([&] { study::outcome_rows(failed); }) == "spec.json:3: field 'x': bad");
  CHECK(test::message_of<std::runtime_error>([&] {
          study::outcome_rows({outcomes[0], ""});
        }) == "scenario 2 was not evaluated");
}
