// Validating a network model on the committed measurements of tests/data/measure/
// (calibrate/network_validation.hpp) with the models of models/network/ fitted from them: what
// `ccsim validate` prints rests on these results.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "calibrate/benchmark_output.hpp"
#include "calibrate/network_validation.hpp"
#include "core/input_error.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;

namespace {

const std::string kMeasure = CCSIM_SOURCE_DIR "/tests/data/measure/";

topology::NetworkModel shipped(const std::string& name) {
  return topology::read_network_model(CCSIM_SOURCE_DIR "/models/network/" + name + ".json");
}

compress::CompressorModel shipped_compressor(const compress::CompressSpec& spec) {
  return compress::load_compressor(spec, {CCSIM_SOURCE_DIR "/models/compressors"});
}

std::size_t fitted_points(const std::vector<calibrate::PointFit>& points) {
  return static_cast<std::size_t>(std::count_if(points.begin(), points.end(), [](const auto& p) { return p.fitted; }));
}

}  // namespace

TEST_CASE("a model validated on the file it was fitted on holds its fitted points apart", "[calibrate]") {
  const calibrate::MeasurementFile file = calibrate::read_any_measurements(kMeasure + "shm-np2.json");
  const topology::NetworkModel model = shipped("shm-np2-ring-mpi");
  calibrate::ValidationRequest request;
  request.measurements = kMeasure + "shm-np2.json";  // the model records the file's bytes
  request.series = "ring/mpi";
  const calibrate::NetworkValidation v = calibrate::validate_network(file, model, request, shipped_compressor);
  CHECK(v.tier == "intra");
  CHECK(v.schedules == "ring");
  CHECK(v.fitted_file);
  CHECK(v.sharing == 1);
  CHECK_FALSE(v.compressor);
  REQUIRE(v.points.size() == 33);
  CHECK(fitted_points(v.points) == model.fitted_on->bytes.size());
  CHECK(v.points[0].fitted);
  CHECK_FALSE(v.points[1].fitted);
  CHECK(v.points[0].predicted_s == Approx(2.150e-6).margin(5e-10));
  // A tier the model lacks is refused.
  request.tier = "inter";
  CHECK_THROWS_WITH(calibrate::validate_network(file, model, request, shipped_compressor),
                    Contains("network model \"shm-np2-ring-mpi\"") && Contains("has no inter tier"));
}

TEST_CASE("a model validated on 4 processes of 2 cores: every point held out, every cost doubled", "[calibrate]") {
  const calibrate::MeasurementFile file = calibrate::read_any_measurements(kMeasure + "shm-np4.json");
  calibrate::ValidationRequest request;
  request.measurements = kMeasure + "shm-np4.json";
  request.series = "ring/mpi";
  const calibrate::NetworkValidation v =
      calibrate::validate_network(file, shipped("shm-np2-ring-mpi"), request, shipped_compressor);
  CHECK_FALSE(v.fitted_file);
  CHECK(fitted_points(v.points) == 0);
  CHECK(v.sharing == 2);
  REQUIRE(v.extrapolated.size() == 1);
  CHECK(v.extrapolated[0] == 1024);
}

TEST_CASE("a compressed series is validated with its compressor, and only with one", "[calibrate]") {
  const calibrate::MeasurementFile file = calibrate::read_any_measurements(kMeasure + "1gbit-np2.json");
  const topology::NetworkModel model = shipped("1gbit-np2-ring-mpi");
  calibrate::ValidationRequest request;
  request.measurements = kMeasure + "1gbit-np2.json";
  request.series = "compressed-ring/mpi";
  CHECK_THROWS_WITH(calibrate::validate_network(file, model, request, shipped_compressor),
                    Contains("series compressed-ring/mpi is compressed (codec ") &&
                        Contains("give the compressor model, e.g. --compress ccsz:eb=..."));
  request.compress = "ccsz:eb=1e-3,range=5.53e-3";
  request.measured_ratio = true;
  const calibrate::NetworkValidation v = calibrate::validate_network(file, model, request, shipped_compressor);
  CHECK(v.schedules == "compressed-ring");
  CHECK(v.measured_ratio);
  REQUIRE(v.compressor);
  CHECK(v.compressor->basis == "measured setting eb=0.001");
  CHECK(v.compressor->cost.ratio == Approx(12.2).epsilon(1e-3));
  REQUIRE_FALSE(v.compressor->notes.empty());
  CHECK(v.compressor->notes.back() ==
        "ccsz: measured on AMD EPYC, the CPU of " + request.measurements + ": used as measured");
  CHECK(v.points[0].predicted_s == Approx(46.380e-6).margin(5e-10));
  // The plain series takes no compressor.
  request.series = "ring/mpi";
  CHECK_THROWS_WITH(calibrate::validate_network(file, model, request, shipped_compressor),
                    "command line: field '--compress': series ring/mpi is not compressed; --compress applies to "
                    "compressed series");
}
