#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "calibrate/compute_backend.hpp"
#include "calibrate/compute_fit.hpp"
#include "calibrate/compute_model.hpp"
#include "calibrate/network_fit.hpp"
#include "core/input_error.hpp"

using namespace ccsim;

TEST_CASE("a fit on absolute residuals keeps the total: a constant is the mean", "[calibrate][predict]") {
  // Relative residuals weigh short operators up: their constant sum(1/t) / sum(1/t^2) is
  // below the mean (here 1.4 ms for 1, 2 and 4 ms); a prediction of totals needs the mean.
  std::vector<std::string> notes;
  const std::vector<calibrate::CostSample> gaps = {{0, 0, 1e-3}, {0, 0, 2e-3}, {0, 0, 4e-3}};
  const auto relative = calibrate::fit_kind("cpu_gap", gaps, notes);
  const auto total = calibrate::fit_kind("cpu_gap", gaps, notes, calibrate::FitObjective::kTotal);
  CHECK(relative.overhead_s == Approx((1.0 + 0.5 + 0.25) / (1.0 + 0.25 + 0.0625) * 1e-3));
  CHECK(total.overhead_s == Approx(7e-3 / 3));
}

TEST_CASE("a fit on absolute residuals adds a term only when it pays for itself (BIC)", "[calibrate][predict]") {
  // time = flops / 4 GFLOP/s, with +-1 % noise alternating: an overhead or a byte term would
  // only follow the noise.
  std::vector<calibrate::CostSample> s;
  for (int i = 1; i <= 40; ++i) {
    const double flops = 1e7 * i;
    const double noise = i % 2 == 0 ? 1.01 : 0.99;
    s.push_back({flops, 3e5 * ((i * 7) % 11 + 1), flops / 4e9 * noise});
  }
  std::vector<std::string> notes;
  const auto m = calibrate::fit_kind("linear", s, notes, calibrate::FitObjective::kTotal);
  CHECK(m.overhead_s == 0);
  CHECK(m.byte_rate == 0);
  CHECK(m.flop_rate == Approx(4e9).epsilon(0.01));
}

TEST_CASE("the traced backend's tier reproduces calls made with it", "[calibrate][predict]") {
  // Calls timed with a known tier: all_reduce by the critical path of the ring schedule of 2
  // ranks (2 messages of n/2 and the reduction of n/2), send/recv one message.
  const double latency = 800e-6, bandwidth = 500e6, reduce = 1 / 2e9;
  topology::TierModel tier;
  tier.segments.push_back({0, latency, bandwidth});
  std::vector<calibrate::CallSample> calls;
  for (double n : {65536.0, 131072.0, 7434240.0}) {
    calibrate::SeriesPoint point;
    point.op = "all_reduce";
    point.implementation = "ccsim-schedule";
    point.algorithm = "ring";
    point.group_size = 2;
    point.bytes = static_cast<std::uint64_t>(n);
    const double ring_s = calibrate::predict_s(*calibrate::schedule_for(point, {}), tier, reduce);
    CHECK(ring_s == Approx(2 * (latency + n / 2 / bandwidth) + n / 2 * reduce));
    calls.push_back({trace::OpKind::kAllReduce, 2, n, ring_s});
    calls.push_back({trace::OpKind::kSend, 2, n, latency + n / bandwidth});
  }
  const auto fit = calibrate::fit_backend(calls, reduce, 1e9, "cpu", "test", "calls.json");
  REQUIRE(fit.model.has_intra);
  REQUIRE(fit.model.intra.segments.size() == 1);
  CHECK(fit.algorithm == "ring");
  CHECK(fit.model.intra.segments[0].latency_s == Approx(latency).epsilon(1e-6));
  CHECK(fit.model.intra.segments[0].bandwidth_Bps == Approx(bandwidth).epsilon(1e-6));
  CHECK(fit.predicted_s == Approx(fit.measured_s).epsilon(1e-9));
  CHECK(fit.notes.empty());
}

TEST_CASE("calls of one size fit the latency at the platform's bandwidth", "[calibrate][predict]") {
  const std::vector<calibrate::CallSample> calls = {{trace::OpKind::kSend, 2, 1e6, 3e-3},
                                                    {trace::OpKind::kSend, 2, 1e6, 5e-3}};
  const auto fit = calibrate::fit_backend(calls, 0, 1e9, "cpu", "test", "calls.json");
  CHECK(fit.model.intra.segments[0].bandwidth_Bps == 1e9);
  CHECK(fit.model.intra.segments[0].latency_s == Approx(4e-3 - 1e-3));
  REQUIRE(fit.notes.size() == 1);
  CHECK(
      fit.notes[0] ==
      "the traced calls have one size (1000000 B): the latency is fitted, the bandwidth is the platform's (1000 MB/s)");
}

TEST_CASE("a backend fit without calls is an error naming the runs", "[calibrate][predict]") {
  CHECK_THROWS_WITH(calibrate::fit_backend({}, 0, 1e9, "cpu", "test", "runs/dp2.json"),
                    "runs/dp2.json: field 'calls': no all_reduce or send/recv call with a measured time (measured_ms): "
                    "the traced backend's cost cannot be fitted");
}

TEST_CASE("a backward operator is its own kind, timed by the forward curve when the model lacks it",
          "[calibrate][predict]") {
  trace::Trace t;
  t.source = "t.json";
  t.world_size = 1;
  t.one_program_per_rank(1);
  for (const char* label : {"mlp.up", "bwd:mlp.up"}) {
    trace::Op op;
    op.name = t.names.intern("linear");
    op.label = t.names.intern(label);
    op.flops = 4e9;
    t.programs[0].ops.push_back(op);
  }
  CHECK(calibrate::compute_kind(t, t.programs[0].ops[0]) == "linear");
  CHECK(calibrate::compute_kind(t, t.programs[0].ops[1]) == "linear:bwd");
  calibrate::ComputeModel model;
  model.name = "m";
  calibrate::KindModel fwd;
  fwd.kind = "linear";
  fwd.flop_rate = 4e9;
  model.kinds.push_back(fwd);
  topology::AcceleratorSpec acc;
  acc.model = "cpu";
  acc.flops = 1e9;
  trace::Trace only_forward = t;
  calibrate::adjust_compute(only_forward, acc, "p", calibrate::ComputeMode::kModel, &model);
  CHECK(only_forward.programs[0].ops[0].duration_s == Approx(1.0));
  CHECK(only_forward.programs[0].ops[1].duration_s == Approx(1.0));
  calibrate::KindModel bwd = fwd;
  bwd.kind = "linear:bwd";
  bwd.flop_rate = 8e9;
  model.kinds.push_back(bwd);
  calibrate::adjust_compute(t, acc, "p", calibrate::ComputeMode::kModel, &model);
  CHECK(t.programs[0].ops[0].duration_s == Approx(1.0));
  CHECK(t.programs[0].ops[1].duration_s == Approx(0.5));
}

TEST_CASE("an MPI network model prices a traced call as one message or as its all_reduce schedule",
          "[calibrate][predict]") {
  const topology::NetworkModel model = topology::read_network_model(CCSIM_SOURCE_DIR "/models/network/local-tcp.json");
  calibrate::CallModel send;
  send.kind = trace::OpKind::kSend;
  // 64 KiB lies in the intra tier's second segment (from 65,472 B): 74.164 us + 65,536 B at 1.433 GB/s.
  CHECK(calibrate::model_call_s(model, send, 65536) ==
        Approx(7.41639408318188e-05 + 65536 / 1433347908.4596982).epsilon(1e-9));
  // MPI_Allreduce of 2 ranks is a ring of two steps of half the buffer each (32 KiB, the first
  // segment), one of them reduced.
  calibrate::CallModel all_reduce;
  all_reduce.ranks = 2;
  CHECK(
      calibrate::model_call_s(model, all_reduce, 65536) ==
      Approx(2 * (2.086387718662266e-05 + 32768 / 1218918804.7808278) + 32768 * model.reduce_s_per_byte).epsilon(1e-9));
  calibrate::CallModel gather;
  gather.kind = trace::OpKind::kAllGather;
  CHECK(std::isnan(calibrate::model_call_s(model, gather, 65536)));
}
