// The renderings of calibrate network, validate and calibrate trace
// (calibrate/calibration_report.hpp, calibrate/compute_fit_report.hpp): a point table and its
// error summary by hand, and the reports of fits on the repository's measurements.
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/lines_of.hpp"
#include "calibrate/calibration_report.hpp"
#include "calibrate/compute_fit.hpp"
#include "calibrate/compute_fit_report.hpp"
#include "calibrate/network_calibration.hpp"
#include "trace/native_reader.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

using test::lines_of;

const std::string kMeasure = CCSIM_SOURCE_DIR "/tests/data/measure/";

/// Two points: 1 KiB predicted 10 % high (fitted), 1 MiB 5 % low (held out, with its spread).
std::vector<calibrate::PointFit> two_points() {
  calibrate::PointFit small;
  small.ranks = 2;
  small.bytes = 1024;
  small.measured_s = 10e-6;
  small.predicted_s = 11e-6;
  small.fitted = true;
  calibrate::PointFit large;
  large.ranks = 2;
  large.bytes = 1 << 20;
  large.measured_s = 100e-6;
  large.predicted_s = 95e-6;
  large.p10_s = 90e-6;
  large.p90_s = 110e-6;
  return {small, large};
}

}  // namespace

TEST_CASE("a point table: errors, sets, spread, and the summary of each set", "[calibrate]") {
  const std::vector<std::string> lines = lines_of(calibrate::calibration_report(two_points()));
  REQUIRE(lines.size() == 6);
  CHECK(lines[0] == "ranks       bytes    measured_us   predicted_us     error  set       p10..p90 of the repetitions");
  CHECK(lines[1] == "    2       1 KiB         10.000         11.000    +10.0%  fitted  ");
  CHECK(lines[2] == "    2       1 MiB        100.000         95.000     -5.0%  held-out  -10.0%..+10.0%");
  // gmean: exp(|ln 1.1|) - 1 = 10 %; exp(|ln 0.95|) - 1 = 1 / 0.95 - 1 = 5.3 %
  CHECK(lines[3] == "fitted     1 points: gmean error 10.0%, worst 10.0%");
  CHECK(lines[4] == "held-out   1 points: gmean error 5.3%, worst 5.0%");
  // sqrt(110 / 90) - 1 = 10.6 %
  CHECK_THAT(lines[5], StartsWith("measurement spread: p10..p90 of the repetitions spans +-10.6% about the median "
                                  "(geometric mean over 1 points)"));
}

TEST_CASE("a point table as JSON: nulls where not measured or no points", "[calibrate]") {
  std::vector<calibrate::PointFit> points = two_points();
  const nlohmann::ordered_json j = calibrate::calibration_json(points);
  CHECK(j["points"].size() == 2);
  CHECK(j["points"][0]["set"] == "fitted");
  CHECK(j["points"][0]["error"].get<double>() == Approx(0.1));
  CHECK(j["points"][0]["p10_s"].is_null());
  CHECK(j["points"][1]["p90_s"].get<double>() == Approx(110e-6));
  CHECK(j["fitted"]["gmean"].get<double>() == Approx(0.1));
  CHECK(j["held_out"]["worst"].get<double>() == Approx(0.05));
  points.pop_back();
  const nlohmann::ordered_json one = calibrate::calibration_json(points);
  CHECK(one["held_out"]["points"] == 0);
  CHECK(one["held_out"]["gmean"].is_null());
  CHECK(one["measurement_spread"].is_null());
}

TEST_CASE("calibrate network's text and JSON on a measured series with a core hand-off", "[calibrate]") {
  calibrate::NetworkCalibrationRequest request;
  request.measurements = kMeasure + "shm-np2.json";
  request.shared_core = kMeasure + "shm-np2-1core.json";
  request.fit = "all";
  const calibrate::NetworkCalibration c = calibrate::calibrate_network(request);
  const std::string text = calibrate::network_calibration_text(c, request);
  const std::vector<std::string> lines = lines_of(text);
  CHECK(lines[0] == "calibrate network: " + request.measurements + ", all_reduce ring/mpi on 2 ranks (schedule " +
                        c.fit.schedule + "), fitted on all sizes");
  CHECK_THAT(text, Contains(calibrate::calibration_report(c.fit.points)));
  CHECK_THAT(text, Contains("model, tier intra: per message send overhead + latency + bytes / bandwidth + receive "
                            "overhead\n" +
                            calibrate::tier_report(c.fit.tier, c.fit.reduce_s_per_byte)));
  CHECK_THAT(text, Contains("shared cores: " + request.shared_core + ", ring/mpi on 2 processes"));
  CHECK_THAT(lines.back(), StartsWith("without the hand-off: gmean error "));

  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(calibrate::network_calibration_json(c, request, "m"));
  CHECK(j["command"] == "calibrate network");
  CHECK(j["series"] == "ring/mpi");
  CHECK(j["points"].size() == c.fit.points.size());
  CHECK(j["model"]["segments"].size() == c.fit.tier.segments.size());
  CHECK(j["model"]["shared_core_handoff_s"].get<double>() == Approx(c.handoff->handoff_s));
  CHECK(j["shared_core"]["core_sharing"].get<double>() == Approx(c.handoff->sharing));
  CHECK(j["warning"].is_null());
  CHECK(j["wrote"] == "m");
  CHECK(
      nlohmann::ordered_json::parse(calibrate::network_calibration_json(c, request, std::nullopt))["wrote"].is_null());
}

TEST_CASE("calibrate trace's report: a row per operator kind and per kind of traced call", "[calibrate]") {
  const trace::Trace t = trace::read_native(CCSIM_SOURCE_DIR "/tests/data/compute/dp2.json");
  const calibrate::ComputeFit fit = calibrate::fit_compute({t});
  const std::vector<std::string> lines = lines_of(calibrate::compute_fit_report(fit, nullptr));
  REQUIRE(lines.size() > 4);
  CHECK_THAT(lines[0],
             StartsWith("measured on \"" + fit.model.hardware.name + "\": " + std::to_string(fit.compute_ops) +
                        " compute operators of " + std::to_string(fit.model.kinds.size()) + " kinds"));
  CHECK(lines[1] == "error = predicted / measured - 1; gmean error = exp(mean |ln(predicted / measured)|) - 1");
  CHECK_THAT(lines[2], StartsWith("compute: time = overhead + flops / flop_rate + bytes / byte_rate, least squares on "
                                  "relative residuals"));
  CHECK_THAT(lines[3], StartsWith("kind              points  distinct  overhead_us       flop_rate"));
  for (std::size_t k = 0; k < fit.model.kinds.size(); ++k) {
    CHECK_THAT(lines[4 + k], StartsWith(fit.model.kinds[k].kind));
  }
  const std::string calls = fit.model.calls.empty()
                                ? "traced collectives and transfers: none with a measured time (measured_ms)"
                                : "traced collectives and transfers: time = latency + bytes / bandwidth per call";
  bool found = false;
  for (const std::string& line : lines) found = found || line.rfind(calls, 0) == 0;
  CHECK(found);
}
