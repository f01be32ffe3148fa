#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim::calibrate {

/// A fit the data do not support (a negative rate, a negative t0 not allowed to be clamped,
/// too few distinct sizes). The message says which and what to do.
class FitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One timed size: a call on `bytes` raw bytes took `seconds` (a median).
struct FitPoint {
  double bytes = 0;
  double seconds = 0;
};

/// seconds = t0_s + bytes / rate_Bps, fitted by least squares on the relative error.
struct AffineFit {
  double t0_s = 0;
  double rate_Bps = 0;
  bool t0_clamped = false;        ///< t0 came out negative and was set to 0 (rate refitted)
  std::vector<double> residuals;  ///< per point, fitted / measured - 1
  double geomean_error = 0;       ///< exp(mean |log(fitted / measured)|) - 1

  double seconds(double bytes) const { return t0_s + bytes / rate_Bps; }
};

/// Fits t0 + bytes / rate to `points` minimising sum ((fit - measured) / measured)^2, so
/// that small and large chunks weigh alike. Needs two distinct sizes and positive times.
/// A non-positive rate is always refused; a negative t0 is refused unless `clamp_t0`, then
/// t0 = 0 and the rate is refitted (t0_clamped says so). Throws FitError naming `what`.
AffineFit fit_affine(const std::vector<FitPoint>& points, bool clamp_t0, std::string_view what);

/// One measurement of a "ccsim-compressor-bench" v1 file (models/README.md).
struct BenchMeasurement {
  std::string codec;  ///< family: ccsz, zfp, int8, onebit
  std::string spec;
  std::string data;
  double rel = 0;
  double tolerance = 0;
  int threads = 1;
  std::uint64_t chunk_elements = 0;
  std::uint64_t calls = 0;
  std::uint64_t repetitions = 0;
  double raw_bytes = 0;
  double compressed_bytes = 0;
  double compress_s = 0;
  double decompress_s = 0;
  double add_s = 0;  ///< 0 when absent (not homomorphic)
  double small_call_s = 0;
  double max_error = 0;
  int line = 0;
  std::string path;  ///< field path in the file, e.g. "measurements[3]"
};

struct BenchDataFile {
  std::string name;
  std::uint64_t elements = 0;
  double min = 0;
  double max = 0;
};

/// A benchmark file, read strictly (InputError with file, line and field).
struct CompressorBench {
  std::string file;
  std::string command;
  std::string cpu;
  int cores = 0;
  double memory_Bps = 0;
  std::string memory_source;
  std::string timing;
  std::vector<BenchDataFile> data;
  std::vector<BenchMeasurement> measurements;
};

CompressorBench read_compressor_bench(const std::string& path);
CompressorBench parse_compressor_bench(std::string_view text, const std::string& source);

struct CompressorFitOptions {
  std::string codec;                      ///< the codec to fit; empty: the only one in the file
  std::string name;                       ///< the model's name; empty: the codec's
  std::string transfer = "memory-bound";  ///< "memory-bound" or "none"
  bool clamp_t0 = false;
  std::string command;  ///< how the fit was run, for the model's source
};

/// The command line of `calibrate compressor` that fits the file `bench` with `options` (their
/// `command` aside): what CompressorFitOptions::command records.
std::string compressor_fit_command(const std::string& bench, const CompressorFitOptions& options);

/// A fitted model (a "ccsim-compressor" v1 document) and the report of the fit: per
/// setting, the ratio by chunk size, and per operation t0, rate, each point's residual and
/// the geometric-mean error.
struct CompressorFit {
  std::string model_json;
  std::string report;
};

/// Fits a compressor model to the single-thread measurements of one codec: per setting
/// (REL bound; one for quantizers) the ratio pooled over the data files at their largest
/// chunk, and compress, decompress (and add) as t0 + bytes / rate over the chunk sizes.
/// Throws InputError (the bench file) for a codec that is absent or ambiguous and for a fit
/// the data refuse (see fit_affine).
CompressorFit fit_compressor(const CompressorBench& bench, const CompressorFitOptions& options);

}  // namespace ccsim::calibrate
