// Predictions from traced runs (predict/prediction.hpp) on the committed runs of
// tests/data/compute/ (two ranks each on the 2 cores of platform local, tp2_pp2 four): the
// library call ccsim predict makes, its figures against the runs' measured times (their
// summary.json, without the profiler) within the bounds of tests/cli/cases/predict.sh.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "core/data_files.hpp"
#include "import/run_summary.hpp"
#include "predict/prediction.hpp"
#include "support/error_of.hpp"
#include "topology/network_model.hpp"
#include "topology/platform.hpp"

using namespace ccsim;

namespace {

const std::string kRuns = CCSIM_SOURCE_DIR "/tests/data/compute/";

/// The shipped platforms and network models; `platforms` counts the platforms read.
study::DataLookup shipped(int* platforms = nullptr) {
  study::DataLookup lookup;
  lookup.platform = [platforms](const std::string& name, const topology::PlatformOverrides& overrides) {
    if (platforms) ++*platforms;
    return topology::read_platform(topology::find_platform(name, {CCSIM_SOURCE_DIR "/platforms"}), overrides);
  };
  lookup.network_model = [](const topology::Platform& platform) -> std::shared_ptr<const topology::NetworkModel> {
    if (platform.network_model.empty()) return nullptr;
    return std::make_shared<const topology::NetworkModel>(
        topology::read_network_model(find_data_file(platform.network_model, {CCSIM_SOURCE_DIR "/models/network"},
                                                    "network_model", "network model", "network models")));
  };
  return lookup;
}

double unprofiled_ms(const std::string& run) {
  return import::read_run_summary(kRuns + run + ".summary.json").unprofiled_ms;
}

}  // namespace

TEST_CASE("a run replayed as traced reproduces its measured iteration within 3 %", "[predict]") {
  predict::PredictOptions options;
  options.runs = {kRuns + "dp2.json"};
  options.traced = true;
  const predict::Prediction p = predict::predict(options, shipped());
  CHECK(p.platform == "local");
  CHECK(p.target == kRuns + "dp2.json as traced (2 ranks, its measured compute durations)");
  REQUIRE(p.runs.size() == 1);
  CHECK(p.runs[0].ranks == 2);
  // The profiled iteration the trace holds, brought to the one measured without the profiler.
  CHECK(p.runs[0].iteration_ms > unprofiled_ms("dp2"));
  CHECK(p.runs[0].profiler_factor == Approx(unprofiled_ms("dp2") / p.runs[0].iteration_ms));
  CHECK(p.trace.world_size == 2);
  CHECK(p.measured_ms == unprofiled_ms("dp2"));  // 582.809 ms
  CHECK(p.measured_from == kRuns + "dp2.summary.json: median iteration without the profiler, max over ranks");
  CHECK(std::abs(p.predicted_ms / p.measured_ms - 1) < 0.03);
  CHECK(p.runs[0].collective_wait_ms == -1);  // a run replayed as traced is the prediction itself
  CHECK(p.compute_model.command == "ccsim predict " + kRuns + "dp2.json");
}

TEST_CASE("a configuration predicted from the other runs: the shared run left out, within 8 %", "[predict]") {
  predict::PredictOptions options;
  options.runs = {kRuns + "tp2_pp1.json", kRuns + "tp1_pp2.json", kRuns + "tp2_pp2.json"};
  options.config = {kRuns + "dp2.summary.json"};
  const predict::Prediction p = predict::predict(options, shipped());
  CHECK(p.target ==
        "small-gpt (hidden 256, 2 layers, 8 heads, sequence 64, vocabulary 512, relu), TP 1 x PP 1 x DP 2, 4 "
        "micro-batches of 1, GPipe");
  CHECK(p.sharing_note == "left out of the fit: " + kRuns + "tp2_pp2.json (more ranks than 2 cores of local)");
  CHECK(p.trace.world_size == 2);
  CHECK(p.measured_ms == unprofiled_ms("dp2"));
  REQUIRE(p.measured_runs.size() == 1);
  CHECK(p.measured_runs[0].file == kRuns + "dp2.summary.json");
  CHECK(std::abs(p.predicted_ms / p.measured_ms - 1) < 0.08);
  CHECK(p.config_note.empty());
  // Each fitted run with collectives replayed as traced: its ranks' wait at collectives and compute.
  REQUIRE(p.runs.size() == 3);
  CHECK(p.runs[0].compute_ms > 0);
  CHECK(p.runs[2].compute_ms == -1);  // left out of the fit: not replayed
  const std::string text = predict::prediction_text(p, false);
  CHECK(text.find(fmt::format("predicted iteration: {:.3f} ms\n", p.predicted_ms)) != std::string::npos);
  CHECK(text.find(fmt::format("error: {:+.2f} %\n", 100 * (p.predicted_ms / p.measured_ms - 1))) != std::string::npos);
}

TEST_CASE("options that change the configuration of --config leave its measurement uncompared", "[predict]") {
  predict::PredictOptions options;
  options.runs = {kRuns + "tp2_pp1.json"};
  options.config = {kRuns + "dp2.summary.json"};
  options.par.tp = 2;
  options.par.dp = 1;
  options.given_tp = options.given_dp = true;
  options.layers = 8;
  const predict::Prediction p = predict::predict(options, shipped());
  CHECK(p.measured_ms == -1);
  CHECK(p.measured_runs.empty());
  CHECK(p.config_note == "the command line changes the configuration of " + kRuns +
                             "dp2.summary.json (tp 1 -> 2, dp 2 -> 1, layers 2 -> 8): its measured time is not "
                             "compared (--measured-ms gives one)");
  // --measured-ms is compared whatever the configuration.
  options.measured_ms = 1000;
  CHECK(predict::predict(options, shipped()).measured_ms == 1000);
}

TEST_CASE("bad options are refused before the platform is read", "[predict]") {
  int platforms = 0;
  predict::PredictOptions options;
  CHECK(test::message_of([&] { predict::predict(options, shipped(&platforms)); }) ==
        "command line: field 'runs': expected at least one traced run to fit on");
  options.runs = {kRuns + "dp2.json"};
  for (double bad : {-5.0, 0.0, std::numeric_limits<double>::quiet_NaN(), 1e300}) {
    options.measured_ms = bad;
    CHECK_THAT(test::message_of([&] { predict::predict(options, shipped(&platforms)); }),
               Catch::Matchers::StartsWith("command line: field '--measured-ms': expected a positive time in ms, at "
                                           "most 3.15576e+10 (a year), got"));
  }
  CHECK(platforms == 0);
  options.measured_ms.reset();
  options.runs = {kRuns + "nope.json"};
  CHECK(test::message_of([&] { predict::predict(options, shipped(&platforms)); }) ==
        kRuns + "nope.json: no such run: expected a directory of rank<N>.json profiles or a native trace");
  CHECK(platforms == 1);
}

TEST_CASE("an output that is an input read so far is refused before the runs are loaded", "[predict]") {
  predict::PredictOptions options;
  options.runs = {kRuns + "nope.json"};  // never read: the output is refused first
  options.config = {kRuns + "dp2.summary.json"};
  options.outputs = {{"--write-model", kRuns + "dp2.summary.json"}};
  CHECK(test::message_of([&] { predict::predict(options, shipped()); }) ==
        kRuns + "dp2.summary.json: refusing to overwrite an input of this command; write the output to another file");
}
