#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "calibrate/measurement_file.hpp"
#include "calibrate/handoff_fit.hpp"
#include "calibrate/network_fit.hpp"

// The calibration issue's targets, on the measurements of three machines of this project
// committed in tests/data/measure/ (an AMD EPYC VM), tests/data/measure/xeon/ and xeon2/ (two
// Intel Xeon VMs) (bench/collect_calibration.sh: 2-core VMs, Open MPI 4.1.4, UCX 1.13.1):
//   1. fitted on alternate sizes of one series (np2), the other half within 5 % gmean and
//      15 % worst;
//   2. a model fitted at 2 ranks predicts the same series at 4 ranks within 10 % gmean.
// Each case checks what the honest model achieves (the bound just above it) and WARNs the
// figures; where that misses the target the comment at the case says which and why
// (bench/results/calibration.md has the table of every machine).

using namespace ccsim;

namespace {

// `machine`: "" for the measurements of the AMD EPYC VM (tests/data/measure/), "xeon/" and
// "xeon2/" for the Intel Xeon VMs' (tests/data/measure/xeon/, xeon2/).
std::string measured(const std::string& machine, const std::string& name) {
  return std::string(CCSIM_SOURCE_DIR) + "/tests/data/measure/" + machine + name + ".json";
}

struct Achieved {
  calibrate::ErrorSummary fitted;
  calibrate::ErrorSummary held_out;
  calibrate::ErrorSummary np4;  // fitted on all np2 sizes, every np4 point held out
  double handoff_s = 0;         // the core hand-off the np4 prediction used
  bool np4_measured = false;
};

Achieved run(const std::string& machine, const std::string& network, const std::string& series) {
  const calibrate::SeriesChoice choice = calibrate::parse_series_choice(series, "test", "series");
  Achieved a;
  const calibrate::MeasurementFile np2 = calibrate::read_measurements(measured(machine, network + "-np2"));
  const calibrate::NetworkFit half = calibrate::fit_network(np2, choice, calibrate::FitMode::kAlternate);
  a.fitted = half.fitted;
  a.held_out = half.held_out;
  calibrate::NetworkFit all = calibrate::fit_network(np2, choice, calibrate::FitMode::kAll);
  // The core hand-off, from the same series on 2 processes pinned to one core, where measured.
  if (std::filesystem::exists(measured(machine, network + "-np2-1core"))) {
    const calibrate::MeasurementFile pinned = calibrate::read_measurements(measured(machine, network + "-np2-1core"));
    const bool has = std::any_of(pinned.series.begin(), pinned.series.end(), [&](const calibrate::SeriesPoint& s) {
      return s.algorithm == choice.algorithm && s.transport == choice.transport;
    });
    if (has) all.tier.handoff_s = calibrate::fit_handoff(pinned, choice, all.tier, all.reduce_s_per_byte).handoff_s;
  }
  a.handoff_s = all.tier.handoff_s;
  std::vector<calibrate::PointFit> points;
  const std::string np4_path = measured(machine, network + "-np4");
  if (std::filesystem::exists(np4_path)) {  // not measured on the Xeon's slow link
    const calibrate::MeasurementFile np4 = calibrate::read_measurements(np4_path);
    for (const calibrate::SeriesPoint& s : calibrate::select_series(np4, choice)) {
      calibrate::PointFit p = calibrate::point_fit(s);
      p.predicted_s = calibrate::predict_s(*calibrate::schedule_for(s, choice), all.tier, all.reduce_s_per_byte, {},
                                           calibrate::core_sharing(np4));
      points.push_back(p);
    }
  }
  a.np4_measured = !points.empty();
  if (a.np4_measured) a.np4 = calibrate::summarize(points, false);
  const std::string np4 = a.np4_measured ? fmt::format("np2->np4 gmean {:5.1f}% worst {:5.1f}% (hand-off {:.2f} us)",
                                                       a.np4.gmean * 100, a.np4.worst * 100, a.handoff_s * 1e6)
                                         : std::string("np4 not measured");
  WARN(fmt::format(
      "{:<5} {:<6} {:<18} np2 fitted gmean {:5.1f}% worst {:5.1f}% | held-out gmean {:5.1f}% worst {:5.1f}% | {}",
      machine.empty() ? "epyc" : machine.substr(0, machine.size() - 1), network, series, a.fitted.gmean * 100,
      a.fitted.worst * 100, a.held_out.gmean * 100, a.held_out.worst * 100, np4));
  return a;
}

}  // namespace

// Achieved (the bounds below are these figures rounded up to the next percent; none is a
// target). Measurements of 2026-11-30 19:20-19:46 UTC on an idle machine, 7 rounds of 3
// repetitions, 33 sizes at 2 processes (tests/data/README.md).
// - target 1 (5 % gmean / 15 % worst held out): tcp ring/mpi 4.3 % / 15.2 % (gmean met,
//   worst 0.2 points over, at 6 MiB); shm ring/mpi 5.6 % / 11.6 % (worst met, gmean 0.6
//   points over). What made it possible: measuring on an idle machine in rounds (a slow
//   spell of the VM had put 4-32 MiB points 30 % off their neighbours), sizes halfway between
//   the fitted ones, ramps for the cache transition at 1-4 MiB, and Open MPI's eager limits as
//   the breakpoint between the two fitted sizes they separate (a guessed breakpoint beside
//   the limit put 3 KiB messages past the shared-memory step, +165 %, and 48 KiB ones past
//   TCP's, +71 %). What is left is noise: the medians of neighbouring sizes scatter by about
//   5 % while the repetitions spread by +-12 % (shm) to +-31 % (tcp). 1gbit ring/mpi
//   15.8 % / 52.3 %: TCP through the htb shaper is erratic from 2 MiB up (6 MiB took as long
//   as 4 MiB, 48 MiB longer than 64 MiB; repetitions -35 %..+50 %). For MPI_Allreduce the
//   schedule ccsim predicts with (recursive doubling, Rabenseifner, ring) need not be what
//   Open MPI's tuned component ran.
// - target 2 (np2 -> np4 within 10 % gmean): tcp ring/mpi 15.1 %, shm ring/mpi 28.4 % (58-79 %
//   before). 4 processes on 2 cores: every cost x 2 (calibrate::core_sharing) plus, for shm,
//   a core hand-off of 3.3 us per message fitted on 2 processes pinned to one core
//   (tests/data/measure/shm-np2-1core.json; without it 66 %). TCP pinned to one core is
//   faster than x 2 (no wake-up across cores), so no hand-off can be fitted there (0), and
//   its 4-process run still pays about 15 us per step at small sizes. From 256 KiB to 4 MiB
//   the 4 processes are 20-30 % slower than x 2 on shm, which neither the pinned run (x 1.9
//   there) nor the model shows. On 1gbit the np4 run (an older file) is pathological: 1 KiB
//   takes 77 ms instead of 41 us (TCP retransmission timers under the shaped, oversubscribed
//   link).
// The Xeon VM (tests/data/measure/xeon/, 2026-12-02, the same script):
// - target 1: shm ring/mpi 3.9 % / 11.4 % (met), tcp ring/mpi 6.0 % / 15.0 % (gmean 1 point
//   over, worst at the bound), 1gbit ring/mpi 16.7 % / 51.7 %; MPI_Allreduce 12.5-24.6 %.
// - target 2: shm ring/mpi 12.8 % (hand-off 0.27 us), tcp ring/mpi 13.8 % (hand-off 2.39 us).
//   Since a fitted model no longer follows its first segment below the smallest message it
//   was fitted on (TierModel::floor_bytes; 4 processes send 256-byte messages at 1 KiB, 2 sent
//   512): shm ring/mpi 13.3 %, tcp 13.7 %; 1gbit frames 61.1 % (was 63.2), per-port 25.6 %
//   (28.2); the EPYC's within 0.1 point.
//   The misses sit where they sit on the EPYC: shm messages under the eager limit (2-8 KiB
//   buffers, -22..-34 %) and the cache transition (4-16 MiB, -8..-27 %); TCP 4-15 % slower
//   than x 2 at every size but the largest.
// The Xeon's slow link again (tests/data/measure/xeon/1gbit-mtu1500-*.json, 2026-12-02
// 06:23-06:40 UTC), emulated frame by frame: scripts/slowlink.sh now sets lo's MTU and
// largest GSO packet to 1500 bytes while up (burst 3k); before, htb let each message of up to
// 64 KiB out at loopback speed (a 64 KiB all_reduce in 170 us where the link needs 524):
// - target 1: ring/mpi 6.1 % / 20.2 % (was 16.7 % / 51.7 %), MPI_Allreduce 10.6 % / 24.1 %
//   (24.6 % / 70.7 %). What is left: 3-6 KiB (-19..-20 %, the two frames of burst) and
//   128-256 KiB; from 4 MiB up the repetitions still spread -35..+25 % (TCP on the VM).
// - target 2: ring/mpi 63.2 %: the 4 processes' messages all cross the two shaped classes
//   (one per direction of a connection), so each gets about half of what a pair got at 2
//   processes; the model, fitted per message at 2, has no such shared medium.
// Once more (1gbit-perport-*.json, 06:49-07:04 UTC), each process with a full-duplex link of
// its own (scripts/slowlink.sh --links per-port, the default since):
// - target 2: ring/mpi 28.2 % (from 63.2 %): 2-32 MiB within 5 % (with the x 2 of 4
//   processes on 2 cores), misses at 1-8 KiB (-16..-65 %), 256 KiB-1 MiB and 64 MiB (+43..+57 %).
// - target 1: ring/mpi 11.2 % / 44.8 %, MPI_Allreduce 9.5 % / 33.7 %: from 32 MiB up a run
//   either moves at the link's rate or at half of it (48 MiB took 849 ms, 64 MiB 868;
//   repetitions -49..+95 % about the median), the same with mpi_yield_when_idle, so the two
//   runs of the frame-by-frame link differ by that much at the largest sizes.
// A third machine (tests/data/measure/xeon2/, 2026-12-02 14:15-14:29 UTC, the same script): a
// Xeon VM of the same name whose series ran 1.5-2 times faster than xeon/'s (its memcpy 7.4
// against 5.6 GB/s), steady (repetitions +-7 % shm, +-14 % tcp):
// - target 1: shm ring/mpi 5.9 % / 15.4 %, tcp ring/mpi 5.0 % / 15.1 %, 1gbit (frame by frame,
//   per-port links) ring/mpi 8.1 % / 31.8 %: again at the bounds, not under them.
// - target 2: shm ring/mpi 24.0 %, tcp ring/mpi 18.3 %; the pinned runs were faster than x 2
//   at most sizes (two processes on one core share its caches), so the hand-off fits to 0.
//   The measured 4-process ring over the 2-process model's x 2 (np4(n) / (6 np2(n/2)), geometric
//   mean over the sizes) is 1.17 (tcp) and 1.15 (shm) here, 1.18 and 1.13 on xeon/, 1.12 and 1.60
//   on the EPYC: 4 processes time-sharing 2 cores are 12-18 % slower than twice a process with
//   a core on every machine measured, a cost the 2-process runs (pinned or not) do not show.
// The slow link once more (tests/data/measure/xeon2/1gbit-jumbo-np{2,4}.json, 2026-12-02
// 16:13-16:24 UTC) after two faults of the emulation were found: the packets of a connection
// arrived out of order (htb hands them to lo from either CPU), and TCP retransmitted 33,000-
// 47,000 segments per 32 MiB run, so large transfers moved at the link's rate or half of it;
// and at 1500-byte frames the kernel's packet work took most of both CPUs. scripts/slowlink.sh
// now steers each connection through one CPU, sets cubic and sends jumbo frames (9000 bytes):
// - target 1: ring/mpi 8.2 % / 31.5 %: 1-64 MiB within 1.2 % (each size's repetitions within
//   +-1-3 %); the misses are 24-32 KiB (+15..+17 %) and 64-384 KiB (-32..+24 %), the eager
//   limit (64 KiB) and rendezvous through the link, repetitions up to +85 %.
// - target 2: ring/mpi 11.0 % (37.8 % before link_bandwidth_Bps): each process has a link of
//   its own, so sharing a core stretches only the CPU's part of a byte's cost, not the wire's
//   (topology::on_shared_cores); 512 KiB-64 MiB within 17 %, 32-64 MiB within 3.3 %, what is
//   left is 4 processes' packet work on 2 CPUs (1-16 MiB 9-17 % slower than predicted).
//   xeon/1gbit-perport's np4 went from 25.6 % to 69.2 % with the same change: that run's large
//   transfers moved at half the link's rate (the retransmissions), which the x 2 of
//   time-sharing had matched by accident.
TEST_CASE("calibration targets on this machine's measurements", "[calibrate][targets]") {
  struct Bound {
    const char* machine;
    const char* network;
    const char* series;
    double held_out_gmean, held_out_worst, np4_gmean;
  };
  const Bound bounds[] = {
      {"", "shm", "ring/mpi", 0.06, 0.12, 0.29},
      {"", "shm", "MPI_Allreduce/mpi", 0.09, 0.35, 0.83},
      {"", "tcp", "ring/mpi", 0.05, 0.16, 0.16},
      {"", "tcp", "MPI_Allreduce/mpi", 0.21, 0.76, 0.29},
      {"", "1gbit", "ring/mpi", 0.16, 0.53, 22.80},
      {"", "1gbit", "MPI_Allreduce/mpi", 0.27, 0.63, 21.33},
      {"xeon/", "shm", "ring/mpi", 0.04, 0.12, 0.14},
      {"xeon/", "shm", "MPI_Allreduce/mpi", 0.13, 0.55, 0.34},
      {"xeon/", "tcp", "ring/mpi", 0.07, 0.16, 0.14},
      {"xeon/", "tcp", "MPI_Allreduce/mpi", 0.22, 1.03, 0.41},
      {"xeon/", "1gbit", "ring/mpi", 0.18, 0.53, 0},
      {"xeon/", "1gbit", "MPI_Allreduce/mpi", 0.25, 0.71, 0},
      {"xeon/", "1gbit-mtu1500", "ring/mpi", 0.07, 0.21, 0.62},
      {"xeon/", "1gbit-mtu1500", "MPI_Allreduce/mpi", 0.11, 0.25, 0.18},
      {"xeon/", "1gbit-perport", "ring/mpi", 0.12, 0.45, 0.70},
      {"xeon/", "1gbit-perport", "MPI_Allreduce/mpi", 0.10, 0.34, 0.81},
      {"xeon2/", "shm", "ring/mpi", 0.06, 0.16, 0.25},
      {"xeon2/", "shm", "MPI_Allreduce/mpi", 0.20, 0.54, 0.27},
      {"xeon2/", "tcp", "ring/mpi", 0.06, 0.16, 0.19},
      {"xeon2/", "tcp", "MPI_Allreduce/mpi", 0.16, 0.58, 0.36},
      {"xeon2/", "1gbit", "ring/mpi", 0.09, 0.32, 0},
      {"xeon2/", "1gbit", "MPI_Allreduce/mpi", 0.12, 0.53, 0},
      {"xeon2/", "1gbit-jumbo", "ring/mpi", 0.09, 0.32, 0.12},
      {"xeon2/", "1gbit-jumbo", "MPI_Allreduce/mpi", 0.23, 0.51, 0.54},
      // The published-runs issue's fresh shared-memory run (2026-12-05): fitted 5.4 % / 11.7 %,
      // held out 5.9 % / 11.9 % for the ring; MPI_Allreduce's repetitions spread +-17 %.
      {"epyc2/", "shm", "ring/mpi", 0.07, 0.13, 0},
      {"epyc2/", "shm", "MPI_Allreduce/mpi", 0.18, 0.37, 0},
  };

  for (const Bound& b : bounds) {
    INFO(b.machine << b.network << " " << b.series);
    const Achieved a = run(b.machine, b.network, b.series);
    CHECK(a.held_out.gmean < b.held_out_gmean);
    CHECK(a.held_out.worst < b.held_out_worst);
    if (a.np4_measured) CHECK(a.np4.gmean < b.np4_gmean);
  }
}

// The published-runs issue: a fresh shared-memory ring fitted on alternate sizes left its own
// fitted points 10 % off (27 % at 64 MiB) where the time per byte rises between 4 and 16 MiB.
// The segments with a ramp between steps follow that rise: on the fresh run of 2026-12-05 the
// fitted points are 5.4 % off (worst 11.7 %), as much as the held-out ones (5.9 %), within the
// repetitions' own spread (+-6.4 %).
TEST_CASE("calibration: a fresh shared-memory ring fits its own points as well as the held-out ones",
          "[calibrate][targets]") {
  const Achieved a = run("epyc2/", "shm", "ring/mpi");
  CHECK(a.fitted.gmean < 0.06);
  CHECK(a.fitted.worst < 0.13);
  CHECK(a.held_out.gmean < 0.07);
}
