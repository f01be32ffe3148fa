// Calibrating a network tier on the committed measurements of tests/data/measure/ and
// tests/data/external/ (calibrate/network_calibration.hpp): what `ccsim calibrate network`
// prints and writes rests on these results.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "calibrate/network_calibration.hpp"
#include "core/input_error.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;

namespace {

const std::string kMeasure = CCSIM_SOURCE_DIR "/tests/data/measure/";

std::size_t fitted_points(const std::vector<calibrate::PointFit>& points) {
  return static_cast<std::size_t>(std::count_if(points.begin(), points.end(), [](const auto& p) { return p.fitted; }));
}

}  // namespace

TEST_CASE("a series measured on several nodes is the inter tier's, and intra is refused for it", "[calibrate]") {
  calibrate::MeasurementFile file;
  file.file = "m.json";
  file.nodes = 1;
  CHECK(calibrate::measurement_tier(file, "") == "intra");
  CHECK(calibrate::measurement_tier(file, "inter") == "inter");
  file.nodes = 2;
  CHECK(calibrate::measurement_tier(file, "") == "inter");
  CHECK_THROWS_WITH(calibrate::measurement_tier(file, "intra"),
                    "command line: field '--tier': m.json was measured on 2 nodes (machine.nodes), so its messages "
                    "crossed nodes: they are the inter-node tier's (--tier inter, the default for such a file), not "
                    "intra");
}

TEST_CASE("a library's series fitted on alternate sizes, judged poor against its assumed noise", "[calibrate]") {
  calibrate::NetworkCalibrationRequest request;
  request.measurements = CCSIM_SOURCE_DIR "/tests/data/external/osu_allreduce-tcp-np2.txt";
  request.ranks = 2;
  const calibrate::NetworkCalibration c = calibrate::calibrate_network(request);
  CHECK(c.series == "MPI_Allreduce/mpi");  // the file's only series
  CHECK(c.tier == "intra");
  REQUIRE(c.fit.points.size() == 17);
  CHECK(fitted_points(c.fit.points) == 9);  // 1 KiB, 4 KiB, ..., 64 MiB
  CHECK(c.warning ==
        "a poor fit: gmean error of the held-out points 28.7% is more than 2 times the measurement's noise (+-10.0%, "
        "assumed: the file records no spread of repetitions); 7 of 17 points are off by more than 20.0%: 8 KiB "
        "+68.2% (held-out), 128 KiB -48.0% (held-out), 256 KiB -31.2% (fitted), 2 MiB +27.9% (held-out), 4 MiB "
        "+23.6% (fitted), 32 MiB -29.3% (held-out), 64 MiB -27.5% (fitted)");
  CHECK(calibrate::poor_fit_warning(c.fit.points) == c.warning);
  CHECK_FALSE(c.handoff);
  // The model: named after the series, of the intra tier alone, recording what it was fitted on.
  const topology::NetworkModel& m = c.model;
  CHECK(m.name == "fit-MPI_Allreduce-mpi");
  CHECK(m.has_intra);
  CHECK_FALSE(m.has_inter);
  CHECK(m.intra.segments.size() == c.fit.tier.segments.size());
  CHECK(m.source == "measured: " + request.measurements + "; ccsim calibrate network " + request.measurements +
                        " --series MPI_Allreduce/mpi --fit alternate --tier intra");
  REQUIRE(m.fitted_on);
  CHECK(m.fitted_on->series == "MPI_Allreduce/mpi");
  CHECK(m.fitted_on->ranks == 2);
  CHECK(m.fitted_on->bytes.size() == 9);
  CHECK_FALSE(m.fitted_on->content.empty());
}

TEST_CASE("a tier fitted with the hand-off of processes that share a core", "[calibrate]") {
  calibrate::NetworkCalibrationRequest request;
  request.measurements = kMeasure + "shm-np2.json";
  request.shared_core = kMeasure + "shm-np2-1core.json";
  request.name = "shm";
  request.fit = "all";
  const calibrate::NetworkCalibration c = calibrate::calibrate_network(request);
  CHECK(c.series == "ring/mpi");
  CHECK(fitted_points(c.fit.points) == c.fit.points.size());
  REQUIRE(c.handoff);
  CHECK(c.handoff->handoff_s > 0);
  CHECK(c.fit.tier.handoff_s == c.handoff->handoff_s);
  CHECK(c.model.intra.handoff_s == c.handoff->handoff_s);
  CHECK(c.model.name == "shm");
  CHECK_THAT(c.model.source, Contains("--fit all --tier intra --shared-core " + request.shared_core));
  CHECK(c.warning.empty());
}
