#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "calibrate/kernel_trace.hpp"
#include "calibrate/profile_fit.hpp"
#include "support/error_of.hpp"
#include "topology/accelerator_profile.hpp"

using namespace ccsim;
using calibrate::GemmPoint;

namespace {

const std::string kLayers = CCSIM_SOURCE_DIR "/tests/data/h200/layers/";
const std::vector<std::string> kTraces{"gpt-530b-tp8-s2048", "gpt-7b-tp1-s4096", "gpt-7b-tp2-s8192",
                                       "gpt3-175b-tp8-s2048"};

calibrate::ProfileFitOptions h200_options() {
  calibrate::ProfileFitOptions o;
  o.name = "h200-traces";
  o.accelerator = "NVIDIA H200";
  o.multiprocessors = 132;
  o.peaks = {{DType::kBF16, 9.894e14}};
  return o;
}

const GemmPoint* find(const std::vector<GemmPoint>& points, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                      std::uint64_t batch) {
  for (const GemmPoint& p : points)
    if (p.m == m && p.n == n && p.k == k && p.batch == batch) return &p;
  return nullptr;
}

double predicted_s(const topology::AcceleratorProfile& profile, const GemmPoint& p) {
  return profile.gemm_s(GemmShape{static_cast<std::uint32_t>(p.m), static_cast<std::uint32_t>(p.n),
                                  static_cast<std::uint32_t>(p.k), static_cast<std::uint32_t>(p.batch), p.dtype,
                                  false});
}

}  // namespace

TEST_CASE("calibrate compute: a profiler trace's kernels are timed per operator by External id") {
  calibrate::Skipped skipped;
  const calibrate::KernelTrace t = calibrate::read_kernel_trace(kLayers + "gpt3-175b-tp8-s2048.trace.json.gz", skipped);
  // Two iterations of two GPT-3 layers of one TP-8 rank: the QKV, projection and MLP products
  // forward, data- and weight-gradient, the attention's batched products, all bf16.
  CHECK(t.gemm.size() == 13);
  const GemmPoint* qkv_wgrad = find(t.gemm, 2048, 1536, 12288, 1);  // median of 4 calls' kernels
  REQUIRE(qkv_wgrad != nullptr);
  CHECK(qkv_wgrad->dtype == DType::kBF16);
  CHECK(qkv_wgrad->seconds == Approx(98.88e-6).epsilon(1e-9));
  CHECK(find(t.gemm, 2048, 2048, 128, 12) != nullptr);  // scores: 12 heads of s x s, head dim 128
  // Dropout over a 2048 x 12288 bf16 activation: read and write it, write a one-byte mask.
  bool dropout = false;
  for (const calibrate::MemoryPoint& p : t.memory)
    dropout = dropout || (p.kind == "dropout" && p.bytes == 5.0 * 2048 * 12288);
  CHECK(dropout);
  CHECK(t.summary.find("204 kernels; 72 products of 13 shapes") != std::string::npos);
  // The kernels of operators that are neither a product nor a memory kind are counted.
  REQUIRE(skipped.notes.size() == 1);
  CHECK(skipped.notes[0].find("32 kernels of 3 other operators, not fitted (aten::sum") != std::string::npos);
}

// Fitted on the products of four GPT layer stacks (48 shapes, each timed by its kernels), the
// profile predicts the sweep's products of the same layers' shapes, timed apart with CUDA
// events and graphs, which the fit never saw.
TEST_CASE("calibrate compute: a profile fitted on profiler traces predicts the GEMM sweep") {
  calibrate::Skipped skipped;
  std::vector<std::vector<GemmPoint>> gemm;
  for (const std::string& name : kTraces)
    gemm.push_back(calibrate::read_kernel_trace(kLayers + name + ".trace.json.gz", skipped).gemm);
  const calibrate::ProfileFit fit = calibrate::fit_profile(gemm, {}, {}, skipped, h200_options());
  const topology::FitResidual& own = fit.profile.residuals.front();
  CHECK(own.points == 48);
  CHECK(own.gmean_error < 0.2);  // 15.4 %: a fifth of them attention's batched products
  std::vector<double> predicted, measured;
  for (const GemmPoint& p : calibrate::read_gemm_csv(CCSIM_SOURCE_DIR "/tests/data/h200/gemm_graph.csv", skipped)) {
    if (p.dtype != DType::kBF16 || 2.0 * p.m * p.n * p.k * p.batch < 1e10) continue;
    predicted.push_back(predicted_s(fit.profile, p));
    measured.push_back(p.seconds);
  }
  for (const GemmPoint& p : calibrate::read_gemm_csv(CCSIM_SOURCE_DIR "/tests/data/h200/gemm.csv", skipped)) {
    if (p.dtype != DType::kBF16 || 2.0 * p.m * p.n * p.k * p.batch <= 1.5e11) continue;
    predicted.push_back(predicted_s(fit.profile, p));
    measured.push_back(p.seconds);
  }
  const topology::FitResidual r = calibrate::residual_of("sweep", predicted, measured);
  INFO("fitted " << own.gmean_error << ", sweep " << r.points << " points, gmean " << r.gmean_error << ", worst "
                 << r.worst_error);
  CHECK(r.points > 500);
  CHECK(r.gmean_error < 0.15);  // 13.0 % measured
}

TEST_CASE("calibrate compute: a trace without kernels or shapes says how to record one") {
  calibrate::Skipped skipped;
  const std::string cpu = CCSIM_SOURCE_DIR "/tests/data/kineto/tp2_pp2/it0/rank0.json";
  CHECK(test::message_of([&] { calibrate::read_kernel_trace(cpu, skipped); }) ==
        cpu +
            ": field 'traceEvents': no device kernels (events of cat \"kernel\"): record the trace with "
            "torch.profiler's activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
  const std::string no_shapes =
      (std::filesystem::temp_directory_path() / "ccsim_kernel_trace_test_no_shapes.json").string();
  std::ofstream(no_shapes) << R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 5, "args": {"External id": 7}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 2, "dur": 3, "args": {"External id": 7}}]})";
  CHECK(test::message_of([&] { calibrate::read_kernel_trace(no_shapes, skipped); }) ==
        no_shapes +
            ": field 'traceEvents': the operators that launched kernels have no args \"Input Dims\": record "
            "the trace with torch.profiler's record_shapes=True");
}

TEST_CASE("calibrate compute: a profile fitted to files names them, a trace's summary first", "[calibrate][profile]") {
  const std::string h200 = CCSIM_SOURCE_DIR "/tests/data/h200/";
  calibrate::ProfileFitOptions options;
  options.name = "h200";
  options.accelerator = "H200";
  options.multiprocessors = 132;
  options.peaks = {{DType::kBF16, 9.894e14}, {DType::kF16, 9.894e14}, {DType::kF32, 6.69e13}};
  options.sources = {"given"};
  const calibrate::ProfileFiles files{
      {h200 + "gemm.csv"}, {}, {kLayers + "gpt-7b-tp1-s4096.trace.json.gz"}, h200 + "launch.csv"};
  const calibrate::ProfileFit fit = calibrate::fit_profile_files(files, options);
  REQUIRE(fit.profile.sources.size() == 2);
  CHECK(fit.profile.sources[0] == "given");
  CHECK(fit.profile.sources[1] == "fitted by ccsim calibrate compute to " + h200 + "gemm.csv, " + kLayers +
                                      "gpt-7b-tp1-s4096.trace.json.gz, " + h200 +
                                      "launch.csv (the command is in \"command\")");
  calibrate::Skipped skipped;
  const calibrate::KernelTrace trace =
      calibrate::read_kernel_trace(kLayers + "gpt-7b-tp1-s4096.trace.json.gz", skipped);
  CHECK(fit.report.starts_with(trace.summary + "\n"));
  CHECK(fit.profile.launch_s == calibrate::read_launch_csv(h200 + "launch.csv").eager_s);
  CHECK(fit.profile.launch_s > 0);
}

TEST_CASE("calibrate compute: the request as typed gives the fit's options and its command line") {
  calibrate::ProfileFitArgs args;
  args.files.gemm = {"gemm.csv", "gemm_graph.csv"};
  args.files.traces = {"trace.json.gz"};
  args.files.launch = "launch.csv";
  args.name = "h200";
  args.accelerator = "NVIDIA H200";
  args.multiprocessors = 132;
  args.peaks = {"bf16=9.894e14", "fp32=6.7e13"};
  args.sources = {"measured"};
  const calibrate::ProfileFitOptions o = calibrate::profile_fit_options(args);
  REQUIRE(o.peaks.size() == 2);
  CHECK(o.peaks[0].dtype == DType::kBF16);
  CHECK(o.peaks[0].flops == 9.894e14);
  CHECK(o.peaks[1].dtype == DType::kF32);
  CHECK(o.default_dtype == DType::kBF16);
  CHECK(o.multiprocessors == 132);
  CHECK(o.sources == args.sources);
  CHECK(o.command ==
        "ccsim calibrate compute --gemm gemm.csv --gemm gemm_graph.csv --profile trace.json.gz --launch launch.csv "
        "--name h200 --accelerator \"NVIDIA H200\" --multiprocessors 132 --peak bf16=9.894e14 --peak fp32=6.7e13 "
        "--source \"measured\"");
  args.default_dtype = "fp16";
  args.description = "one GPU";
  args.output = "models/compute/h200.json";
  args.output_given = true;
  CHECK_THAT(calibrate::profile_fit_options(args).command,
             Catch::Matchers::EndsWith(" --default-dtype fp16 --description \"one GPU\" --source \"measured\" -o "
                                       "models/compute/h200.json"));
  CHECK(calibrate::profile_fit_options(args).default_dtype == DType::kF16);
}

TEST_CASE("calibrate compute: a peak or a default dtype that does not parse names its option") {
  calibrate::ProfileFitArgs args;
  args.peaks = {"bf16:1e15"};
  CHECK_THROWS_WITH(calibrate::profile_fit_options(args),
                    "command line: field '--peak': expected DTYPE=FLOPS with DTYPE one of " +
                        std::string(dtype_choices()) + " and FLOPS positive, got \"bf16:1e15\"");
  args.peaks = {"bf16=-1"};
  CHECK_THROWS_WITH(calibrate::profile_fit_options(args), Catch::Matchers::Contains("got \"bf16=-1\""));
  args.peaks = {"bf16=1e15"};
  args.default_dtype = "bf17";
  CHECK_THROWS_WITH(calibrate::profile_fit_options(args), "command line: field '--default-dtype': expected one of " +
                                                              std::string(dtype_choices()) + ", got \"bf17\"");
}
