#include <catch2/catch.hpp>

#include <string>

#include "compress/compress_spec.hpp"
#include "core/input_error.hpp"
#include "support/error_of.hpp"

using ccsim::InputError;
using namespace ccsim::compress;

namespace {

std::string error_of(const std::string& text) {
  return ccsim::test::message_of([&] { parse_compress_spec(text); });
}

const std::string kModels = CCSIM_SOURCE_DIR "/models/compressors";

}  // namespace

TEST_CASE("compress specs name a model and an operating point", "[compress]") {
  CompressSpec cuszp = parse_compress_spec("cuszp:eb=1e-3");
  CHECK(cuszp.name == "cuszp");
  CHECK(cuszp.query.error_bound == 1e-3);
  CHECK_FALSE(cuszp.query.where);

  CompressSpec szx = parse_compress_spec("szx:eb=1e-4,where=host");
  CHECK(szx.name == "szx");
  CHECK(szx.query.error_bound == 1e-4);
  CHECK(szx.query.where == Placement::kHost);

  CompressSpec int8 = parse_compress_spec("int8");
  CHECK(int8.name == "int8");
  CHECK_FALSE(int8.query.error_bound);
  CHECK_FALSE(int8.query.bits);

  CHECK(parse_compress_spec("onebit").name == "onebit");
  CHECK(parse_compress_spec("topk:density=0.01").query.density == 0.01);
  CHECK(parse_compress_spec("int8:bits=8,where=accelerator").query.bits == 8);
  CHECK(parse_compress_spec("cuszp:eb=1e-3,range=0.31").query.value_range == 0.31);
  CHECK(parse_compress_spec("models/x.json:eb=1e-3").name == "models/x.json");
}

TEST_CASE("bad compress specs are word-for-word errors", "[compress]") {
  CHECK(error_of("cuszp:level=3") ==
        "--compress: field 'level': unknown key; valid keys: eb, bits, density, where, range");
  CHECK(error_of("cuszp:density=0.1,rnage=3") ==
        "--compress: field 'rnage': unknown key; did you mean range? valid keys: eb, bits, density, where, range");
  CHECK(error_of("cuszp:eb=abc") == "--compress: field 'eb': expected a number, got \"abc\"");
  CHECK(error_of("cuszp:eb=-1e-3") == "--compress: field 'eb': expected a positive number, got \"-1e-3\"");
  CHECK(error_of("cuszp:eb=1e-3,eb=1e-4") == "--compress: field 'eb': given twice in \"cuszp:eb=1e-3,eb=1e-4\"");
  CHECK(error_of("cuszp:eb") == "--compress: expected key=value after 'cuszp:', got \"eb\"");
  CHECK(error_of("cuszp:") == "--compress: expected key=value after 'cuszp:', got \"\"");
  CHECK(error_of("szx:where=gpu") == "--compress: field 'where': expected one of accelerator, host, got \"gpu\"");
  CHECK(error_of("int8:bits=8.5") == "--compress: field 'bits': expected an integer from 1 to 32, got \"8.5\"");
  CHECK(error_of("topk:density=2") == "--compress: field 'density': expected a fraction from 1e-09 to 1, got \"2\"");
  // A density of 1e-300 once made the ratio 1e300 and every message free.
  CHECK(error_of("topk:density=1e-300") ==
        "--compress: field 'density': expected a fraction from 1e-09 to 1, got \"1e-300\"");
  CHECK(error_of("") ==
        "--compress: expected NAME[:key=value,...] with a NAME of letters, digits, '_', '-' or '.', got \"\"");
  CHECK(error_of("cu szp") ==
        "--compress: expected NAME[:key=value,...] with a NAME of letters, digits, '_', '-' or '.', got \"cu szp\"");
}

TEST_CASE("compressor models are found by name in the model directories", "[compress]") {
  CHECK(find_compressor("cuszp", {"/nonexistent", kModels}) == kModels + "/cuszp.json");
  CHECK(find_compressor("elsewhere/mine.json", {kModels}) == "elsewhere/mine.json");
  try {
    find_compressor("lz4", {kModels});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::Matchers::StartsWith("--compress: unknown compressor \"lz4\" (tried lz4, ") &&
                   Catch::Matchers::EndsWith("models/compressors/lz4.json); models: ccsz, cuszp, int8, int8-cpu, "
                                             "onebit, onebit-cpu, szx, topk, zfp"));
  }
  // A misspelt name gets the closest model, before the list.
  CHECK_THROWS_WITH(
      find_compressor("cuzsp", {kModels}),
      Catch::Matchers::EndsWith("models/compressors/cuzsp.json); did you mean cuszp? models: ccsz, cuszp, "
                                "int8, int8-cpu, onebit, onebit-cpu, szx, topk, zfp"));
  CHECK_THROWS_AS(find_compressor("cuzsp", {kModels}), ccsim::UnknownNameError);
  CHECK_THROWS_WITH(find_compressor("lz4", {"/nonexistent", "/elsewhere"}),
                    "--compress: unknown compressor \"lz4\" (tried lz4, /nonexistent/lz4.json, /elsewhere/lz4.json); "
                    "models: none found");
  // A name with .json is the same name (it was taken for a file in the working directory).
  CHECK(find_compressor("cuszp.json", {"/nonexistent", kModels}) == kModels + "/cuszp.json");
  CHECK_THROWS_WITH(
      find_compressor("lz4.json", {"/nonexistent"}),
      "--compress: unknown compressor \"lz4.json\" (tried lz4.json, /nonexistent/lz4.json); models: none found");
  CompressorModel m = load_compressor(parse_compress_spec("cuszp:eb=1e-3"), {kModels});
  CHECK(m.cost(parse_compress_spec("cuszp:eb=1e-3").query, ccsim::DType::kF32).ratio == 22.3);
}
