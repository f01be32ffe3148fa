#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "compress/compressor_model.hpp"
#include "compress/model_reader.hpp"
#include "core/input_error.hpp"
#include "model_text.hpp"
#include "support/error_of.hpp"

using ccsim::DType;
using ccsim::InputError;
using namespace ccsim::compress;
using namespace ccsim::compress::test;

namespace {

CompressorModel toy() { return parse_compressor_model(document(two_settings()), "toy.json"); }

Query eb(double bound) {
  Query q;
  q.error_bound = bound;
  return q;
}

std::string error_of(const CompressorModel& model, const Query& query, DType dtype = DType::kF32) {
  return ccsim::test::message_of([&] { model.evaluate(query, dtype); });
}

const std::string kRates = "\"compress_Bps\": 600e9, \"decompress_Bps\": 800e9, \"source\": \"estimate\"";

CompressorModel int8_model() {
  return parse_compressor_model(document("    {\"bits\": 8, \"block_elements\": 256, \"scale_bytes\": 4, " + kRates +
                                             "},\n"
                                             "    {\"bits\": 4, \"block_elements\": 256, \"scale_bytes\": 4, " +
                                             kRates + "}",
                                         head(kQuantizerKind, "")),
                                "int8.json");
}

}  // namespace

TEST_CASE("a measured setting is used as is", "[compress]") {
  Evaluation ev = toy().evaluate(eb(1e-3), DType::kF32);
  CHECK_FALSE(ev.clamped);
  CHECK(ev.notes.empty());
  CHECK(ev.basis == "measured setting eb=0.001");
  CHECK(ev.cost.ratio == 22.3);
  CHECK(ev.cost.compress_Bps == 410e9);
  CHECK(ev.cost.decompress_Bps == 628e9);
  CHECK(ev.cost.compress_t0_s == 2e-5);
  CHECK(ev.cost.decompress_t0_s == 2e-5);
  CHECK(std::isinf(ev.cost.add_Bps));  // not homomorphic: no add
}

TEST_CASE("between two settings ratio and throughputs are interpolated log-log", "[compress]") {
  // eb = sqrt(1e-4 * 1e-3) is half way in log(eb), so each log-log value is the geometric
  // mean of the two settings: ratio sqrt(6.28 * 22.3) = 11.8340, compress sqrt(341 * 410)
  // = 373.912 GB/s, decompress sqrt(413 * 628) = 509.278 GB/s; t0 is linear: 15 us.
  Evaluation ev = toy().evaluate(eb(std::sqrt(1e-4 * 1e-3)), DType::kF32);
  CHECK_FALSE(ev.clamped);
  CHECK(ev.notes.empty());
  CHECK(ev.basis == "interpolated between measured settings eb=0.0001 and eb=0.001");
  CHECK(ev.cost.ratio == Approx(11.834018759));
  CHECK(ev.cost.compress_Bps == Approx(373.911754e9));
  CHECK(ev.cost.decompress_Bps == Approx(509.277920e9));
  CHECK(ev.cost.compress_t0_s == Approx(1.5e-5));
}

TEST_CASE("outside the settings the nearest one is used and the evaluation says so", "[compress]") {
  Evaluation tight = toy().evaluate(eb(1e-5), DType::kF32);
  CHECK(tight.clamped);
  CHECK(tight.basis == "clamped to measured setting eb=0.0001");
  CHECK(tight.cost.ratio == 6.28);
  CHECK(tight.cost.compress_Bps == 341e9);
  REQUIRE(tight.notes.size() == 1);
  CHECK(tight.notes[0] ==
        "toy: eb=1e-05 lies outside the settings (the measured range is 0.0001 to 0.001); using the nearest "
        "setting eb=0.0001 unchanged, not extrapolated");

  Evaluation loose = toy().evaluate(eb(0.5), DType::kF32);
  CHECK(loose.clamped);
  CHECK(loose.cost.ratio == 22.3);
}

TEST_CASE("error-bounded ratios scale with the width of the data type", "[compress]") {
  Evaluation ev = toy().evaluate(eb(1e-3), DType::kF16);
  CHECK(ev.cost.ratio == Approx(22.3 / 2));
  REQUIRE(ev.notes.size() == 1);
  CHECK(ev.notes[0] == "toy: ratios were measured on fp32; scaled to fp16 by 2/4 (estimate)");
  CHECK(error_of(toy(), eb(1e-3), DType::kI32) ==
        "--compress: toy compresses floating-point data (fp32, fp16, bf16, fp64), got int32");
}

TEST_CASE("a quantizer's ratio follows from bits, dtype and the scale per block", "[compress]") {
  CompressorModel q = int8_model();
  Query bits8;
  bits8.bits = 8;
  // fp32: 32 * 256 / (8 * 256 + 32) = 3.93846; fp16 and bf16: half that; fp64: double.
  CHECK(q.cost(bits8, DType::kF32).ratio == Approx(3.938461538));
  CHECK(q.cost(bits8, DType::kF16).ratio == Approx(1.969230769));
  CHECK(q.cost(bits8, DType::kBF16).ratio == Approx(1.969230769));
  CHECK(q.cost(bits8, DType::kF64).ratio == Approx(7.876923077));
  Query bits4;
  bits4.bits = 4;
  CHECK(q.cost(bits4, DType::kF32).ratio == Approx(32.0 * 256 / (4 * 256 + 32)));

  Query bits2;
  bits2.bits = 2;
  CHECK(error_of(q, bits2) == "--compress: field 'bits': expected one of 4, 8 (the settings of toy), got \"2\"");
  CHECK(error_of(q, Query{}) ==
        "--compress: field 'bits': missing: toy has several settings (4, 8); choose one, e.g. toy:bits=4");
  CHECK(error_of(q, eb(1e-3)) == "--compress: field 'eb': toy is a quantizer; valid keys: bits, where");
  CHECK(std::isinf(q.absolute_error_bound(bits8, 1.0)));
}

TEST_CASE("a sparsifier's ratio follows from density and index size", "[compress]") {
  CompressorModel s = parse_compressor_model(
      document("    {\"density\": 0.001, \"compress_Bps\": 10e9, \"decompress_Bps\": 100e9, \"source\": \"e\"},\n"
               "    {\"density\": 0.1, \"compress_Bps\": 40e9, \"decompress_Bps\": 400e9, \"source\": \"e\"}",
               head(kSparsifierKind, "  \"index_bytes\": 4,\n")),
      "topk.json");
  Query q;
  q.density = 0.01;
  Evaluation ev = s.evaluate(q, DType::kF32);
  CHECK(ev.cost.ratio == Approx(4.0 / (0.01 * 8)));  // 50
  CHECK(s.cost(q, DType::kF16).ratio == Approx(2.0 / (0.01 * 6)));
  CHECK(ev.cost.compress_Bps == Approx(20e9));  // half way in log density between 10 and 40 GB/s
  CHECK_FALSE(ev.clamped);
  q.density = 0.5;
  Evaluation dense = s.evaluate(q, DType::kF32);
  CHECK(dense.clamped);  // throughputs clamped; the ratio is still exact
  CHECK(dense.cost.ratio == Approx(4.0 / (0.5 * 8)));
  CHECK(dense.cost.compress_Bps == 40e9);
  REQUIRE(dense.notes.size() == 1);
  CHECK(dense.notes[0] ==
        "toy: density=0.5 lies outside the settings (the measured range is 0.001 to 0.1); using the rates of the "
        "nearest setting density=0.1 unchanged, not extrapolated");
}

TEST_CASE("compressing on the host pays a staging copy of the raw bytes", "[compress]") {
  Query q = eb(1e-3);
  q.where = Placement::kHost;
  Evaluation ev = toy().evaluate(q, DType::kF32);
  CHECK(ev.where == Placement::kHost);
  // 1 / (1 / 410 GB/s + 1 / 20 GB/s), and likewise for decompression.
  CHECK(ev.cost.compress_Bps == Approx(1.0 / (1.0 / 410e9 + 1.0 / 2e10)));
  CHECK(ev.cost.decompress_Bps == Approx(1.0 / (1.0 / 628e9 + 1.0 / 2e10)));
  double raw = 64.0 * 1024 * 1024;
  CHECK(ev.cost.compress_s(raw) == Approx(2e-5 + raw / 410e9 + raw / 2e10));
  REQUIRE(ev.notes.size() == 1);
  CHECK(ev.notes[0] ==
        "toy: figures were measured on the accelerator (a GPU); running it on the host reuses them (estimate)");

  q.where = Placement::kAccelerator;
  CHECK(toy().evaluate(q, DType::kF32).cost.compress_Bps == 410e9);
}

TEST_CASE("a homomorphic compressor has an add cost", "[compress]") {
  CompressorModel h = parse_compressor_model(
      document("    {\"error_bound\": 1e-3, \"ratio\": 10, \"compress_Bps\": 1e9, \"decompress_Bps\": 2e9, "
               "\"add_Bps\": 8e9, \"t0_s\": 1e-6, \"source\": \"s\"}",
               head("  \"kind\": \"error-bounded\",\n  \"homomorphic\": true,\n  \"summable\": true,\n")),
      "h.json");
  CompressorCost cost = h.cost(Query{}, DType::kF32);
  CHECK(h.homomorphic());
  CHECK(cost.add_Bps == 8e9);
  CHECK(cost.add_t0_s == 1e-6);
  CHECK(cost.add_s(8e9) == Approx(1.0 + 1e-6));
}

TEST_CASE("absolute error bounds for REL and ABS models", "[compress]") {
  CompressorModel rel = toy();
  CHECK(rel.absolute_error_bound(eb(1e-3), 0.3) == Approx(3e-4));
  Query with_range = eb(1e-3);
  with_range.value_range = 2.0;
  CHECK(rel.absolute_error_bound(with_range, 0.3) == Approx(2e-3));

  CompressorModel absolute = parse_compressor_model(
      document(two_settings(),
               head("  \"kind\": \"error-bounded\",\n  \"homomorphic\": false,\n  \"summable\": true,\n",
                    "  \"error_mode\": \"ABS\",\n  \"dtype\": \"fp32\",\n")),
      "abs.json");
  CHECK(absolute.absolute_error_bound(eb(1e-3), 0.3) == 1e-3);
  CHECK(error_of(absolute, with_range) ==
        "--compress: field 'range': toy is an error-bounded compressor with ABS bounds; valid keys: eb, where");
  CHECK(error_of(rel, eb(2)) ==
        "--compress: field 'eb': expected a relative bound below 1 (toy bounds are REL), got \"2\"");
  CHECK(error_of(rel, Query{}) ==
        "--compress: field 'eb': missing: toy has several settings (0.0001, 0.001); choose one, e.g. toy:eb=0.0001");
}

TEST_CASE("a memory-bound model scales its throughputs to the target's memory bandwidth", "[compress]") {
  CompressorModel m = parse_compressor_model(
      document(two_settings(),
               head() + "  \"measured_on\": {\"device\": \"A100\", \"memory_Bps\": 2e12, \"source\": \"d\"},\n"
                        "  \"transfer\": {\"kind\": \"memory-bound\", \"source\": \"assumption\"},\n"),
      "m.json");
  TargetHardware dcu{"hygon-dcu", "Hygon DCU", 1e12, 0};
  Evaluation ev = m.evaluate(eb(1e-3), DType::kF32, dcu);
  CHECK(ev.cost.compress_Bps == 205e9);
  CHECK(ev.cost.decompress_Bps == 314e9);
  CHECK(ev.cost.compress_t0_s == 2e-5);
  REQUIRE(ev.notes.size() == 1);
  CHECK(ev.notes[0] ==
        "toy: measured on A100 (memory 2 TB/s), throughputs scaled x0.5 to the accelerator of hygon-dcu (Hygon DCU) "
        "(memory 1 TB/s; memory-bound transfer rule, t0 unscaled)");
  // The host's memory bandwidth is unknown: unscaled, and said so.
  Query host = eb(1e-3);
  host.where = Placement::kHost;
  Evaluation on_host = m.evaluate(host, DType::kF32, dcu);
  CHECK(on_host.cost.compress_Bps == Approx(1.0 / (1.0 / 410e9 + 1.0 / 2e10)));
  REQUIRE(on_host.notes.size() == 2);
  CHECK(on_host.notes[1] ==
        "toy: figures measured on A100 (memory 2 TB/s) are used unscaled on the host of hygon-dcu: its memory "
        "bandwidth is not given, so the memory-bound transfer rule cannot apply");
  // No target: as measured, no note.
  CHECK(m.evaluate(eb(1e-3), DType::kF32).notes.empty());
}

TEST_CASE("a model without a transfer rule says where its figures were measured", "[compress]") {
  Evaluation ev = toy().evaluate(eb(1e-3), DType::kF32, TargetHardware{"sunway", "SW26010-Pro", 3.072e11, 0});
  CHECK(ev.cost.compress_Bps == 410e9);
  REQUIRE(ev.notes.size() == 1);
  CHECK(ev.notes[0] ==
        "toy: figures measured on a GPU are used unscaled on the accelerator of sunway (SW26010-Pro) (the model has "
        "no transfer rule)");
}

TEST_CASE("wire bytes never overflow into a small number", "[compress]") {
  CompressorCost cost;
  CHECK(cost.wire_bytes(1000) == 1000);
  cost.ratio = 3;
  CHECK(cost.wire_bytes(1000) == 334);  // rounded up
  cost.ratio = 0.5;  // a compressor that doubles the data: 1 PiB (a trace's largest message) becomes 2 PiB
  CHECK(cost.wire_bytes(std::uint64_t{1} << 50) == std::uint64_t{1} << 51);
  // Before, 1e-300 made the quotient infinite and the conversion undefined (0 bytes on x86):
  // the compressed all_reduce looked free.
  cost.ratio = 1e-300;
  CHECK_THROWS_AS(cost.wire_bytes(1024), std::out_of_range);
  cost.ratio = 0.1;
  CHECK_THROWS_AS(cost.wire_bytes(std::numeric_limits<std::uint64_t>::max()), std::out_of_range);
}
