#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "calibrate/benchmark_output.hpp"
#include "calibrate/network_fit.hpp"
#include "core/input_error.hpp"
#include "core/json.hpp"
#include "topology/network_model.hpp"
#include "support/error_of.hpp"

using namespace ccsim;
using calibrate::BenchmarkFormat;

namespace {

std::string data(const std::string& name) { return std::string(CCSIM_SOURCE_DIR) + "/tests/data/" + name; }

std::string error_of(const std::string& text, std::optional<int> ranks = std::nullopt) {
  return ccsim::test::message_of([&] { calibrate::parse_benchmark_output(text, "bench.txt", ranks); });
}

const std::string kOsu =
    "# OSU MPI Allreduce Latency Test v7.1\n"
    "# Datatype: MPI_FLOAT.\n"
    "# Size       Avg Latency(us)\n"
    "4                       1.50\n"
    "8                       1.60\n"
    "16                      1.75\n";

}  // namespace

TEST_CASE("benchmark formats are told apart by their content", "[calibrate][external]") {
  CHECK(calibrate::detect_benchmark_format("\n  {\"format\": \"ccsim-measurements\"}") == BenchmarkFormat::kCcsim);
  CHECK(calibrate::detect_benchmark_format(kOsu) == BenchmarkFormat::kOsu);
  CHECK(calibrate::detect_benchmark_format("# nThread 1 nGpus 8 minBytes 8\n") == BenchmarkFormat::kNcclTests);
  CHECK(calibrate::detect_benchmark_format("bytes,time_us\n8,1.0\n") == BenchmarkFormat::kCsv);
}

TEST_CASE("OSU allreduce output becomes one MPI_Allreduce series", "[calibrate][external]") {
  const calibrate::MeasurementFile m = calibrate::parse_benchmark_output(kOsu, "osu.txt", 8);
  REQUIRE(m.series.size() == 3);
  CHECK(m.processes == 8);
  CHECK(m.series[1].algorithm == "MPI_Allreduce");
  CHECK(m.series[1].transport == "mpi");
  CHECK(m.series[1].implementation == "mpi-library");
  CHECK(m.series[1].group_size == 8);
  CHECK(m.series[1].bytes == 8);
  CHECK(m.series[1].median_s == Approx(1.6e-6));
  CHECK(m.series[1].line == 5);
  CHECK(calibrate::default_series(m) == "MPI_Allreduce/mpi");

  // OSU does not record the process count: --ranks is required.
  CHECK_THAT(error_of(kOsu), Catch::Contains("--ranks") && Catch::Contains("does not record the process count"));
  CHECK_THAT(error_of("# OSU MPI Allreduce Latency Test v7.1\n# Size  Avg Latency(us)\n8   fast\n", 2),
             Catch::Contains("bench.txt:3") && Catch::Contains("Latency(us)") && Catch::Contains("\"fast\""));
  CHECK_THAT(error_of("# OSU MPI Bandwidth Test v7.1\n# Size  Bandwidth (MB/s)\n8 1.0\n", 2),
             Catch::Contains("unsupported OSU benchmark") && Catch::Contains("osu_allreduce"));
  CHECK_THAT(error_of("# OSU MPI Allreduce Latency Test v7.1\n# Datatype: MPI_DOUBLE.\n", 2),
             Catch::Contains("Datatype") && Catch::Contains("4-byte"));
  CHECK_THAT(error_of("# OSU MPI Allreduce Latency Test v7.1\n# Size  Avg Latency(us)\n", 2),
             Catch::Contains("no measurements"));
  // One benchmark per file: repeated runs of osu_allreduce read, osu_latency after it does not
  // (its points would take 2 processes, the allreduce points none; found by fuzzing).
  CHECK(calibrate::parse_benchmark_output(std::string(kOsu) + kOsu, "osu.txt", 8).series.size() == 6);
  CHECK(
      error_of("# OSU MPI Allreduce Latency Test v7.1\n# Size  Avg Latency(us)\n4  4\n# OSU MPI Latency Test v7.1\n"
               "# Size  Latency (us)\n4  4\n",
               2) ==
      "bench.txt:4: field 'header': \"OSU MPI Latency Test v7.1\" after osu_allreduce output: one OSU benchmark per file "
      "(osu_allreduce or osu_latency)");
}

TEST_CASE("osu_latency output becomes ping-pong points of 2 processes", "[calibrate][external]") {
  const calibrate::MeasurementFile m = calibrate::read_any_measurements(data("external/osu_latency-tcp.txt"));
  CHECK(m.processes == 2);
  CHECK(m.series.empty());
  REQUIRE(m.p2p.size() == 17);
  CHECK(m.p2p[0].pattern == "ping-pong");
  CHECK(m.p2p[0].bytes == 1024);
  CHECK(m.p2p[0].median_s == Approx(11.40e-6));
}

TEST_CASE("nccl-tests output: the rank lines give the process count", "[calibrate][external]") {
  const calibrate::MeasurementFile m =
      calibrate::read_any_measurements(data("external/nccl_all_reduce_perf-tcp-np2.txt"));
  CHECK(m.processes == 2);
  CHECK(m.nodes == 1);
  REQUIRE(m.series.size() == 17);
  CHECK(m.series[0].algorithm == "ncclAllReduce");
  CHECK(m.series[0].group_size == 2);
  CHECK_THAT(error_of(json::read_file(data("external/nccl_all_reduce_perf-tcp-np2.txt")), 4),
             Catch::Contains("2 ranks") && Catch::Contains("--ranks says 4"));
  CHECK_THAT(error_of("# nThread 1 nGpus 1\n# Collective test starting: all_gather_perf\n"),
             Catch::Contains("all_gather_perf output") && Catch::Contains("all_reduce_perf"));
  CHECK_THAT(
      error_of("# nThread 1 nGpus 1\n#  Rank  0 Group  0 Pid 1 on h device 0\n  1024 256 float sum -1 12.0 0 0 0\n"),
      Catch::Contains("cannot tell which nccl-tests program"));
}

TEST_CASE("CSV: header names the columns; errors name line and column", "[calibrate][external]") {
  const calibrate::MeasurementFile m =
      calibrate::parse_benchmark_output("bytes,time_s,algorithm,transport\n1024,2e-6,ring,ucx\n", "m.csv", 4);
  REQUIRE(m.series.size() == 1);
  CHECK(m.series[0].implementation == "ccsim-schedule");  // ring is a ccsim schedule
  CHECK(m.series[0].algorithm == "ring");
  CHECK(m.series[0].group_size == 4);
  CHECK(m.series[0].median_s == Approx(2e-6));
  CHECK_THAT(error_of("bytes,latency\n8,1\n", 2), Catch::Contains("latency") && Catch::Contains("unknown column"));
  CHECK_THAT(error_of("bytes,time_us\n8,1\n-4,2\n", 2), Catch::Contains("bench.txt:3") && Catch::Contains("bytes"));
  CHECK_THAT(error_of("bytes,time_us\n8,1,3\n", 2), Catch::Contains("expected 2 cells"));
  CHECK_THAT(error_of("ranks,bytes,time_us\n0,8,1\n"), Catch::Contains("ranks") && Catch::Contains("\"0\""));
  CHECK_THAT(error_of("bytes,time_us\n8,inf\n", 2), Catch::Contains("time_us") && Catch::Contains("\"inf\""));
}

// The samples carry the values of the MPI_Allreduce series of external/ccsim-measure-tcp-np2.json
// (tests/data/README.md):
// fitting any of them must give the model the JSON file gives, up to the tools' rounding.
TEST_CASE("a fit on OSU, nccl-tests or CSV output equals the fit on the same values from ccsim measure",
          "[calibrate][external]") {
  calibrate::SeriesChoice json_choice = calibrate::parse_series_choice("MPI_Allreduce/mpi", "test", "series");
  const calibrate::NetworkFit reference =
      calibrate::fit_network(calibrate::read_any_measurements(data("external/ccsim-measure-tcp-np2.json")), json_choice,
                             calibrate::FitMode::kAll);
  for (const char* name : {"external/osu_allreduce-tcp-np2.txt", "external/nccl_all_reduce_perf-tcp-np2.txt",
                           "external/allreduce-tcp-np2.csv"}) {
    INFO(name);
    const calibrate::MeasurementFile m = calibrate::read_any_measurements(data(name), 2);
    const calibrate::SeriesChoice choice =
        calibrate::parse_series_choice(calibrate::default_series(m), "test", "series");
    const calibrate::NetworkFit fit = calibrate::fit_network(m, choice, calibrate::FitMode::kAll);
    REQUIRE(fit.tier.segments.size() == reference.tier.segments.size());
    for (std::size_t i = 0; i < fit.tier.segments.size(); ++i) {
      CHECK(fit.tier.segments[i].min_bytes == reference.tier.segments[i].min_bytes);
      CHECK(fit.tier.segments[i].bandwidth_Bps == Approx(reference.tier.segments[i].bandwidth_Bps).epsilon(0.01));
      CHECK(fit.tier.segments[i].latency_s == Approx(reference.tier.segments[i].latency_s).epsilon(0.01).margin(1e-8));
    }
    CHECK(fit.fitted.gmean == Approx(reference.fitted.gmean).margin(0.002));
  }
}

// platforms/local.json names models/network/local-tcp.json; that model must be what the
// command in its source makes of the committed measurements (platforms/README.md, "How local
// is calibrated"), so that nobody edits the figures by hand.
TEST_CASE("the local platform's network model is the fit of this machine's committed measurements",
          "[calibrate][local]") {
  const topology::NetworkModel shipped =
      topology::read_network_model(std::string(CCSIM_SOURCE_DIR) + "/models/network/local-tcp.json");
  CHECK_THAT(shipped.source, Catch::Contains("tests/data/measure/tcp-np2.json --series ring/mpi --fit all"));
  const calibrate::NetworkFit fit =
      calibrate::fit_network(calibrate::read_any_measurements(data("measure/tcp-np2.json")),
                             calibrate::parse_series_choice("ring/mpi", "test", "series"), calibrate::FitMode::kAll);
  REQUIRE(shipped.has_intra);
  REQUIRE(shipped.intra.segments.size() == fit.tier.segments.size());
  for (std::size_t i = 0; i < fit.tier.segments.size(); ++i) {
    CHECK(shipped.intra.segments[i].min_bytes == fit.tier.segments[i].min_bytes);
    CHECK(shipped.intra.segments[i].latency_s == Approx(fit.tier.segments[i].latency_s).epsilon(1e-9).margin(1e-15));
    CHECK(shipped.intra.segments[i].bandwidth_Bps == Approx(fit.tier.segments[i].bandwidth_Bps).epsilon(1e-9));
  }
  CHECK(shipped.intra.send_overhead_s == Approx(fit.tier.send_overhead_s).margin(1e-15));
  CHECK(shipped.reduce_s_per_byte == Approx(fit.reduce_s_per_byte).margin(1e-18));
}
