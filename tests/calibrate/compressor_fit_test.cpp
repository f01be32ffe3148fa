#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "calibrate/compressor_fit.hpp"
#include "compress/codec.hpp"
#include "compress/codec_benchmark.hpp"
#include "compress/model_reader.hpp"
#include "core/input_error.hpp"

using ccsim::InputError;
using namespace ccsim::calibrate;

namespace {

std::vector<FitPoint> synthetic(double t0_s, double rate_Bps) {
  std::vector<FitPoint> points;
  for (double bytes = 4096; bytes <= 16.0 * 1024 * 1024; bytes *= 4) points.push_back({bytes, t0_s + bytes / rate_Bps});
  return points;
}

std::string fit_error(const std::vector<FitPoint>& points, bool clamp = false) {
  try {
    fit_affine(points, clamp, "toy compress");
  } catch (const FitError& e) {
    return e.what();
  }
  return "no error";
}

/// A bench document whose measurement (line 11) is `measurement`.
std::string bench(const std::string& measurement, const std::string& format = "ccsim-compressor-bench") {
  return "{\n"
         "  \"format\": \"" +
         format +
         "\",\n"
         "  \"version\": 1,\n"
         "  \"command\": \"bench\",\n"
         "  \"machine\": {\"cpu\": \"a CPU\", \"cores\": 2, \"memory_Bps\": 5e9, \"memory_source\": \"memcpy\"},\n"
         "  \"timing\": \"thread CPU time\",\n"
         "  \"data\": [\n"
         "    {\"name\": \"g.f32\", \"elements\": 65536, \"min\": -1, \"max\": 1}\n"
         "  ],\n"
         "  \"measurements\": [\n" +
         measurement +
         "\n  ]\n"
         "}\n";
}

std::string bench_error(const std::string& text) {
  try {
    parse_compressor_bench(text, "b.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kPoint =
    "\"codec\": \"int8\", \"spec\": \"int8\", \"rel\": 0, \"tolerance\": 0, \"threads\": 1, \"chunk_elements\": 1024, "
    "\"calls\": 64, \"repetitions\": 3, \"raw_bytes\": 262144, \"compressed_bytes\": 66560, \"ratio\": 3.94, "
    "\"compress_s\": 1e-4, \"decompress_s\": 8e-5, \"small_call_s\": 1e-7, \"max_error\": 0.001";

}  // namespace

TEST_CASE("an affine fit recovers a known t0 and rate from exact points", "[calibrate]") {
  AffineFit fit = fit_affine(synthetic(2.5e-6, 4.2e9), false, "toy compress");
  CHECK(std::fabs(fit.t0_s - 2.5e-6) <= 1e-9 * 2.5e-6);
  CHECK(std::fabs(fit.rate_Bps - 4.2e9) <= 1e-9 * 4.2e9);
  CHECK_FALSE(fit.t0_clamped);
  CHECK(fit.geomean_error < 1e-12);
  REQUIRE(fit.residuals.size() == 7);  // 4 KiB, 16 KiB, ..., 16 MiB
  for (double r : fit.residuals) CHECK(std::fabs(r) < 1e-12);
}

TEST_CASE("an affine fit with a negative t0 is refused, or clamped when asked", "[calibrate]") {
  std::vector<FitPoint> points = {{1e4, 9e-6}, {1e5, 9.9e-5}, {1e6, 9.99e-4}};  // -1 us + bytes / 1 GB/s
  CHECK(
      fit_error(points) ==
      "toy compress: the fit gives a negative fixed cost t0 = -1e-06 s (rate 1 GB/s): the points do not show a cost "
      "per call; refused. Measure more repetitions or smaller chunks, or pass --clamp-t0 to fit the rate with t0 = 0");
  AffineFit fit = fit_affine(points, true, "toy compress");
  CHECK(fit.t0_clamped);
  CHECK(fit.t0_s == 0);
  CHECK(fit.rate_Bps > 1e9);
}

TEST_CASE("an affine fit needs two sizes and a positive rate", "[calibrate]") {
  CHECK(fit_error({{4096, 1e-6}, {4096, 1.1e-6}}) ==
        "toy compress: t0 + bytes / rate needs at least two chunk sizes, got 1; run the benchmark with --chunks (e.g. "
        "--chunks 4KiB,64KiB,1MiB,16MiB)");
  CHECK(fit_error({{1e4, 2e-6}, {1e6, 1e-6}}, true) ==
        "toy compress: the time per call does not grow with the chunk size (slope -1.01e-12 s/byte), so no positive "
        "rate fits; refused");
}

TEST_CASE("benchmark file errors name file, line and field word for word", "[calibrate]") {
  CHECK(bench_error(bench("    {" + kPoint + ", \"data\": \"g.f32\"}", "ccsim-bench")) ==
        "b.json:2: field 'format': expected \"ccsim-compressor-bench\", got \"ccsim-bench\"");
  CHECK(bench_error(bench("    {" + kPoint + ", \"data\": \"h.f32\"}")) ==
        "b.json:11: field 'measurements[0].data': expected one of the data files (g.f32), got \"h.f32\"");
  CHECK(bench_error(bench("    {" + kPoint + ", \"data\": \"g.f32\", \"chunk\": 4}")) ==
        "b.json:11: field 'measurements[0].chunk': unknown key; valid keys here: add_s, calls, chunk_elements, codec, "
        "compress_s, compressed_bytes, data, decompress_s, max_error, ratio, raw_bytes, rel, repetitions, "
        "small_call_s, spec, threads, tolerance");
  CHECK(bench_error(bench("    {" + kPoint + ", \"data\": \"g.f32\"}")
                        .replace(bench("").find("\"cores\": 2"), 10, "\"cores\": 0")) ==
        "b.json:5: field 'machine.cores': expected a positive integer, got \"0\"");
  // A relative bound of 1 or more is no setting a compressor model can have (a fuzz finding:
  // the fit wrote a model its reader refused).
  std::string point = kPoint;
  point.replace(point.find("\"rel\": 0"), 8, "\"rel\": 1.01");
  CHECK(bench_error(bench("    {" + point + ", \"data\": \"g.f32\"}")) ==
        "b.json:11: field 'measurements[0].rel': expected a relative bound below 1, got \"1.01\"");
}

TEST_CASE("a fit to a model ccsim would not read is refused with the bench file named", "[calibrate]") {
  // A fuzz finding: measurements of a ratio of 1e-9 (compressed 10^9 times the raw bytes) fit
  // to a setting whose ratio the model reader refuses; the fit wrote it.
  CompressorBench b =
      read_compressor_bench(std::string(CCSIM_SOURCE_DIR) + "/tests/fuzz/regressions/compressor_bench/ratio-1e-9.json");
  std::string message;
  try {
    fit_compressor(b, {});
  } catch (const InputError& e) {
    message = e.what();
  }
  // Its errors also break the bound, which is refused first since 2026-12-03.
  CHECK(message.find("broke its error bound here") != std::string::npos);
  for (BenchMeasurement& m : b.measurements) m.max_error = std::min(m.max_error, m.tolerance);
  message.clear();
  try {
    fit_compressor(b, {});
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(message.find("ratio-1e-9.json: field 'measurements': fit to a model outside what a compressor model may hold "
                     "(settings[1].ratio: expected a number from 0.1 to 1e+06, got \"1.129e-09\"): the measurements "
                     "of that setting are not a compressor's") != std::string::npos);
}

TEST_CASE("a fit with one chunk size is refused with the bench file named", "[calibrate]") {
  CompressorBench b = parse_compressor_bench(bench("    {" + kPoint + ", \"data\": \"g.f32\"}"), "b.json");
  CompressorFitOptions options;
  options.command = "ccsim calibrate compressor b.json";
  try {
    fit_compressor(b, options);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "b.json: field 'measurements': int8 compress: t0 + bytes / rate needs at least two chunk sizes, got 1; run "
          "the benchmark with --chunks (e.g. --chunks 4KiB,64KiB,1MiB,16MiB)");
  }
}

TEST_CASE("the tiny benchmark fits into a model the model reader accepts", "[calibrate]") {
  CompressorBench b = read_compressor_bench(std::string(CCSIM_SOURCE_DIR) + "/tests/data/compressor-bench-tiny.json");
  CompressorFitOptions options;
  options.name = "ccsz-tiny";
  options.command = "ccsim calibrate compressor tests/data/compressor-bench-tiny.json --name ccsz-tiny";
  CompressorFit fit = fit_compressor(b, options);
  ccsim::compress::CompressorModel model = ccsim::compress::parse_compressor_model(fit.model_json, "fit.json");
  CHECK(model.name() == "ccsz-tiny");
  CHECK(model.homomorphic());
  CHECK(model.info().transfer == ccsim::compress::Transfer::kMemoryBound);
  CHECK(model.info().measured_memory_Bps == Approx(b.memory_Bps).epsilon(1e-3));  // 4 digits in the file
  REQUIRE(model.settings().size() == 2);
  for (const auto& s : model.settings()) {
    CHECK(s.compress_Bps > 0);
    CHECK(s.t0_s >= 0);
    CHECK(s.add_t0_s >= 0);
  }
  CHECK(fit.report.find("geometric-mean error") != std::string::npos);
}

TEST_CASE("what the benchmark writes with --json reads back", "[calibrate]") {
  std::vector<float> data(8192);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(std::sin(0.01 * static_cast<double>(i)));
  auto codec = ccsim::compress::make_codec("ccsz:abs=0.001");
  std::vector<ccsim::compress::CodecMeasurement> ms;
  for (std::size_t chunk : {256, 1024, 3000}) {
    ms.push_back(ccsim::compress::measure_codec_chunks(*codec, data, chunk, 1));
    ms.back().data = "sine.f32";
    ms.back().rel = 0.0005;
    ms.back().tolerance = 0.001;
  }
  CHECK(ms[2].calls == 2);  // 8192 / 3000: the tail is left out
  CHECK(ms[2].raw_bytes == 6000.0 * 4);
  CHECK(ms[0].max_error <= 0.001);
  ccsim::compress::MachineInfo machine{"a CPU", 2, 5e9};
  std::string text = ccsim::compress::bench_json(machine, {{"sine.f32", data.size(), -1, 1}}, ms, "bench");
  CompressorBench b = parse_compressor_bench(text, "b.json");
  REQUIRE(b.measurements.size() == 3);
  CHECK(b.measurements[1].chunk_elements == 1024);
  CHECK(b.measurements[1].calls == 8);
  CHECK(b.measurements[1].add_s > 0);
  CHECK(b.memory_Bps == 5e9);
}

TEST_CASE("the command that fits a compressor model, as recorded in the model") {
  CompressorFitOptions options;
  CHECK(compressor_fit_command("bench.json", options) == "ccsim calibrate compressor bench.json");
  options.codec = "ccsz";
  options.name = "mine";
  options.transfer = "none";
  options.clamp_t0 = true;
  options.command = "ignored";
  CHECK(compressor_fit_command("bench.json", options) ==
        "ccsim calibrate compressor bench.json --codec ccsz --name mine --transfer none --clamp-t0");
}
