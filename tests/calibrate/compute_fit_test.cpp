#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "calibrate/compute_fit.hpp"
#include "calibrate/compute_fit_report.hpp"
#include "calibrate/compute_model.hpp"
#include "core/input_error.hpp"
#include "import/kineto.hpp"
#include "trace/native_reader.hpp"
#include "trace/native_writer.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;

namespace {

/// A one-rank trace of compute operators (name, flops, bytes, duration s).
struct Spec {
  std::string name;
  double flops;
  std::uint64_t bytes;
  double seconds;
};

trace::Trace make_trace(const std::vector<Spec>& specs, std::optional<trace::Hardware> hw = std::nullopt) {
  trace::Trace t;
  t.source = "synthetic.json";
  t.name = "synthetic";
  t.world_size = 1;
  t.hardware = std::move(hw);
  t.one_program_per_rank(1);
  int line = 10;
  for (const Spec& s : specs) {
    trace::Op op;
    op.kind = trace::OpKind::kCompute;
    op.name = t.names.intern(s.name);
    op.flops = s.flops;
    op.bytes = s.bytes;
    op.duration_s = s.seconds;
    op.line = line++;
    t.programs[0].ops.push_back(op);
  }
  return t;
}

topology::AcceleratorSpec accelerator(const std::string& model, double flops, double memory_Bps) {
  topology::AcceleratorSpec a;
  a.model = model;
  a.flops = flops;
  a.memory_Bps = memory_Bps;
  return a;
}

}  // namespace

TEST_CASE("compute fit recovers a known overhead, FLOP rate and byte rate exactly") {
  const double overhead = 20e-6, flop_rate = 5e9, byte_rate = 2e9;
  std::vector<calibrate::CostSample> samples;
  for (double f : {1e6, 4e6, 3e7, 2e8, 9e8}) {
    for (double b : {1e5, 7e5, 4e6}) samples.push_back({f, b, overhead + f / flop_rate + b / byte_rate});
  }
  std::vector<std::string> notes;
  const calibrate::KindModel m = calibrate::fit_kind("linear", samples, notes);
  CHECK(m.overhead_s == Approx(overhead).epsilon(1e-9));
  CHECK(m.flop_rate == Approx(flop_rate).epsilon(1e-9));
  CHECK(m.byte_rate == Approx(byte_rate).epsilon(1e-9));
  CHECK(m.points == 15);
  CHECK(m.distinct == 15);
  CHECK(m.gmean_error < 1e-12);
  CHECK(m.worst_error < 1e-12);
  CHECK(m.form == "overhead + flops + bytes");
  CHECK(notes.empty());
}

TEST_CASE("compute fit keeps parameters non-negative and uses the simpler model the data supports") {
  SECTION("a negative overhead is not allowed: the constrained optimum has overhead 0") {
    // t = flops / 1e9 - 5 us would need a negative overhead; NNLS fixes it at 0.
    std::vector<calibrate::CostSample> samples;
    for (double f : {1e5, 1e6, 1e7, 1e8}) samples.push_back({f, 0, f / 1e9 - 5e-6 + 1e-5 * (f == 1e5)});
    std::vector<std::string> notes;
    const calibrate::KindModel m = calibrate::fit_kind("bmm", samples, notes);
    CHECK(m.overhead_s >= 0);
    CHECK(m.flop_rate > 0);
    CHECK(m.byte_rate == 0);
  }
  SECTION("one distinct point: one term, and a note") {
    std::vector<std::string> notes;
    const calibrate::KindModel m = calibrate::fit_kind("softmax", {{1e6, 4e6, 2e-3}, {1e6, 4e6, 2e-3}}, notes);
    CHECK(m.distinct == 1);
    CHECK(m.form == "overhead + flops + bytes (at most 1 term: 1 distinct point)");
    REQUIRE(notes.size() == 1);
    CHECK(notes[0] == "softmax: only 1 distinct (flops, bytes) point, so at most 1 of the 3 terms are fitted");
    CHECK(m.predict_s(1e6, 4e6) == Approx(2e-3).epsilon(1e-12));
  }
  SECTION("a kind without FLOPs or bytes is a constant: the relative least-squares constant") {
    // Minimising sum (o / t - 1)^2 gives o = sum(1/t) / sum(1/t^2).
    std::vector<std::string> notes;
    const calibrate::KindModel m = calibrate::fit_kind("cpu_gap", {{0, 0, 1e-3}, {0, 0, 2e-3}, {0, 0, 4e-3}}, notes);
    const double expected = (1e3 + 5e2 + 2.5e2) / (1e6 + 2.5e5 + 6.25e4);
    CHECK(m.overhead_s == Approx(expected).epsilon(1e-12));
    CHECK(m.flop_rate == 0);
    CHECK(m.byte_rate == 0);
    CHECK(m.form == "overhead");
    CHECK(m.worst_error == Approx(expected / 4e-3 - 1).epsilon(1e-9));  // signed: the farthest operator, 80 % short
  }
}

TEST_CASE("compute fit: a FLOP exponent is fitted where it pays for itself, and only there") {
  using calibrate::FitObjective;
  using calibrate::FlopExponent;
  std::vector<std::string> notes;
  SECTION("time ~ flops^1.2 (a rate that falls with size) is recovered, with the rate at the median size") {
    std::vector<calibrate::CostSample> samples;
    for (double f : {1e6, 3e6, 1e7, 3e7, 1e8}) samples.push_back({f, f / 50, 1e-3 * std::pow(f / 1e7, 1.2)});
    for (FitObjective objective : {FitObjective::kRelative, FitObjective::kTotal}) {
      notes.clear();
      const calibrate::KindModel m = calibrate::fit_kind("linear", samples, notes, objective, FlopExponent::kFit);
      CHECK(m.flop_exponent == Approx(1.2).epsilon(1e-9));
      CHECK(m.flop_reference == 1e7);
      CHECK(m.flop_rate == Approx(1e10).epsilon(1e-6));  // 1e7 FLOPs in 1 ms
      CHECK(m.flop_rate_at(1e8) == Approx(1e10 * std::pow(10.0, -0.2)).epsilon(1e-6));
      CHECK(m.overhead_s == Approx(0).margin(1e-12));
      CHECK(m.byte_rate == 0);  // the exponent takes the byte term's place
      CHECK(m.form == "overhead + flops^p");
      CHECK(m.gmean_error < 1e-6);
      CHECK(m.predict_s(3e7, 0) == Approx(1e-3 * std::pow(3.0, 1.2)).epsilon(1e-6));
      REQUIRE(!notes.empty());
      CHECK_THAT(
          notes.back(),
          Contains("linear: time grows as flops^1.20 over 1e+06-1e+08 FLOPs; its flop_rate holds at 1e+07 FLOPs"));
    }
    // Asked for one rate, the same samples get one.
    const calibrate::KindModel one =
        calibrate::fit_kind("linear", samples, notes, FitObjective::kTotal, FlopExponent::kOne);
    CHECK(one.flop_exponent == 1);
    CHECK(one.flop_reference == 0);
  }
  SECTION("a kind of one rate plus noise keeps exponent 1: the exponent does not pay for itself") {
    std::vector<calibrate::CostSample> samples;
    const double wiggle[] = {1.02, 0.98, 0.98, 1.02, 1.02, 0.98, 1.0, 1.0};  // no trend with size
    int i = 0;
    for (double f : {1e6, 2e6, 4e6, 8e6, 1.6e7, 3.2e7, 6.4e7, 1.28e8}) samples.push_back({f, 0, f / 5e9 * wiggle[i++]});
    for (FitObjective objective : {FitObjective::kRelative, FitObjective::kTotal}) {
      const calibrate::KindModel m = calibrate::fit_kind("linear", samples, notes, objective, FlopExponent::kFit);
      CHECK(m.flop_exponent == 1);
      CHECK(m.flop_rate == Approx(5e9).epsilon(0.02));
    }
  }
  SECTION("too few distinct points or too narrow a range: no exponent") {
    std::vector<calibrate::CostSample> two;
    for (double f : {1e6, 1e8}) two.push_back({f, 0, 1e-3 * std::pow(f / 1e7, 1.2)});
    CHECK(calibrate::fit_kind("linear", two, notes, FitObjective::kTotal, FlopExponent::kFit).flop_exponent == 1);
    std::vector<calibrate::CostSample> narrow;
    for (double f : {1e7, 1.3e7, 1.6e7, 1.9e7}) narrow.push_back({f, 0, 1e-3 * std::pow(f / 1e7, 1.2)});
    CHECK(calibrate::fit_kind("linear", narrow, notes, FitObjective::kTotal, FlopExponent::kFit).flop_exponent == 1);
  }
  SECTION("an exponent at the end of its range is not kept, and a note says why") {
    std::vector<calibrate::CostSample> samples;
    for (double f : {1e6, 3e6, 1e7, 3e7, 1e8}) samples.push_back({f, 0, 1e-3 * std::pow(f / 1e7, 2.0)});
    notes.clear();
    const calibrate::KindModel m =
        calibrate::fit_kind("linear", samples, notes, FitObjective::kTotal, FlopExponent::kFit);
    CHECK(m.flop_exponent == 1);
    REQUIRE(!notes.empty());
    CHECK_THAT(notes.back(),
               Contains("linear: the FLOP exponent fitted to the end of its range (1.50), so one FLOP rate is kept"));
  }
}

TEST_CASE("traced collectives: latency and bandwidth recovered from the least time of each call") {
  trace::Trace t;
  t.source = "calls.json";
  t.world_size = 2;
  t.groups.push_back(trace::Group{"tp0", trace::GroupKind::kTensor, {0, 1}, 0});
  t.one_program_per_rank(2);
  const double latency = 300e-6, bandwidth = 5e8;
  for (std::uint64_t bytes : {4096ULL, 65536ULL, 1048576ULL, 4194304ULL}) {
    for (int r = 0; r < 2; ++r) {
      trace::Op op;
      op.kind = trace::OpKind::kAllReduce;
      op.group = 0;
      op.bytes = bytes;
      // Rank 0 arrives early and waits 1 ms more: the call's cost is rank 1's time.
      op.measured_s = latency + static_cast<double>(bytes) / bandwidth + (r == 0 ? 1e-3 : 0);
      op.name = t.names.intern("all_reduce");
      t.programs[static_cast<std::size_t>(r)].ops.push_back(op);
    }
  }
  trace::Op gemm;
  gemm.name = t.names.intern("linear");
  gemm.flops = 1e6;
  gemm.duration_s = 1e-3;
  t.programs[0].ops.push_back(gemm);
  const calibrate::ComputeFit fit = calibrate::fit_compute({t});
  REQUIRE(fit.model.calls.size() == 1);
  const calibrate::CallModel& c = fit.model.calls[0];
  CHECK(c.kind == trace::OpKind::kAllReduce);
  CHECK(c.ranks == 2);
  CHECK(c.points == 4);
  CHECK(c.latency_s == Approx(latency).epsilon(1e-9));
  CHECK(c.bandwidth_Bps == Approx(bandwidth).epsilon(1e-9));
}

TEST_CASE("compute fit of an empty trace is an error naming the trace") {
  trace::Trace t = make_trace({});
  CHECK_THROWS_WITH(calibrate::fit_compute({t}),
                    "synthetic.json: field 'ranks': no compute operator with a measured duration (duration_ms > 0): "
                    "nothing to fit");
}

TEST_CASE("rescale multiplies by the ratio of peak rates, by kind") {
  // Trace measured on 4 TFLOP/s, 1 TB/s; platform 100 TFLOP/s, 2 TB/s: FLOP ratio 0.04, memory ratio 0.5.
  trace::Trace t = make_trace({{"linear", 8e11, 0, 0.2},
                               {"softmax", 0, 0, 0.01},
                               {"cpu_gap", 0, 0, 0.003},
                               {"mystery", 1e9, 10000000000ULL, 0.05}},
                              trace::Hardware{"paper GPU", 4e12, 1e12, ""});
  const auto acc = accelerator("fast GPU", 100e12, 2e12);
  const calibrate::ComputeAdjustment a =
      calibrate::adjust_compute(t, acc, "fast", calibrate::ComputeMode::kRescale, nullptr);
  CHECK(a.flop_ratio == Approx(0.04));
  CHECK(a.memory_ratio == Approx(0.5));
  CHECK(t.programs[0].ops[0].duration_s == Approx(0.2 * 0.04));
  CHECK(t.programs[0].ops[1].duration_s == Approx(0.01 * 0.5));
  CHECK(t.programs[0].ops[2].duration_s == Approx(0.003));  // host time, kept
  // 0.1 FLOP/byte is below the source's ridge point (4 FLOP/byte): memory-bound whatever its name.
  CHECK(t.programs[0].ops[3].duration_s == Approx(0.05 * 0.5));
  CHECK(a.flop_bound == 1);
  CHECK(a.memory_bound == 2);
  CHECK(a.kept == 1);
  const double factor = (0.008 + 0.005 + 0.003 + 0.025) / (0.2 + 0.01 + 0.003 + 0.05);
  CHECK(a.factor == Approx(factor));
  CHECK(
      a.summary ==
      "compute rescaled x0.1559: trace measured on \"paper GPU\", platform fast's accelerator \"fast GPU\" (1 flop-bound "
      "operators x0.04 (peak 4 TFLOP/s -> 100 TFLOP/s), 2 memory-bound x0.5 (memory 1 TB/s -> 2 TB/s), 1 cpu_gap kept "
      "as recorded (host time))");
}

TEST_CASE("auto keeps the durations of a trace without hardware or on the same accelerator, and rescales otherwise") {
  SECTION("no hardware") {
    trace::Trace t = make_trace({{"linear", 0, 0, 0.2}});
    const auto a = calibrate::adjust_compute(t, accelerator("x", 1e12, 0), "p", calibrate::ComputeMode::kAuto, nullptr);
    CHECK(a.summary == "compute durations as recorded (the trace does not name its hardware)");
    CHECK(t.programs[0].ops[0].duration_s == 0.2);
  }
  SECTION("same accelerator") {
    trace::Trace t = make_trace({{"linear", 0, 0, 0.2}}, trace::Hardware{"x", 1e12, 0, ""});
    const auto a = calibrate::adjust_compute(t, accelerator("x", 1e12, 0), "p", calibrate::ComputeMode::kAuto, nullptr);
    CHECK(a.summary == "compute durations as recorded: trace measured on \"x\", the platform's accelerator");
  }
  SECTION("other accelerator: rescaled, and the report says it was the default") {
    trace::Trace t = make_trace({{"linear", 0, 0, 0.2}}, trace::Hardware{"x", 1e12, 0, ""});
    const auto a = calibrate::adjust_compute(t, accelerator("y", 4e12, 0), "p", calibrate::ComputeMode::kAuto, nullptr);
    CHECK(t.programs[0].ops[0].duration_s == Approx(0.05));
    CHECK_THAT(a.summary,
               Contains("compute rescaled x0.25 by default (other hardware; --compute keep|rescale|model:FILE)"));
  }
  SECTION("other accelerator without peak rates: refused, with the choices") {
    trace::Trace t = make_trace({{"linear", 0, 0, 0.2}}, trace::Hardware{"AMD EPYC", 0, 0, ""});
    CHECK_THROWS_WITH(
        calibrate::adjust_compute(t, accelerator("y", 4e12, 0), "p", calibrate::ComputeMode::kAuto, nullptr),
        "synthetic.json: field 'hardware': the trace was measured on \"AMD EPYC\", not on platform p's accelerator \"y\", "
        "and its compute durations cannot be rescaled: the trace's hardware gives no peak_flops; replaying it on another "
        "accelerator needs a choice: choose --compute keep (the durations as recorded), --compute model:FILE (a compute "
        "model, ccsim calibrate trace) or import the trace with --hardware PLATFORM");
  }
  SECTION("keep on another accelerator says so") {
    trace::Trace t = make_trace({{"linear", 0, 0, 0.2}}, trace::Hardware{"x", 1e12, 0, ""});
    const auto a = calibrate::adjust_compute(t, accelerator("y", 4e12, 0), "p", calibrate::ComputeMode::kKeep, nullptr);
    CHECK(a.summary ==
          "compute durations as recorded (--compute keep): trace measured on \"x\", NOT on platform p's "
          "accelerator \"y\"");
    CHECK(t.programs[0].ops[0].duration_s == 0.2);
  }
}

TEST_CASE("a compute model recomputes each operator, and a kind it lacks is an error naming the operator") {
  calibrate::ComputeModel model = calibrate::parse_compute_model(R"({
  "format": "ccsim-compute-model", "version": 1, "name": "m",
  "hardware": {"name": "x"},
  "kinds": [
    {"kind": "linear", "overhead_s": 1e-5, "flop_rate": 1e9, "byte_rate": 0, "points": 4, "distinct_points": 4,
     "gmean_error": 0.01, "worst_error": 0.02}
  ]
})",
                                                                 "m.json");
  trace::Trace t = make_trace({{"linear", 2e6, 0, 0.5}});
  const auto a = calibrate::adjust_compute(t, accelerator("x", 1e12, 0), "p", calibrate::ComputeMode::kModel, &model);
  CHECK(t.programs[0].ops[0].duration_s == Approx(1e-5 + 2e-3));
  CHECK(a.summary == "compute from model m.json (fitted on \"x\"): x0.00402 of the recorded durations");
  trace::Trace u = make_trace({{"linear", 2e6, 0, 0.5}, {"softmax", 0, 0, 0.1}});
  CHECK_THROWS_WITH(
      calibrate::adjust_compute(u, accelerator("x", 1e12, 0), "p", calibrate::ComputeMode::kModel, &model),
      "synthetic.json:11: field 'ranks[0].ops[1].name': operator kind \"softmax\" is not in compute model "
      "m.json (its kinds: linear)");
}

TEST_CASE("compute model files: bad fields name file, line and field") {
  const std::string head = R"({"format": "ccsim-compute-model", "version": 1, "name": "m", "hardware": {"name": "x"},
"kinds": [)";
  const std::string good =
      R"({"kind": "linear", "overhead_s": 0, "flop_rate": 1e9, "byte_rate": 0, "points": 2, "distinct_points": 2, "gmean_error": 0, "worst_error": 0})";
  CHECK_NOTHROW(calibrate::parse_compute_model(head + good + "]}", "m.json"));
  CHECK_THROWS_WITH(
      calibrate::parse_compute_model(
          head +
              R"({"kind": "linear", "overhead_s": 0, "flop_rate": -1e9, "byte_rate": 0, "points": 2, "distinct_points": 2, "gmean_error": 0, "worst_error": 0})" +
              "]}",
          "m.json"),
      Contains("m.json:2: field 'kinds[0].flop_rate'"));
  CHECK_THROWS_WITH(
      calibrate::parse_compute_model(
          head +
              R"({"kind": "linear", "overhead_s": 0, "flop_rate": 1e9, "byte_rate": 0, "points": 2, "distinct_points": 2, "gmean_error": 0, "worst_error": 0, "speed": 3})" +
              "]}",
          "m.json"),
      Contains("m.json:2: field 'kinds[0].speed'"));
  CHECK_THROWS_WITH(
      calibrate::parse_compute_model(
          head + good +
              R"(], "collectives": [{"kind": "allreduce", "ranks": 2, "latency_s": 1e-4, "bandwidth_Bps": 1e9, "points": 3, "distinct_sizes": 3, "gmean_error": 0, "worst_error": 0}]})",
          "m.json"),
      Contains("m.json:2: field 'collectives[0].kind': expected one of all_reduce, all_gather, reduce_scatter, "
               "broadcast, all_to_all, send, recv, got \"allreduce\""));
  CHECK_THROWS_WITH(
      calibrate::parse_compute_model(
          head +
              R"({"kind": "linear", "overhead_s": 0, "flop_rate": 0, "byte_rate": 0, "points": 2, "distinct_points": 2, "gmean_error": 0, "worst_error": 0})" +
              "]}",
          "m.json"),
      "m.json:2: field 'kinds[0]': kind \"linear\" has no non-zero parameter: it would take no time");
  const std::string kind_head =
      R"({"kind": "linear", "overhead_s": 0, "byte_rate": 0, "points": 2, "distinct_points": 2, "gmean_error": 0, "worst_error": 0, )";
  CHECK_NOTHROW(calibrate::parse_compute_model(
      head + kind_head + R"("flop_rate": 1e9, "flop_exponent": 1.1, "flop_reference": 1e7})" + "]}", "m.json"));
  CHECK_THROWS_WITH(
      calibrate::parse_compute_model(head + kind_head + R"("flop_rate": 1e9, "flop_exponent": 1.1})" + "]}", "m.json"),
      "m.json:2: field 'kinds[0]': flop_exponent 1.1 needs \"flop_reference\", the FLOPs at which flop_rate holds");
  CHECK_THROWS_WITH(
      calibrate::parse_compute_model(
          head + kind_head + R"("flop_rate": 1e9, "flop_exponent": 9, "flop_reference": 1e7})" + "]}", "m.json"),
      Contains("m.json:2: field 'kinds[0].flop_exponent'"));
  CHECK_THROWS_WITH(
      calibrate::parse_compute_model(
          head + kind_head + R"("flop_rate": 1e9, "flop_exponent": 1.1, "flop_reference": 0})" + "]}", "m.json"),
      Contains("m.json:2: field 'kinds[0].flop_reference'"));
  CHECK_THROWS_WITH(
      calibrate::parse_compute_model(
          head +
              R"({"kind": "linear", "overhead_s": 1e-5, "byte_rate": 0, "points": 2, "distinct_points": 2, "gmean_error": 0, "worst_error": 0, "flop_rate": 0, "flop_exponent": 1.1, "flop_reference": 1e7})" +
              "]}",
          "m.json"),
      Contains("m.json:2: field 'kinds[0].flop_exponent': is 1.1 but flop_rate is 0"));
  CHECK_THROWS_WITH(calibrate::parse_compute_model(R"({"format": "ccsim-trace", "version": 1})", "m.json"),
                    Contains("m.json:1: field 'format': expected \"ccsim-compute-model\", got \"ccsim-trace\""));
}

TEST_CASE("compute model written and read back is the same model") {
  trace::Trace t = make_trace({{"linear", 1e6, 10, 1e-3},
                               {"linear", 2e6, 40, 1.9e-3},
                               {"linear", 8e6, 90, 7e-3},
                               {"linear", 3e7, 200, 2.6e-2},
                               {"cpu_gap", 0, 0, 1e-4}},
                              trace::Hardware{"x", 1e12, 1e11, "test"});
  calibrate::ComputeFit fit = calibrate::fit_compute({t});
  fit.model.name = "rt";
  const calibrate::ComputeModel back =
      calibrate::parse_compute_model(calibrate::write_compute_model(fit.model), "rt.json");
  REQUIRE(back.kinds.size() == 2);
  CHECK(back.hardware.name == "x");
  CHECK(back.hardware.peak_flops == 1e12);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(back.kinds[i].kind == fit.model.kinds[i].kind);
    CHECK(back.kinds[i].overhead_s == fit.model.kinds[i].overhead_s);
    CHECK(back.kinds[i].flop_rate == fit.model.kinds[i].flop_rate);
    CHECK(back.kinds[i].byte_rate == fit.model.kinds[i].byte_rate);
    CHECK(back.kinds[i].flop_exponent == 1);
  }
  // An exponent and its reference travel too.
  calibrate::ComputeModel m = fit.model;
  m.kinds[0].flop_exponent = 1.13;
  m.kinds[0].flop_reference = 8e6;
  const calibrate::ComputeModel back2 = calibrate::parse_compute_model(calibrate::write_compute_model(m), "rt.json");
  CHECK(back2.kinds[0].flop_exponent == 1.13);
  CHECK(back2.kinds[0].flop_reference == 8e6);
  CHECK(back2.kinds[0].predict_s(3e7, 200) == m.kinds[0].predict_s(3e7, 200));
}

TEST_CASE("compute model fitted on the imported PyTorch profile of tests/data/kineto/tp2_pp2") {
  const std::string dir = std::string(CCSIM_SOURCE_DIR) + "/tests/data/kineto/tp2_pp2/it0";
  std::vector<import::RankProfile> profiles;
  for (const std::string& f : import::kineto_rank_files({dir})) profiles.push_back(import::read_rank_profile_file(f));
  import::KinetoOptions options;
  options.name = "tp2_pp2";
  options.source = dir;
  const import::KinetoImport imported = import::import_kineto(profiles, options);
  const calibrate::ComputeFit fit = calibrate::fit_compute({imported.trace});
  const calibrate::KindModel* linear = fit.model.find("linear");
  REQUIRE(linear != nullptr);
  // Measured on this 2-core EPYC with reference BLAS, one thread per rank: forward about 3.9
  // GFLOP/s (platforms/local.json estimates 6). Its fit: gmean error 39.0 %, worst 81 % on 136
  // operators of 4 shapes (the 4 ranks share 2 cores, so durations vary with the sharing).
  CHECK(linear->flop_rate > 1e9);
  CHECK(linear->flop_rate < 2e10);
  CHECK(linear->points == 136);
  CHECK(linear->distinct == 4);
  CHECK(linear->gmean_error < 0.5);
  CHECK(linear->worst_error < 0.9);
  // The backward GEMMs (label bwd:<module>) are their own kind: 136 costed operators of 3
  // shapes (the 136 pieces without FLOPs, TBackward0 and the like, left out), faster.
  const calibrate::KindModel* backward = fit.model.find("linear:bwd");
  REQUIRE(backward != nullptr);
  CHECK(backward->points == 136);
  CHECK(backward->distinct == 3);
  CHECK(backward->flop_rate > linear->flop_rate);
  const calibrate::KindModel* gap = fit.model.find("cpu_gap");
  REQUIRE(gap != nullptr);
  CHECK(gap->overhead_s > 0);
  CHECK(gap->flop_rate == 0);
  for (const calibrate::KindModel& k : fit.model.kinds) {
    INFO(k.kind);
    CHECK(k.overhead_s >= 0);
    CHECK(k.flop_rate >= 0);
    CHECK(k.byte_rate >= 0);
  }
  // Collectives and transfers measured by the import: gloo's all_reduce and the pipeline's send/recv.
  // 4 ranks: 2 tensor-parallel pairs x 16 all_reduces per rank = 64 calls (the least over
  // the pair), and 16 pipeline transfers; every call carries its measured time.
  CHECK(fit.calls == 80);
  CHECK(fit.calls_unmeasured == 0);
  REQUIRE(fit.model.calls.size() == 2);
  CHECK(fit.model.calls[0].kind == trace::OpKind::kAllReduce);
  CHECK(fit.model.calls[0].points == 64);
  CHECK(fit.model.calls[1].kind == trace::OpKind::kSend);
  CHECK(fit.model.calls[1].points == 16);
  for (const calibrate::CallModel& c : fit.model.calls) {
    CHECK((c.latency_s > 0 || c.bandwidth_Bps > 0));
  }
}

TEST_CASE("a native trace keeps its hardware and its measured call times through write and read") {
  const std::string text = R"({"format": "ccsim-trace", "version": 1, "name": "hw", "world_size": 2,
"hardware": {"name": "GPU X", "peak_flops": 1e14, "memory_bandwidth": 2e12, "source": "datasheet"},
"groups": [{"name": "tp0", "kind": "tensor", "ranks": [0, 1]}],
"ranks": [{"rank": 0, "ops": [{"kind": "all_reduce", "group": "tp0", "bytes": 1024, "dtype": "fp32", "measured_ms": 1.5}]},
          {"rank": 1, "ops": [{"kind": "all_reduce", "group": "tp0", "bytes": 1024, "dtype": "fp32"}]}]})";
  const trace::Trace t = trace::parse_native(text, "hw.json");
  REQUIRE(t.hardware.has_value());
  CHECK(t.hardware->name == "GPU X");
  CHECK(t.hardware->peak_flops == 1e14);
  CHECK(t.hardware->memory_Bps == 2e12);
  CHECK(t.programs[0].ops[0].measured_s == Approx(1.5e-3));
  CHECK(t.programs[1].ops[0].measured_s < 0);
  std::ostringstream out;
  trace::write_native(t, out, 1);
  const trace::Trace back = trace::parse_native(out.str(), "back.json");
  REQUIRE(back.hardware.has_value());
  CHECK(back.hardware->source == "datasheet");
  CHECK(back.programs[0].ops[0].measured_s == Approx(1.5e-3));
  CHECK(back.programs[1].ops[0].measured_s < 0);

  const std::string no_name = R"({"format": "ccsim-trace", "version": 1, "name": "hw", "world_size": 1,
"hardware": {"peak_flops": 1e14}, "ranks": [{"rank": 0, "ops": []}]})";
  CHECK_THROWS_WITH(trace::parse_native(no_name, "hw.json"), "hw.json:2: field 'hardware.name': missing (required)");
  const std::string zero = R"({"format": "ccsim-trace", "version": 1, "name": "hw", "world_size": 1,
"hardware": {"name": "x", "memory_bandwidth": 0}, "ranks": [{"rank": 0, "ops": []}]})";
  CHECK_THROWS_WITH(trace::parse_native(zero, "hw.json"), Contains("hw.json:2: field 'hardware.memory_bandwidth'"));
}

TEST_CASE("calibrate trace's choices in words, and the model it writes named and described") {
  CHECK(calibrate::fit_objective_of("relative") == calibrate::FitObjective::kRelative);
  CHECK(calibrate::fit_objective_of("total") == calibrate::FitObjective::kTotal);
  CHECK(calibrate::flop_exponent_of("1") == calibrate::FlopExponent::kOne);
  CHECK(calibrate::flop_exponent_of("fit") == calibrate::FlopExponent::kFit);

  calibrate::ComputeFit fit;
  fit.model.hardware.name = "H100";
  calibrate::ComputeFitArgs args;
  args.traces = {"a.json", "b.json"};
  args.output = "models/compute/mine.json";
  calibrate::ComputeModel model = calibrate::compute_model_of(fit, args);
  CHECK(model.name == "mine");  // the output's stem
  CHECK(model.hardware.name == "H100");
  CHECK_THAT(model.description, Contains("measured operators of 2 trace(s)"));
  CHECK(model.command == "ccsim calibrate trace a.json b.json -o models/compute/mine.json");

  args.name = "named";
  args.objective = "relative";
  args.flop_exponent = "1";
  model = calibrate::compute_model_of(fit, args);
  CHECK(model.name == "named");
  CHECK(model.command ==
        "ccsim calibrate trace a.json b.json --objective relative --flop-exponent 1 -o models/compute/mine.json");
  args.name.clear();
  args.output = "-";
  CHECK(calibrate::compute_model_of(fit, args).name == "compute");
}
