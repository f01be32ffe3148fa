#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "compress/compress_spec.hpp"
#include "compress/model_reader.hpp"
#include "core/input_error.hpp"
#include "model_text.hpp"
#include "support/error_of.hpp"

using ccsim::InputError;
using namespace ccsim::compress;
using namespace ccsim::compress::test;

namespace {

std::string error_of(const std::string& text) {
  return ccsim::test::message_of([&] { parse_compressor_model(text, "m.json"); });
}

std::string with_setting(const std::string& second) {
  return document(
      "    {\"error_bound\": 1e-4, \"ratio\": 6.28, \"compress_Bps\": 341e9, \"decompress_Bps\": 413e9, "
      "\"source\": \"test\"},\n" +
      second);
}

const std::string kGood = "\"compress_Bps\": 1e9, \"decompress_Bps\": 1e9, \"source\": \"s\"";

}  // namespace

TEST_CASE("a compressor model file is read with its settings sorted", "[compress]") {
  CompressorModel m =
      parse_compressor_model(document("    {\"error_bound\": 1e-3, \"ratio\": 22.3, " + kGood +
                                      "},\n    {\"error_bound\": 1e-4, \"ratio\": 6.28, " + kGood + "}"),
                             "m.json");
  CHECK(m.name() == "toy");
  CHECK(m.kind() == Kind::kErrorBounded);
  CHECK_FALSE(m.homomorphic());
  CHECK(m.summable());
  CHECK(m.info().error_mode == ErrorMode::kRel);
  CHECK(m.info().placement == Placement::kAccelerator);
  CHECK(m.info().staging_Bps == 2e10);
  REQUIRE(m.settings().size() == 2);
  CHECK(m.settings()[0].error_bound == 1e-4);
  CHECK(m.settings()[0].line == 16);
  CHECK(m.settings()[1].ratio == 22.3);
  CHECK(m.settings()[1].t0_s == 0);
}

TEST_CASE("compressor model errors name file, line and field word for word", "[compress]") {
  CHECK(error_of(with_setting("    {\"error_bound\": 1e-3, \"ratio\": -2, " + kGood + "}")) ==
        "m.json:16: field 'settings[1].ratio': expected a number from 0.1 to 1e+06, got \"-2\"");
  CHECK(
      error_of(with_setting("    {\"error_bound\": 1e-3, \"ration\": 2, \"ratio\": 2, " + kGood + "}")) ==
      "m.json:16: field 'settings[1].ration': unknown key; did you mean ratio? valid keys here: add_Bps, add_t0_s, compress_Bps, "
      "decompress_Bps, decompress_t0_s, error_bound, note, ratio, source, t0_s");
  CHECK(error_of(with_setting("    {\"error_bound\": 1e-3, \"ratio\": \"22\", " + kGood + "}")) ==
        "m.json:16: field 'settings[1].ratio': expected a number, got \"22\"");
  CHECK(error_of(with_setting(
            "    {\"error_bound\": 1e-3, \"ratio\": 2, \"compress_Bps\": 1e9, \"decompress_Bps\": 1e9}")) ==
        "m.json:16: field 'settings[1].source': missing (required)");
  CHECK(
      error_of(with_setting("    {\"error_bound\": 1e-3, \"ratio\": 2, \"compress_Bps\": 1e9, \"decompress_Bps\": 1e9, "
                            "\"source\": \"\"}")) ==
      "m.json:16: field 'settings[1].source': expected a citation or \"estimate: ...\", got \"\"");
  CHECK(
      error_of(with_setting("    {\"error_bound\": 1e-4, \"ratio\": 2, " + kGood + "}")) ==
      "m.json:16: field 'settings[1].error_bound': expected a value not listed before, got \"1e-4\" (as in settings[0])");
  CHECK(error_of(with_setting("    {\"error_bound\": 2, \"ratio\": 2, " + kGood + "}")) ==
        "m.json:16: field 'settings[1].error_bound': expected a relative bound below 1 (error_mode is REL), got \"2\"");
  CHECK(
      error_of(with_setting("    {\"error_bound\": 1e-3, \"ratio\": 2, \"add_Bps\": 1e9, " + kGood + "}")) ==
      "m.json:16: field 'settings[1].add_Bps': only a homomorphic compressor has an add rate, and homomorphic is false");
  CHECK(error_of(document("")) == "m.json:14: field 'settings': expected at least one setting, got []");
}

TEST_CASE("compressor model header errors", "[compress]") {
  const std::string settings = "    {\"error_bound\": 1e-3, \"ratio\": 2, " + kGood + "}";
  CHECK(error_of(document(settings,
                          head("  \"kind\": \"lossless\",\n  \"homomorphic\": false,\n  \"summable\": true,\n"))) ==
        "m.json:6: field 'kind': expected one of error-bounded, quantizer, sparsifier, got \"lossless\"");
  CHECK(error_of(document(
            settings, head("  \"kind\": \"error-bounded\",\n  \"homomorphic\": \"no\",\n  \"summable\": true,\n"))) ==
        "m.json:7: field 'homomorphic': expected true or false, got \"no\"");
  CHECK(error_of(document(settings)) == "no error");
  CHECK(error_of(document(settings,
                          head("  \"kind\": \"error-bounded\",\n  \"homomorphic\": false,\n  \"summable\": true,\n",
                               "  \"error_mode\": \"PW_REL\",\n  \"dtype\": \"fp32\",\n"))) ==
        "m.json:12: field 'error_mode': expected one of REL, ABS, got \"PW_REL\"");
  CHECK(error_of(document(settings,
                          head("  \"kind\": \"error-bounded\",\n  \"homomorphic\": false,\n  \"summable\": true,\n",
                               "  \"error_mode\": \"REL\",\n  \"dtype\": \"int8\",\n"))) ==
        "m.json:13: field 'dtype': expected one of fp32, fp16, bf16, fp64, got \"int8\"");
  CHECK(error_of(document(settings,
                          head("  \"kind\": \"error-bounded\",\n  \"homomorphic\": false,\n  \"summable\": true,\n",
                               "  \"error_mode\": \"REL\",\n  \"dtype\": \"fp32\", \"colour\": 1,\n"))) ==
        "m.json:13: field 'colour': unknown key; valid keys here: description, dtype, error_mode, format, hardware, "
        "homomorphic, kind, measured_on, name, notes, settings, source, summable, transfer, version, where");
  CHECK(error_of(document(settings,
                          head("  \"kind\": \"error-bounded\",\n  \"homomorphic\": true,\n  \"summable\": true,\n"))) ==
        "m.json:15: field 'settings[0].add_Bps': missing (required)");
}

TEST_CASE("quantizer and sparsifier settings take their own keys", "[compress]") {
  CompressorModel q =
      parse_compressor_model(document("    {\"bits\": 8, \"block_elements\": 256, \"scale_bytes\": 4, " + kGood + "}",
                                      head(kQuantizerKind, "")),
                             "q.json");
  CHECK(q.kind() == Kind::kQuantizer);
  CHECK(q.settings()[0].bits == 8);
  CHECK(error_of(document("    {\"bits\": 8, \"ratio\": 4, \"block_elements\": 256, \"scale_bytes\": 4, " + kGood + "}",
                          head(kQuantizerKind, ""))) ==
        "m.json:13: field 'settings[0].ratio': unknown key; valid keys here: add_Bps, add_t0_s, bits, block_elements, "
        "compress_Bps, decompress_Bps, decompress_t0_s, note, scale_bytes, source, t0_s");
  CHECK(error_of(document("    {\"bits\": 0, \"block_elements\": 256, \"scale_bytes\": 4, " + kGood + "}",
                          head(kQuantizerKind, ""))) ==
        "m.json:13: field 'settings[0].bits': expected a positive integer, got \"0\"");
  CHECK(error_of(document("    {\"density\": 1.5, " + kGood + "}", head(kSparsifierKind, "  \"index_bytes\": 4,\n"))) ==
        "m.json:14: field 'settings[0].density': expected a fraction from 1e-09 to 1, got \"1.5\"");
  CHECK(error_of(document("    {\"density\": 0.01, " + kGood + "}", head(kSparsifierKind, ""))) ==
        "m.json:1: field 'index_bytes': missing (required)");
}

TEST_CASE("every shipped compressor model loads", "[compress]") {
  const std::string dir = CCSIM_SOURCE_DIR "/models/compressors";
  std::vector<std::string> names = list_compressors({dir});
  for (const char* expected : {"cuszp", "int8", "onebit", "szx", "topk", "zfp"}) {
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
  for (const std::string& name : names) {
    INFO(name);
    CompressorModel m = read_compressor_model(find_compressor(name, {dir}));
    CHECK(m.name() == name);
    CHECK_FALSE(m.info().source.empty());
    for (const Setting& s : m.settings()) CHECK_FALSE(s.source.empty());
    const Setting& first = m.settings().front();
    Query query;
    if (m.kind() == Kind::kErrorBounded) query.error_bound = first.error_bound;
    if (m.kind() == Kind::kQuantizer) query.bits = first.bits;
    if (m.kind() == Kind::kSparsifier) query.density = first.density;
    Evaluation ev = m.evaluate(query, ccsim::DType::kF32);
    CHECK_FALSE(ev.clamped);
    CHECK(ev.cost.ratio > 1);
  }
}

TEST_CASE("measured_on and transfer are read and checked word for word", "[compress]") {
  const std::string settings = "    {\"error_bound\": 1e-3, \"ratio\": 22.3, " + kGood + "}";
  auto with = [&](const std::string& lines) {
    return document(settings, head("  \"kind\": \"error-bounded\",\n  \"homomorphic\": false,\n  \"summable\": true,\n",
                                   "  \"error_mode\": \"REL\",\n  \"dtype\": \"fp32\",\n" + lines));
  };
  const std::string on =
      "  \"measured_on\": {\"device\": \"A100\", \"memory_Bps\": 1.555e12, \"source\": \"datasheet\"},\n";
  CompressorModel m = parse_compressor_model(
      with(on + "  \"transfer\": {\"kind\": \"memory-bound\", \"source\": \"assumption\"},\n"), "m.json");
  CHECK(m.info().measured_device == "A100");
  CHECK(m.info().measured_memory_Bps == 1.555e12);
  CHECK(m.info().transfer == Transfer::kMemoryBound);
  CHECK(m.settings()[0].decompress_t0_s == m.settings()[0].t0_s);
  CHECK(error_of(with("  \"transfer\": {\"kind\": \"memory-bound\", \"source\": \"assumption\"},\n")) ==
        "m.json:14: field 'transfer.kind': a memory-bound transfer needs the measured memory bandwidth: add "
        "\"measured_on\": {\"device\", \"memory_Bps\", \"source\"}");
  CHECK(error_of(with(on + "  \"transfer\": {\"kind\": \"linear\", \"source\": \"assumption\"},\n")) ==
        "m.json:15: field 'transfer.kind': expected one of memory-bound, none, got \"linear\"");
  CHECK(error_of(with("  \"measured_on\": {\"device\": \"A100\", \"memory_Bps\": 0, \"source\": \"d\"},\n")) ==
        "m.json:14: field 'measured_on.memory_Bps': expected a number from 1000 to 1e+15, got \"0\"");
}

TEST_CASE("every compressor model parameter has finite, physical limits", "[compress]") {
  auto setting = [](const std::string& keys) { return with_setting("    {\"error_bound\": 1e-3, " + keys + "}"); };
  const std::string rates = "\"compress_Bps\": 1e9, \"decompress_Bps\": 1e9, \"source\": \"s\"";
  // A ratio of 1e-300 once overflowed the wire size to 0 bytes: compression looked free.
  CHECK(error_of(setting("\"ratio\": 1e-300, " + rates)) ==
        "m.json:16: field 'settings[1].ratio': expected a number from 0.1 to 1e+06, got \"1e-300\"");
  CHECK(error_of(setting("\"ratio\": 2e6, " + rates)) ==
        "m.json:16: field 'settings[1].ratio': expected a number from 0.1 to 1e+06, got \"2e6\"");
  CHECK(error_of(setting("\"ratio\": 2, \"compress_Bps\": 1e-300, \"decompress_Bps\": 1e9, \"source\": \"s\"")) ==
        "m.json:16: field 'settings[1].compress_Bps': expected a number from 1000 to 1e+15, got \"1e-300\"");
  CHECK(error_of(setting("\"ratio\": 2, \"compress_Bps\": 1e9, \"decompress_Bps\": 1e300, \"source\": \"s\"")) ==
        "m.json:16: field 'settings[1].decompress_Bps': expected a number from 1000 to 1e+15, got \"1e300\"");
  CHECK(error_of(setting("\"ratio\": 2, \"t0_s\": 1e300, " + rates)) ==
        "m.json:16: field 'settings[1].t0_s': expected a non-negative number of at most 60, got \"1e300\"");
  CHECK(error_of(setting("\"ratio\": 2, \"decompress_t0_s\": -1, " + rates)) ==
        "m.json:16: field 'settings[1].decompress_t0_s': expected a non-negative number of at most 60, got \"-1\"");
  CHECK(error_of(with_setting("    {\"error_bound\": 1e-300, \"ratio\": 2, " + rates + "}")) ==
        "m.json:16: field 'settings[1].error_bound': expected a number from 1e-30 to 1e+30, got \"1e-300\"");
  CHECK(error_of(
            document("    {\"density\": 1e-300, " + kGood + "}", head(kSparsifierKind, "  \"index_bytes\": 4,\n"))) ==
        "m.json:14: field 'settings[0].density': expected a fraction from 1e-09 to 1, got \"1e-300\"");
  CHECK(error_of(
            document("    {\"density\": 0.01, " + kGood + "}", head(kSparsifierKind, "  \"index_bytes\": 1e300,\n"))) ==
        "m.json:12: field 'index_bytes': expected a positive number of at most 16, got \"1e300\"");
  CHECK(error_of(document("    {\"bits\": 8, \"block_elements\": 1e300, \"scale_bytes\": 4, " + kGood + "}",
                          head(kQuantizerKind, ""))) ==
        "m.json:13: field 'settings[0].block_elements': expected an integer from 1 to 1073741824, got \"1e300\"");
  // The limits themselves are accepted.
  CHECK(error_of(setting(
            "\"ratio\": 0.1, \"compress_Bps\": 1e3, \"decompress_Bps\": 1e15, \"t0_s\": 60, \"source\": \"s\"")) ==
        "no error");
}
