// Measures the real codecs (src/compress/) on fp32 data files: ratio, compress, decompress
// and homomorphic-add throughput on one core and on several (threads each on a part of the
// data), and the largest error against the bound; optionally writes compressor models.
//
//   ccsim_compressor_bench --data FILE.f32 [--data ...] [--codecs ccsz,int8,onebit,zfp]
//       [--rel 1e-4,1e-3,1e-2] [--threads 1,2] [--repetitions 5] [--write-models DIR]

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "compress/codec.hpp"
#include "compress/codec_benchmark.hpp"
#include "core/output_file.hpp"
#include "core/parse.hpp"

using namespace ccsim::compress;

namespace {

std::vector<float> read_f32(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot open " + path);
  auto bytes = static_cast<std::size_t>(in.tellg());
  if (bytes % sizeof(float) != 0) throw std::runtime_error(path + ": size is not a multiple of 4 bytes");
  std::vector<float> values(bytes / sizeof(float));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(bytes));
  if (!in) throw std::runtime_error("cannot read " + path);
  ccsim::note_input_file(path);  // --json must not replace it
  return values;
}

std::string model_file_name(const std::string& family) {
  if (family == "int8" || family == "onebit") return family + "-cpu";
  return family;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Measures the real codecs on fp32 data and writes compressor models"};
  std::vector<std::string> data_files;
  std::vector<std::string> codecs = {"ccsz", "int8", "onebit", "zfp"};
  std::vector<double> rels = {1e-4, 1e-3, 1e-2};
  std::vector<int> threads = {1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  int repetitions = 5;
  std::string models_dir;
  std::vector<std::string> chunk_texts;
  std::string json_file;
  app.add_option("--data", data_files, "raw little-endian fp32 files")->required();
  app.add_option("--codecs", codecs, "codec names")->delimiter(',');
  app.add_option("--rel", rels, "error bounds relative to each file's value range (ccsz, zfp)")->delimiter(',');
  app.add_option("--threads", threads, "thread counts to measure")->delimiter(',');
  app.add_option("--repetitions", repetitions, "timed repetitions after one warm-up; medians are reported");
  app.add_option("--chunks", chunk_texts,
                 "also measure on one core on independent chunks of these sizes (4KiB,1MiB,...)")
      ->delimiter(',');
  app.add_option("--json", json_file, "write the raw measurements (ccsim-compressor-bench v1) to FILE");
  app.add_option("--write-models", models_dir, "write DIR/NAME.json compressor models from the one-thread runs");
  CLI11_PARSE(app, argc, argv);

  std::string command = "build/bench/ccsim_compressor_bench";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];

  try {
    std::vector<std::size_t> chunk_elements;
    for (const std::string& text : chunk_texts) {
      std::uint64_t bytes = ccsim::parse_bytes_or_throw(text, "command line", "--chunks");
      if (bytes == 0 || bytes % sizeof(float) != 0) {
        throw std::runtime_error(fmt::format("--chunks: expected a positive multiple of 4 bytes, got \"{}\"", text));
      }
      chunk_elements.push_back(bytes / sizeof(float));
    }
    std::vector<BenchData> bench_data;
    std::vector<CodecMeasurement> all;
    int skipped_chunks = 0;
    std::erase(threads, 0);
    std::sort(threads.begin(), threads.end());
    threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
    std::cerr << "measuring memcpy...\n";
    MachineInfo machine = MachineInfo::detect();
    std::cout << "machine: " << machine.describe() << "\n\n";
    std::cout << fmt::format("{:<22} {:<34} {:>3} {:>8} {:>10} {:>10} {:>10} {:>13}\n", "data", "codec", "thr", "ratio",
                             "comp GB/s", "dec GB/s", "add GB/s", "maxerr/bound");
    std::cout << "(throughput: raw bytes / median CPU time of the slowest thread)\n";
    std::vector<std::vector<CodecMeasurement>> by_codec(codecs.size());
    for (const std::string& path : data_files) {
      std::vector<float> data = read_f32(path);
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (float x : data) {
        if (!std::isfinite(x)) continue;
        lo = std::min(lo, static_cast<double>(x));
        hi = std::max(hi, static_cast<double>(x));
      }
      const double range = hi >= lo ? hi - lo : 0.0;
      const std::string name = std::filesystem::path(path).filename().string();
      bench_data.push_back({name, data.size(), hi >= lo ? lo : 0.0, hi >= lo ? hi : 0.0});
      for (std::size_t c = 0; c < codecs.size(); ++c) {
        const bool bounded = codecs[c] == "ccsz" || codecs[c] == "zfp";
        std::vector<double> points = bounded ? rels : std::vector<double>{0.0};
        for (double rel : points) {
          auto codec = make_codec(bounded ? fmt::format("{}:abs={}", codecs[c], rel * range) : codecs[c], "--codecs");
          for (int t : threads) {
            std::cerr << "  " << name << " " << codec->spec() << " threads " << t << "\n";
            CodecMeasurement m = measure_codec(*codec, data, t, repetitions);
            m.data = name;
            m.rel = rel;
            m.value_range = range;
            m.tolerance = bounded ? rel * range : 0.0;
            std::string err = m.tolerance > 0 ? fmt::format("{:.4f}", m.max_error / m.tolerance)
                                              : fmt::format("({:.2e})", m.max_error);
            std::cout << fmt::format("{:<22} {:<34} {:>3} {:>8.3f} {:>10.3f} {:>10.3f} {:>10} {:>13}\n", name,
                                     codec->spec(), t, m.ratio, m.compress_Bps / 1e9, m.decompress_Bps / 1e9,
                                     m.add_Bps > 0 ? fmt::format("{:.3f}", m.add_Bps / 1e9) : "-", err);
            std::cout.flush();
            if (t == 1) by_codec[c].push_back(m);
            all.push_back(m);
          }
          for (std::size_t chunk : chunk_elements) {
            if (chunk > data.size()) {
              std::cerr << "  " << name << ": no chunk of " << chunk * 4 << " bytes in " << data.size() * 4
                        << " bytes, skipped\n";
              ++skipped_chunks;
              continue;
            }
            std::cerr << "  " << name << " " << codec->spec() << " chunks of " << chunk * 4 << " bytes\n";
            CodecMeasurement m = measure_codec_chunks(*codec, data, chunk, repetitions);
            m.data = name;
            m.rel = rel;
            m.value_range = range;
            m.tolerance = bounded ? rel * range : 0.0;
            std::cout << fmt::format("{:<22} {:<34} {:>3} {:>8.3f} {:>10.3f} {:>10.3f} {:>10} {:>13}\n", name,
                                     fmt::format("{} /{}", codec->spec(), ccsim::format_bytes(chunk * 4.0)), 1, m.ratio,
                                     m.compress_Bps / 1e9, m.decompress_Bps / 1e9,
                                     m.add_Bps > 0 ? fmt::format("{:.3f}", m.add_Bps / 1e9) : "-",
                                     m.tolerance > 0 ? fmt::format("{:.4f}", m.max_error / m.tolerance)
                                                     : fmt::format("({:.2e})", m.max_error));
            std::cout.flush();
            all.push_back(m);
          }
        }
      }
    }
    if (skipped_chunks > 0)
      std::cout << "\n" << skipped_chunks << " chunk measurement(s) skipped: chunk larger than the data\n";
    std::cout
        << "\nmaxerr/bound: largest |x - x'| / absolute bound (REL x value range); quantizers: (largest |x - x'|)\n";
    if (!json_file.empty()) {
      ccsim::write_output_file(json_file, bench_json(machine, bench_data, all, command));
      std::cerr << "wrote " << json_file << "\n";
    }
    if (!models_dir.empty()) {
      if (std::find(threads.begin(), threads.end(), 1) == threads.end()) {
        throw std::runtime_error("--write-models needs --threads to include 1 (models hold single-core figures)");
      }
      std::filesystem::create_directories(models_dir);
      for (std::size_t c = 0; c < codecs.size(); ++c) {
        const std::string stem = model_file_name(codecs[c]);
        const std::string file = models_dir + "/" + stem + ".json";
        ccsim::write_output_file(file, codec_model_json(stem, by_codec[c], machine, command));
        std::cerr << "wrote " << file << "\n";
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "ccsim_compressor_bench: error: " << e.what() << "\n";
    return 1;
  }
  if (auto error = ccsim::flush_stdout()) {
    std::cerr << "ccsim_compressor_bench: error: " << *error << "\n";
    return 1;
  }
  return 0;
}
