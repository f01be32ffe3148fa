#include <catch2/catch.hpp>

#include <string>

#include "support/error_of.hpp"
#include "topology/accelerator_profile.hpp"
#include "topology/compute_cost.hpp"

using namespace ccsim;
using topology::AcceleratorProfile;
using topology::parse_accelerator_profile;

namespace {

// Line numbers below count from this text's first line: "gemm" is on line 7.
std::string profile_json(const std::string& gemm_extra = "", const std::string& extra = "") {
  return R"({
  "format": "ccsim-accelerator-profile",
  "version": 1,
  "name": "toy",
  "accelerator": "Toy GPU",
  "sources": ["by hand"],
  "gemm": {
    "multiprocessors": 4,
    "peak_flops": {"bf16": 4e12},
    "default_dtype": "bf16",
    "tiles": [{"m": 128, "n": 128, "efficiency": 1}],
    "efficiency": 1,
    "k_fill": 0,
    "split_k_min": 0,
    "overhead_s": 0,
    "operand_Bps": 0)" +
         gemm_extra + R"(
  },
  "memory": [{"kind": "default", "overhead_s": 1e-6, "bandwidth_Bps": 1e12}],
  "launch_s": 0)" +
         extra + R"(
})";
}

std::string error_of(const std::string& text) {
  return test::message_of([&] { parse_accelerator_profile(text, "p.json"); });
}

GemmShape shape(std::uint32_t m, std::uint32_t n, std::uint32_t k, std::uint32_t batch = 1) {
  return GemmShape{m, n, k, batch, DType::kBF16, false};
}

}  // namespace

TEST_CASE("accelerator profile: a matrix product runs in waves of tiles over the multiprocessors") {
  const AcceleratorProfile p = parse_accelerator_profile(profile_json(), "p.json");
  // One tile of 128 x 128 x 1024 on one of 4 multiprocessors of 1e12 FLOP/s each:
  // 2 * 128 * 128 * 1024 / 1e12 = 33.554432 us; four tiles run at once, the fifth in a second wave.
  const double tile_s = 2.0 * 128 * 128 * 1024 / 1e12;
  CHECK(p.gemm_s(shape(128, 128, 1024)) == Approx(tile_s));
  CHECK(p.gemm_s(shape(512, 128, 1024)) == Approx(tile_s));         // 4 tiles: one wave
  CHECK(p.gemm_s(shape(640, 128, 1024)) == Approx(2 * tile_s));     // 5 tiles: a second wave
  CHECK(p.gemm_s(shape(129, 128, 1024)) == Approx(tile_s));         // 2 tiles (one partial)
  CHECK(p.gemm_s(shape(128, 128, 1024, 5)) == Approx(2 * tile_s));  // batch counts tiles too
  // A backward operator runs the data and the weight gradient: (m, k, n) and (k, n, m).
  GemmShape backward = shape(512, 128, 128);
  backward.backward = true;
  // Data gradient 512 x 128 x 128: 4 tiles of depth 128; weight gradient 128 x 128 x 512: one of depth 512.
  const double grad_s = 2.0 * 128 * 128 * 128 / 1e12 + 2.0 * 128 * 128 * 512 / 1e12;
  CHECK(p.gemm_s(backward) == Approx(grad_s));
}

TEST_CASE("accelerator profile: pipeline fill, split-K, overhead and the launch floor") {
  const AcceleratorProfile fill = parse_accelerator_profile(
      profile_json().replace(profile_json().find("\"k_fill\": 0"), 11, "\"k_fill\": 1024"), "p.json");
  // Depth k runs at k / (k + k_fill): half the rate at k = k_fill.
  CHECK(fill.gemm_s(shape(128, 128, 1024)) == Approx(2 * 2.0 * 128 * 128 * 1024 / 1e12));

  std::string text = profile_json();
  text.replace(text.find("\"split_k_min\": 0"), 16, "\"split_k_min\": 256");
  const AcceleratorProfile split = parse_accelerator_profile(text, "p.json");
  // One tile of depth 4096 on 4 multiprocessors: split in 4 slices of 1024, one wave.
  CHECK(split.gemm_s(shape(128, 128, 4096)) == Approx(2.0 * 128 * 128 * 1024 / 1e12));

  text = profile_json();
  text.replace(text.find("\"launch_s\": 0"), 13, "\"launch_s\": 1e-3");
  const AcceleratorProfile launch = parse_accelerator_profile(text, "p.json");
  CHECK(launch.seconds("gelu", nullptr, 0, 1e3) == Approx(1e-3));  // waits for the host to issue it
  GemmShape backward = shape(128, 128, 128);
  backward.backward = true;
  CHECK(launch.seconds("linear", &backward, backward.flops(), 0) == Approx(2e-3));  // two kernels
}

TEST_CASE("accelerator profile: memory-bound operators on their kind's curve, FLOPs as a square product") {
  std::string text = profile_json();
  text.replace(text.find(R"("memory": [)"), 11,
               R"("memory": [{"kind": "softmax", "overhead_s": 2e-6, "bandwidth_Bps": 5e11}, )");
  const AcceleratorProfile p = parse_accelerator_profile(text, "p.json");
  CHECK(p.seconds("softmax", nullptr, 0, 1e9) == Approx(2e-6 + 1e9 / 5e11));
  CHECK(p.seconds("gelu", nullptr, 0, 1e9) == Approx(1e-6 + 1e9 / 1e12));  // "default"
  // 2 * 256^3 FLOPs: a 256 x 256 x 256 product, 4 tiles of depth 256 in one wave.
  CHECK(p.seconds("linear", nullptr, 2.0 * 256 * 256 * 256, 0) == Approx(2.0 * 128 * 128 * 256 / 1e12));
  const GemmShape g = shape(640, 128, 1024);
  CHECK(p.seconds("linear", &g, g.flops(), 1e12) == Approx(p.gemm_s(g)));  // a shape: its products only
}

TEST_CASE("compute cost: measured, peak and profile") {
  const auto profile = std::make_shared<const AcceleratorProfile>(parse_accelerator_profile(profile_json(), "p.json"));
  topology::AcceleratorSpec acc;
  acc.flops = 1e12;
  acc.memory_Bps = 1e11;
  const GemmShape g = shape(640, 128, 1024);
  topology::ComputeOp op{"linear", "", &g, g.flops(), 1e6, -1};
  topology::PeakCost peak;
  CHECK(peak.seconds(op, acc) == Approx(g.flops() / 1e12));
  op.bytes = 1e12;
  CHECK(peak.seconds(op, acc) == Approx(10.0));  // memory-bound at the peak bandwidth
  topology::MeasuredCost measured(std::make_shared<topology::ProfileCost>(profile, 2.0), 2.0);
  CHECK(measured.seconds(op, acc) == Approx(profile->gemm_s(g) / 2));  // compute.scale=2
  op.measured_s = 3;
  CHECK(measured.seconds(op, acc) == Approx(1.5));
  CHECK(measured.describe() == "profile toy (p.json)");
}

TEST_CASE("accelerator profile: reader errors name file, line and field") {
  std::string format = profile_json();
  format.replace(format.find("ccsim-accelerator-profile"), 25, "ccsim-compute-model");
  CHECK(error_of(format) ==
        "p.json:2: field 'format': expected \"ccsim-accelerator-profile\", got \"ccsim-compute-model\"");
  CHECK(error_of(profile_json(",\n    \"cores\": 3")) ==
        "p.json:17: field 'gemm.cores': unknown key; valid keys here: default_dtype, efficiency, k_fill, "
        "multiprocessors, operand_Bps, overhead_s, peak_flops, split_k_min, tiles");
  std::string bad_dtype = profile_json();
  bad_dtype.replace(bad_dtype.find("{\"bf16\": 4e12}"), 14, "{\"bf16\": 4e12, \"tf32\": 1e12}");
  CHECK(
      error_of(bad_dtype) ==
      "p.json:9: field 'gemm.peak_flops.tf32': expected one of fp32, fp16, bf16, fp64, int32, int8, uint8, got \"tf32\"");
  std::string no_peak = profile_json();
  no_peak.replace(no_peak.find("\"default_dtype\": \"bf16\""), 23, "\"default_dtype\": \"fp32\"");
  CHECK(error_of(no_peak) == "p.json:10: field 'gemm.default_dtype': fp32 has no peak_flops");
  std::string efficiency = profile_json();
  efficiency.replace(efficiency.find("\"efficiency\": 1,"), 16, "\"efficiency\": 1.5,");
  CHECK(error_of(efficiency).find("p.json:12: field 'gemm.efficiency': expected") != std::string::npos);
  std::string no_default = profile_json();
  no_default.replace(no_default.find("\"kind\": \"default\""), 17, "\"kind\": \"copy\"");
  CHECK(error_of(no_default) ==
        "p.json:18: field 'memory': expected a curve of kind \"default\" (for memory-bound operators of other kinds)");
}

TEST_CASE("accelerator profile: written and read back alike") {
  const AcceleratorProfile p = parse_accelerator_profile(profile_json(), "p.json");
  const AcceleratorProfile q = parse_accelerator_profile(topology::write_accelerator_profile(p), "q.json");
  CHECK(q.name == p.name);
  CHECK(q.gemm.tiles.size() == 1);
  CHECK(q.gemm_s(shape(640, 128, 1024)) == p.gemm_s(shape(640, 128, 1024)));
  CHECK(q.memory.size() == 1);
}
