#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "compress/codec.hpp"
#include "core/input_error.hpp"
#include "support/error_of.hpp"

using ccsim::InputError;
using namespace ccsim::compress;

namespace {

std::string error_of(const std::string& spec, const std::string& field = "--codec") {
  return ccsim::test::message_of([&] { make_codec(spec, field); });
}

}  // namespace

TEST_CASE("codec specs build codecs and round-trip", "[codec]") {
  CHECK(codec_names() == std::vector<std::string_view>{"ccsz", "int8", "onebit", "zfp"});
  for (const char* spec : {"ccsz:abs=0.0001", "ccsz:abs=0.5,block=256", "int8", "int8:block=64", "onebit",
                           "onebit:block=4096", "zfp:abs=0.001"}) {
    INFO(spec);
    auto codec = make_codec(spec);
    CHECK(codec->spec() == spec);
    CHECK(make_codec(codec->spec())->spec() == spec);
  }
  CHECK(make_codec("ccsz:block=128,abs=1e-4")->spec() == "ccsz:abs=0.0001");
  CHECK(make_codec("int8:block=256")->spec() == "int8");
  CHECK(make_codec("ccsz:abs=1e-4")->error_bound() == 1e-4);
  CHECK(make_codec("ccsz:abs=1e-4")->homomorphic());
  for (const char* spec : {"int8", "onebit", "zfp:abs=1e-3"}) {
    CHECK(make_codec(spec)->error_bound() < 0);
    CHECK_FALSE(make_codec(spec)->homomorphic());
  }
}

TEST_CASE("bad codec specs are input errors naming the valid choices, with did you mean", "[codec]") {
  CHECK(error_of("lz4") == "--codec: unknown codec \"lz4\"; valid codecs: ccsz, int8, onebit, zfp");
  CHECK(error_of("ccsz") == "--codec: field 'abs': missing (required for codec ccsz)");
  CHECK(error_of("ccsz:abs=-1") == "--codec: field 'abs': expected a positive finite number, got \"-1\"");
  CHECK(error_of("ccsz:abs=inf") == "--codec: field 'abs': expected a positive finite number, got \"inf\"");
  CHECK(error_of("ccsz:abs=1e-4x") == "--codec: field 'abs': expected a positive finite number, got \"1e-4x\"");
  CHECK(error_of("ccsz:abs=1e-4,block=100") ==
        "--codec: field 'block': expected a multiple of 64 from 64 to 65536, got \"100\"");
  CHECK(error_of("ccsz:abs=1e-4,eb=2") == "--codec: field 'eb': unknown key for codec ccsz; valid keys: abs, block");
  CHECK(error_of("int8:eb=1") == "--codec: field 'eb': unknown key for codec int8; valid keys: block");
  CHECK(error_of("int8:block=0", "x.json") ==
        "x.json: field 'block': expected an integer from 1 to 1048576, got \"0\"");
  CHECK(error_of("onebit:block=-3") == "--codec: field 'block': expected an integer from 1 to 1048576, got \"-3\"");
  CHECK(error_of("zfp") == "--codec: field 'abs': missing (required for codec zfp)");
  CHECK(error_of("zfp:abs=1e-3,block=64") == "--codec: field 'block': unknown key for codec zfp; valid keys: abs");
  CHECK(error_of("ccsz:abs") == "--codec: expected key=value after 'ccsz:', got \"abs\"");
  // Unknown names are UnknownNameErrors (a malformed command line: exit 2), with "did you mean".
  CHECK(error_of("ccs:abs=1e-4") ==
        "--codec: unknown codec \"ccs\"; did you mean ccsz? valid codecs: ccsz, int8, "
        "onebit, zfp");
  CHECK(error_of("ccsz:ab=1e-4") ==
        "--codec: field 'ab': unknown key for codec ccsz; did you mean abs? valid keys: abs, block");
  CHECK_THROWS_AS(make_codec("lz4"), ccsim::UnknownNameError);
  CHECK_THROWS_AS(make_codec("int8:blocks=64"), ccsim::UnknownNameError);
  CHECK(error_of("ccsz:abs=1,abs=2") == "--codec: field 'abs': given twice in \"ccsz:abs=1,abs=2\"");
}

TEST_CASE("non-homomorphic codecs refuse add_compressed", "[codec]") {
  auto codec = make_codec("int8");
  std::vector<std::byte> a, out;
  std::vector<float> x(10, 1.0f);
  codec->compress(x, a);
  CHECK_THROWS_AS(codec->add_compressed(a, a, out), std::logic_error);
}

TEST_CASE("error feedback makes the sum of outputs track the sum of inputs", "[codec]") {
  for (const char* spec : {"int8", "onebit", "onebit:block=64", "ccsz:abs=1e-3", "zfp:abs=1e-3"}) {
    INFO(spec);
    auto codec = make_codec(spec);
    const std::size_t n = 1000;
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    std::vector<float> in(n), residual(n, 0.0f), scratch, out(n);
    std::vector<double> sum_in(n, 0.0), sum_out(n, 0.0);
    std::vector<std::byte> stream;
    double worst_drift = 0, worst_input = 0;
    for (int step = 0; step < 300; ++step) {
      // Gradients with a persistent mean per element plus noise, as in training.
      for (std::size_t i = 0; i < n; ++i) {
        in[i] = 0.1f * std::sin(static_cast<float>(i)) + 0.05f * noise(rng);
        worst_input = std::max(worst_input, std::fabs(static_cast<double>(in[i])));
      }
      compress_with_feedback(*codec, in, residual, stream, scratch);
      codec->decompress(stream, out);
      for (std::size_t i = 0; i < n; ++i) {
        sum_in[i] += in[i];
        sum_out[i] += out[i];
        // What has not been sent yet is exactly the residual (up to float rounding).
        CHECK(std::fabs(sum_in[i] - sum_out[i] - residual[i]) <= 1e-3);
        worst_drift = std::max(worst_drift, std::fabs(sum_in[i] - sum_out[i]));
      }
    }
    // Bounded drift: after 300 steps, the accumulated sums differ by a few inputs at most,
    // while without feedback a biased quantiser drifts by up to 300 x its bias.
    CHECK(worst_drift <= 10 * worst_input);
  }
}

TEST_CASE("every codec rejects truncated and foreign streams with CodecError", "[codec]") {
  std::vector<float> x(700);
  std::mt19937 rng(3);
  std::normal_distribution<float> d(0.0f, 0.01f);
  for (float& v : x) v = d(rng);
  x[5] = std::numeric_limits<float>::quiet_NaN();  // a raw block for ccsz
  for (const char* spec : {"ccsz:abs=1e-4", "int8", "onebit:block=100", "zfp:abs=1e-4"}) {
    INFO(spec);
    auto codec = make_codec(spec);
    std::vector<std::byte> stream;
    codec->compress(x, stream);
    CHECK(stream.size() <= codec->max_compressed_bytes(x.size()));
    CHECK(codec->element_count(stream) == x.size());
    std::vector<float> y(x.size());
    for (std::size_t len = 0; len < stream.size(); len += (len < 64 ? 1 : 7)) {
      INFO(len);
      CHECK_THROWS_AS(codec->decompress(std::span(stream).first(len), y), CodecError);
    }
    std::vector<float> wrong(x.size() - 1);
    CHECK_THROWS_AS(codec->decompress(stream, wrong), CodecError);
    std::vector<std::byte> longer = stream;
    longer.push_back(std::byte{0});
    CHECK_THROWS_AS(codec->decompress(longer, y), CodecError);
    for (const char* other : {"ccsz:abs=1e-4", "int8", "onebit", "zfp:abs=1e-4"}) {
      if (make_codec(other)->name() == codec->name()) continue;
      std::vector<std::byte> foreign;
      make_codec(other)->compress(x, foreign);
      CHECK_THROWS_AS(codec->decompress(foreign, y), CodecError);
    }
    // Corrupt bytes: an error or garbage values, never a crash (run under ASan/UBSan).
    std::uniform_int_distribution<std::size_t> at(0, stream.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<std::byte> bad = stream;
      for (int k = 0; k < 1 + trial % 4; ++k) bad[at(rng)] = static_cast<std::byte>(byte(rng));
      try {
        codec->decompress(bad, y);
      } catch (const CodecError&) {
      }
      if (codec->homomorphic()) {
        std::vector<std::byte> sum;
        try {
          codec->add_compressed(bad, stream, sum);
        } catch (const CodecError&) {
        }
      }
    }
  }
}
