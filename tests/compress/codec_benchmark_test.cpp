#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compress/codec.hpp"
#include "compress/codec_benchmark.hpp"
#include "compress/model_reader.hpp"

using namespace ccsim::compress;

TEST_CASE("benchmark measurements become models the model reader accepts", "[codec]") {
  std::vector<float> data(4096);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = 0.01f * std::sin(0.37f * static_cast<float>(i));
  const double range = 0.02;
  MachineInfo machine{"Test CPU", 2, 1.5e10};
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "ccsim_codec_benchmark_test";
  std::filesystem::create_directories(dir);
  for (const char* family : {"ccsz", "zfp", "int8", "onebit"}) {
    INFO(family);
    const bool bounded = std::string(family) == "ccsz" || std::string(family) == "zfp";
    std::vector<CodecMeasurement> ms;
    for (const char* data_name : {"a.f32", "b.f32"}) {
      for (double rel : bounded ? std::vector<double>{1e-3, 1e-2} : std::vector<double>{0.0}) {
        auto codec = make_codec(bounded ? std::string(family) + ":abs=" + std::to_string(rel * range) : family);
        CodecMeasurement m = measure_codec(*codec, data, 2, 1);
        CHECK(m.ratio > 1);
        CHECK(m.compress_Bps > 0);
        CHECK(m.decompress_Bps > 0);
        CHECK((m.add_Bps > 0) == codec->homomorphic());
        if (std::string(family) == "ccsz") CHECK(m.max_error <= rel * range);
        m = measure_codec(*codec, data, 1, 1);
        m.data = data_name;
        m.rel = rel;
        m.value_range = range;
        m.tolerance = rel * range;
        ms.push_back(m);
      }
    }
    const std::string stem = std::string(family) + "-test";
    const std::string path = (dir / (stem + ".json")).string();
    std::ofstream(path) << codec_model_json(stem, ms, machine, "ccsim_compressor_bench --data a.f32 --data b.f32");
    CompressorModel model = read_compressor_model(path);
    CHECK(model.name() == stem);
    CHECK(model.kind() == (bounded ? Kind::kErrorBounded : Kind::kQuantizer));
    CHECK(model.info().homomorphic == (std::string(family) == "ccsz"));
    CHECK(model.settings().size() == (bounded ? 2u : 1u));
    CHECK(model.info().hardware.find("Test CPU, 2 cores") != std::string::npos);
    CHECK(model.info().source.find("a.f32, b.f32") != std::string::npos);
    for (const Setting& s : model.settings()) {
      CHECK(s.compress_Bps > 0);
      if (std::string(family) == "ccsz") CHECK(s.add_Bps > 0);
    }
  }
  std::filesystem::remove_all(dir);
}
