#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "calibrate/profile_fit.hpp"
#include "support/error_of.hpp"
#include "topology/accelerator_profile.hpp"

using namespace ccsim;
using calibrate::GemmPoint;

namespace {

const std::string kData = CCSIM_SOURCE_DIR "/tests/data/h200/";

calibrate::ProfileFitOptions h200_options() {
  calibrate::ProfileFitOptions o;
  o.name = "h200";
  o.accelerator = "NVIDIA H200";
  o.multiprocessors = 132;
  o.peaks = {{DType::kBF16, 9.894e14}, {DType::kF16, 9.894e14}, {DType::kF32, 6.69e13}};
  return o;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / ("ccsim_profile_fit_test_" + name)).string();
  std::ofstream(path) << text;
  return path;
}

/// The kernels one GPT layer of one TP rank runs (bench/device/measure_gpu.py's LayerStack:
/// unfused, as Megatron's default path), priced by `p`: forward, and forward + backward.
struct LayerTimes {
  double forward_s = 0;
  double forward_backward_s = 0;
};
LayerTimes layer_times(const topology::AcceleratorProfile& p, double h, double heads, double tp, double s) {
  const double e = 2, t = s;                   // bf16, micro-batch 1: tokens = s
  const double a = heads / tp, d = h / heads;  // heads per rank, head dimension
  const double act = t * h * e, prob = a * s * s * e, ffn = t * 4 * h / tp * e, qkv = t * 3 * h / tp * e;
  auto gemm = [&](double m, double n, double k, double batch, bool backward) {
    return p.gemm_s(GemmShape{static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(n),
                              static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(batch), DType::kBF16,
                              backward});
  };
  auto mem = [&](const char* kind, double bytes) { return p.seconds(kind, nullptr, 0, bytes); };
  auto pass = [&](bool backward) {
    double s_total = gemm(t, 3 * h / tp, h, 1, backward) + gemm(s, s, d, a, backward) + gemm(s, d, s, a, backward) +
                     gemm(t, h, h / tp, 1, backward) + gemm(t, 4 * h / tp, h, 1, backward) +
                     gemm(t, h, 4 * h / tp, 1, backward);
    if (!backward) {
      s_total += mem("layernorm", 2 * act) * 2 + mem("copy", 2 * prob) * 2 + mem("softmax", 2 * prob) +
                 mem("dropout", 2.5 * prob) + mem("copy", 2 * t * h / tp * e) + mem("gelu", 2 * ffn) +
                 2 * (mem("add", 3 * act) + mem("dropout", 2.5 * act) + mem("add", 3 * act));
    } else {
      s_total += 2 * (mem("dropout", 2.5 * act) + mem("add", act) + mem("layernorm", 3 * act) +
                      mem("layernorm", 2 * act) + mem("add", 3 * act)) +
                 mem("gelu", 3 * ffn) + mem("add", ffn) + mem("dropout", 2.5 * prob) + mem("add", 3 * prob) +
                 mem("softmax", 3 * prob) + mem("copy", 2 * prob) * 2 + mem("copy", 2 * t * h / tp * e) * 2 +
                 mem("copy", 2 * qkv) + mem("add", qkv);
    }
    return s_total;
  };
  return {pass(false), pass(false) + pass(true)};
}

}  // namespace

TEST_CASE("calibrate compute: the H200 sweep fits tiles and waves within 12 % in geometric mean") {
  calibrate::Skipped skipped;
  std::vector<std::vector<GemmPoint>> gemm{calibrate::read_gemm_csv(kData + "gemm.csv", skipped),
                                           calibrate::read_gemm_csv(kData + "gemm_graph.csv", skipped)};
  CHECK(gemm[0].size() == 1435);
  CHECK(skipped.notes.size() == 2);  // each file's tf32 rows: not a trace dtype
  const calibrate::ProfileFit fit = calibrate::fit_profile(
      gemm, {calibrate::read_memory_csv(kData + "memory.csv"), calibrate::read_memory_csv(kData + "memory_graph.csv")},
      calibrate::read_launch_csv(kData + "launch.csv"), skipped, h200_options());
  const topology::FitResidual& bf16 = fit.profile.residuals.front();
  CHECK(bf16.what == "gemm bf16");
  CHECK(bf16.gmean_error < 0.12);
  CHECK(fit.profile.gemm.efficiency > 0.6);
  CHECK(fit.profile.gemm.efficiency < 1);
  CHECK(fit.profile.launch_s == Approx(1.06033345e-05));
  CHECK(fit.report.find("  bf16: ") != std::string::npos);
}

TEST_CASE("calibrate compute: products left out of the fit are predicted within 12 % in geometric mean") {
  calibrate::Skipped skipped;
  std::vector<GemmPoint> all = calibrate::read_gemm_csv(kData + "gemm_graph.csv", skipped);
  for (const GemmPoint& p : calibrate::read_gemm_csv(kData + "gemm.csv", skipped)) {
    if (2.0 * p.m * p.n * p.k * p.batch > 1.5e11) all.push_back(p);  // the graph file has the smaller ones
  }
  std::vector<GemmPoint> fitted, held_out;
  for (std::size_t i = 0; i < all.size(); ++i) (i % 3 == 0 ? held_out : fitted).push_back(all[i]);
  const calibrate::ProfileFit fit = calibrate::fit_profile({fitted}, {}, {}, skipped, h200_options());
  std::vector<double> predicted, measured;
  for (const GemmPoint& p : held_out) {
    if (p.dtype != DType::kBF16) continue;
    predicted.push_back(fit.profile.gemm_s(GemmShape{static_cast<std::uint32_t>(p.m), static_cast<std::uint32_t>(p.n),
                                                     static_cast<std::uint32_t>(p.k),
                                                     static_cast<std::uint32_t>(p.batch), p.dtype, false}));
    measured.push_back(p.seconds);
  }
  const topology::FitResidual r = calibrate::residual_of("held out", predicted, measured);
  CHECK(r.points > 400);
  CHECK(r.gmean_error < 0.12);
}

// The layers of tests/data/h200/layers.csv, summed over their kernels: within 15 % forward and
// backward where matrix products dominate (TP 8, sequence 2,048: -2 % and -3 % when fitted).
// At sequence 4,096 and 8,192 with few TP ranks the unfused attention's memory-bound kernels
// on the s x s scores dominate, and they run slower than the sweep's kernels of their kind
// (the profiler traces: softmax over rows of 8,192 at 0.9 TB/s, the sweep's at 2 TB/s; the
// causal mask's broadcast fill at 1.4 TB/s): the profile has one curve per kind, not per row
// length, and predicts those layers 11 % and 18 % short (forward 25 % and 35 %).
TEST_CASE("calibrate compute: the shipped H200 profile predicts measured GPT layers") {
  struct Bound {
    double forward, forward_backward;
  };
  const std::map<std::string, Bound> bounds{{"gpt3-175b-tp8-s2048", {0.15, 0.15}},
                                            {"gpt-530b-tp8-s2048", {0.15, 0.15}},
                                            {"gpt-7b-tp1-s4096", {0.30, 0.15}},
                                            {"gpt-7b-tp2-s8192", {0.40, 0.20}}};
  const topology::AcceleratorProfile p =
      topology::read_accelerator_profile(CCSIM_SOURCE_DIR "/models/compute/h200.json");
  std::ifstream in(kData + "layers.csv");
  std::string line;
  std::getline(in, line);  // name,hidden,heads,tp,seq,micro_batch,layers,forward_ms,forward_backward_ms,reps
  int rows = 0;
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::vector<std::string> c;
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    REQUIRE(c.size() == 10);
    const double layers = std::stod(c[6]);
    const LayerTimes t = layer_times(p, std::stod(c[1]), std::stod(c[2]), std::stod(c[3]), std::stod(c[4]));
    INFO(c[0] << ": forward " << t.forward_s * layers * 1e3 << " ms predicted, " << c[7]
              << " measured; forward + backward " << t.forward_backward_s * layers * 1e3 << " ms predicted, " << c[8]
              << " measured");
    const Bound& bound = bounds.at(c[0]);
    CHECK(t.forward_s * layers * 1e3 == Approx(std::stod(c[7])).epsilon(bound.forward));
    CHECK(t.forward_backward_s * layers * 1e3 == Approx(std::stod(c[8])).epsilon(bound.forward_backward));
    ++rows;
  }
  CHECK(rows == 4);
}

TEST_CASE("calibrate compute: bad CSV input names file, line and column") {
  calibrate::Skipped skipped;
  const std::string missing = write_temp("missing.csv", "m,n,dtype,seconds\n1,2,bf16,1e-3\n");
  CHECK(test::message_of([&] { calibrate::read_gemm_csv(missing, skipped); }) ==
        missing + ":1: field 'k': expected a column \"k\" in the header, got \"m,n,dtype,seconds\"");
  const std::string bad = write_temp("bad.csv", "m,n,k,dtype,seconds,note\n1,2,3,bf16,1e-3,x\n1,2,0,bf16,1e-3,y\n");
  CHECK(test::message_of([&] { calibrate::read_gemm_csv(bad, skipped); }) ==
        bad + ":3: field 'k': expected a positive integer of at most 2147483647, got \"0\"");
  const std::string seconds = write_temp("seconds.csv", "m,n,k,dtype,seconds\n1,2,3,bf16,-1\n");
  CHECK(test::message_of([&] { calibrate::read_gemm_csv(seconds, skipped); }) ==
        seconds + ":2: field 'seconds': expected a positive number, got \"-1\"");
  const std::string cells = write_temp("cells.csv", "m,n,k,dtype,seconds\n1,2,3,bf16\n");
  CHECK(test::message_of([&] { calibrate::read_gemm_csv(cells, skipped); }) ==
        cells + ":2: expected 5 comma-separated cells as the header has, got 4");
  const std::string fp64 = write_temp("fp64.csv", "m,n,k,dtype,seconds\n1,2,3,fp64,1e-3\n");
  const auto points = calibrate::read_gemm_csv(fp64, skipped);
  CHECK(test::message_of([&] { calibrate::fit_profile({points}, {}, {}, skipped, h200_options()); }) ==
        fp64 + ":2: field 'dtype': fp64 products need --peak fp64=FLOPS (the dense peak)");
}
