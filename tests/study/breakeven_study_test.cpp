// The break-even of compressed all_reduce (study/breakeven_study.hpp) on the platforms of
// platforms/ with the shipped compressor models: the links a group of one rank per node or
// of one node takes, the sizes a platform holds, and where compression pays.
#include <algorithm>
#include <cmath>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "compress/compress_spec.hpp"
#include "study/breakeven_study.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;

namespace {

study::BreakevenStudy breakeven(const std::string& preset, const std::string& compress,
                                const study::BreakevenRequest& request) {
  const topology::Platform platform = topology::read_platform(CCSIM_SOURCE_DIR "/platforms/" + preset + ".json");
  const compress::CompressSpec spec = compress::parse_compress_spec(compress);
  const compress::CompressorModel model = compress::load_compressor(spec, {CCSIM_SOURCE_DIR "/models/compressors"});
  return study::study_breakeven(platform, model, spec.query, request);
}

}  // namespace

TEST_CASE("onebit between the nodes of hygon-dcu pays above a size that grows with the group", "[study]") {
  study::BreakevenRequest request;
  request.sizes = {2, 8, 64};
  const study::BreakevenStudy s = breakeven("hygon-dcu", "onebit", request);
  // One rank per node: the route from accelerator 0 to the next node's first (platforms/hygon-dcu.json).
  CHECK(s.path.latency_s == Approx(6e-6));
  CHECK(s.path.bandwidth_Bps == Approx(25e9));
  CHECK(s.reduce_Bps == Approx(330e9));
  CHECK(s.at_bytes == 64ull << 20);
  CHECK_FALSE(s.homomorphic);
  CHECK(s.evaluation.basis == "measured setting bits=1");
  REQUIRE(s.rows.size() == 3);
  for (const study::BreakevenRow& r : s.rows) {
    CHECK(r.plain_algorithm == "ring");
    CHECK(r.compressed_algorithm == "compressed-allgather");  // auto, for a compressor that is not homomorphic
    // Compression is faster at the size given exactly when that size is above the break-even.
    CHECK((r.speedup_at > 1) == (static_cast<double>(s.at_bytes) > r.even.bytes));
  }
  CHECK(s.rows[0].even.bytes < s.rows[1].even.bytes);
  CHECK(std::isinf(s.rows[2].even.bytes));  // never: every rank gathers every other's compressed buffer
}

TEST_CASE("the default groups double up to what the platform holds", "[study]") {
  const study::BreakevenStudy between = breakeven("tianhe-2a", "cuszp:eb=1e-3", {});
  study::BreakevenRequest in_a_node;
  in_a_node.intra = true;
  const study::BreakevenStudy intra = breakeven("dgx-h100-superpod", "cuszp:eb=1e-3", in_a_node);
  REQUIRE(intra.rows.size() == 3);  // a node of 8 accelerators: 2, 4, 8
  CHECK(intra.rows.back().ranks == 8);
  REQUIRE_FALSE(between.rows.empty());
  CHECK(between.rows.front().ranks == 2);
  CHECK(between.rows.back().ranks == 1024);  // at most 1024 ranks
  CHECK(intra.path.latency_s < between.path.latency_s);
}

TEST_CASE("a break-even refuses sizes and groups the platform does not hold", "[study]") {
  study::BreakevenRequest request;
  request.sizes = {2, 2048};
  CHECK_THROWS_WITH(breakeven("hygon-dcu", "onebit", request),
                    "command line: field '--sizes': expected group sizes from 2 to 1024, got \"2048\"");
  request.sizes = {16};
  request.intra = true;
  CHECK_THROWS_WITH(breakeven("dgx-h100-superpod", "onebit", request),
                    "command line: field '--sizes': a group of 16 ranks in one node (--intra), but a node of platform "
                    "\"dgx-h100-superpod\" has 8 accelerators");
  study::BreakevenRequest six_bytes;
  six_bytes.at = "6";  // not whole fp32 elements
  CHECK_THROWS_WITH(breakeven("hygon-dcu", "onebit", six_bytes), Contains("field '--at'"));
}

TEST_CASE("a break-even's table and JSON say where compression pays, never and always included", "[study]") {
  study::BreakevenRequest request;
  request.sizes = {2, 8, 64};
  const study::BreakevenStudy s = breakeven("hygon-dcu", "onebit", request);
  const std::string text = study::breakeven_text(s, "onebit");
  CHECK_THAT(text, StartsWith("break-even of compressed all_reduce on hygon-dcu: onebit (measured setting bits=1), "
                              "fp32\ncompressor: ratio "));
  // The links of platforms/hygon-dcu.json between two nodes, as the first test finds them.
  CHECK_THAT(text, Contains("\nlinks: ranks one per node, alpha 6 us, bandwidth 25 GB/s per flow, reduction 330 GB/s; "
                            "closed forms, no contention\n"));
  CHECK_THAT(text, Contains("speedup@64MiB"));
  CHECK_THAT(text, EndsWith(" never          0.220x     0.201x\n"));
  CHECK(std::count(text.begin(), text.end(), '\n') == 5 + 3);  // header, compressor, note, links, columns; rows

  const nlohmann::json doc = nlohmann::json::parse(study::breakeven_json(s, "onebit"));
  CHECK(doc["platform"] == "hygon-dcu");
  CHECK(doc["compress"] == "onebit");
  CHECK(doc["dtype"] == "fp32");
  CHECK(doc["links"]["ranks"] == "one per node");
  CHECK(doc["at_bytes"] == 64u << 20);
  CHECK_FALSE(doc["compressor"].contains("add_Bps"));  // not homomorphic
  REQUIRE(doc["rows"].size() == 3);
  CHECK(doc["rows"][0]["pays"] == "above");
  CHECK(doc["rows"][0]["pays_above_bytes"].get<double>() == s.rows[0].even.bytes);
  CHECK(doc["rows"][2]["pays"] == "never");
  CHECK(doc["rows"][2]["pays_above_bytes"].is_null());

  study::BreakevenStudy always = s;
  always.rows.resize(1);
  always.rows[0].even.bytes = 0;
  CHECK_THAT(study::breakeven_text(always, "onebit"), Contains("      always  "));
  CHECK(nlohmann::json::parse(study::breakeven_json(always, "onebit"))["rows"][0]["pays"] == "always");
}

TEST_CASE("breakeven as typed: platform and compressor by name, the dtype in words", "[study]") {
  study::DataLookup lookup;
  lookup.platform = [](const std::string& name, const topology::PlatformOverrides& overrides) {
    return topology::read_platform(topology::find_platform(name, {CCSIM_SOURCE_DIR "/platforms"}), overrides);
  };
  lookup.compressor = [](const compress::CompressSpec& spec) {
    return compress::load_compressor(spec, {CCSIM_SOURCE_DIR "/models/compressors"});
  };
  study::BreakevenArgs args;
  args.platform = "hygon-dcu";
  args.compress = "onebit";
  args.dtype = "fp16";
  args.request.sizes = {2, 8, 64};
  const study::BreakevenStudy s = study::study_breakeven(args, lookup);
  args.request.dtype = DType::kF16;
  const study::BreakevenStudy same = breakeven("hygon-dcu", "onebit", args.request);
  REQUIRE(s.rows.size() == same.rows.size());
  for (std::size_t i = 0; i < s.rows.size(); ++i) CHECK(s.rows[i].even.bytes == same.rows[i].even.bytes);

  args.dtype = "fp17";
  CHECK_THROWS_WITH(study::study_breakeven(args, lookup),
                    StartsWith("command line: field '--dtype': expected one of fp32, fp16, bf16"));
}
