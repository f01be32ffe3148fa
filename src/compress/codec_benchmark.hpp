#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compress/codec.hpp"

namespace ccsim::compress {

/// The fields every compressor model of a codec measured on this host's CPU shares, in the
/// ccsim-compressor format: `where` (on the host, with the PCIe staging estimate) and, for
/// error-bounded codecs, `error_mode` REL on fp32.
void add_cpu_codec_fields(nlohmann::ordered_json& doc, bool error_bounded);

/// One measured operating point of a codec on one data set (bench/compressor_bench.cpp).
struct CodecMeasurement {
  std::string spec;        ///< the codec as built, e.g. "ccsz:abs=0.000283"
  std::string data;        ///< the data set's name (file name)
  double rel = 0;          ///< REL bound the absolute one came from; 0 for quantizers
  double value_range = 0;  ///< max - min of the data
  double tolerance = 0;    ///< the absolute bound or tolerance asked for; 0 for quantizers
  int threads = 1;         ///< threads, each on a contiguous part of the data
  std::size_t elements = 0;
  double ratio = 0;         ///< raw bytes / compressed bytes (sum over the parts)
  double compress_Bps = 0;  ///< raw bytes / median time (the slowest thread's CPU time)
  double decompress_Bps = 0;
  double add_Bps = 0;    ///< homomorphic add of two streams, raw bytes of one / time; 0 if not homomorphic
  double t0_s = 0;       ///< median time of compressing one block of 256 elements
  double max_error = 0;  ///< largest |x - x'| over the finite elements
  // Per repetition (what the calibration fits): all calls of one repetition together.
  std::size_t chunk_elements = 0;  ///< elements per call
  std::size_t calls = 0;           ///< calls per repetition (per thread when threads > 1)
  int repetitions = 0;             ///< timed repetitions the medians are over
  double raw_bytes = 0;            ///< raw bytes per repetition, all threads
  double compressed_bytes = 0;     ///< bytes of the streams of one repetition
  double compress_s = 0;           ///< median time of one repetition (slowest thread)
  double decompress_s = 0;
  double add_s = 0;  ///< 0 if not homomorphic
};

/// Compresses, decompresses (and adds, when homomorphic) `data` `repetitions` times after
/// one warm-up, `threads` threads each on its own contiguous part, and reports medians.
/// Times are thread CPU times (the slowest thread's), which a shared machine distorts far
/// less than wall time; on idle cores the two agree.
CodecMeasurement measure_codec(const Codec& codec, std::span<const float> data, int threads, int repetitions);

/// Compresses, decompresses (and adds) `data` as independent chunks of `chunk_elements`
/// (the tail short of a chunk is left out), one after the other on the calling thread,
/// `repetitions` times after a warm-up; medians per repetition. What a collective does
/// with its n/p-byte chunks, so that the fixed cost per call shows at small chunks.
/// Throws std::invalid_argument when `data` holds no whole chunk.
CodecMeasurement measure_codec_chunks(const Codec& codec, std::span<const float> data, std::size_t chunk_elements,
                                      int repetitions);

/// Single-core memcpy bandwidth (bytes copied per second, best of `repetitions`) on a buffer of `bytes`.
double measure_memcpy_Bps(std::size_t bytes, int repetitions);
/// The machine's memory bandwidth as the compressor benchmark and ccsim measure record it
/// (kMemoryProbe), the figure a memory-bound compressor model scales by.
double measure_memory_Bps();
inline constexpr const char* kMemoryProbe = "single-core memcpy of 64 MiB, best of 10 (thread CPU time)";
/// The CPU's model name from /proc/cpuinfo ("unknown CPU" when it has none).
std::string cpu_model_name();

/// Where the figures were measured.
struct MachineInfo {
  std::string cpu;  ///< model name from /proc/cpuinfo
  int cores = 0;
  double memcpy_Bps = 0;

  static MachineInfo detect();
  std::string describe() const;
};

/// A data file of a benchmark run.
struct BenchData {
  std::string name;  ///< file name
  std::size_t elements = 0;
  double min = 0;  ///< smallest finite value
  double max = 0;  ///< largest finite value
};

inline constexpr std::string_view kBenchFormat = "ccsim-compressor-bench";
inline constexpr int kBenchVersion = 1;

/// The raw measurements of a benchmark run as a "ccsim-compressor-bench" v1 document
/// (documented in models/README.md), what `ccsim calibrate compressor` fits.
std::string bench_json(const MachineInfo& machine, const std::vector<BenchData>& data,
                       const std::vector<CodecMeasurement>& measurements, const std::string& command);

/// What a model of one of the real codecs says besides its figures.
struct CodecLayout {
  std::string description;
  std::string kind;  ///< "error-bounded" or "quantizer"
  bool homomorphic = false;
  bool summable = false;
  int bits = 0;  ///< quantizers
  int block_elements = 0;
  int scale_bytes = 0;
};

/// The layout of codec family `family` (ccsz, zfp, int8, onebit); std::invalid_argument otherwise.
CodecLayout codec_layout(std::string_view family);

/// A compressor model (models/README.md, format ccsim-compressor v1) from single-core
/// measurements of one codec family: "ccsz" and "zfp" as error-bounded REL models with a
/// setting per REL bound (figures pooled over the data sets), "int8" and "onebit" as
/// quantizers. `command` and the data sets go into the sources.
std::string codec_model_json(std::string_view model_name, const std::vector<CodecMeasurement>& measurements,
                             const MachineInfo& machine, const std::string& command);

}  // namespace ccsim::compress
