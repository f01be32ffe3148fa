#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "compress/compressor_model.hpp"

namespace ccsim::compress {

// Real lossy round trips (compress then decompress, in place) on numbers in memory. They
// stand in for the codecs when schedules are executed on data (collective::execute_in_memory)
// so that tests see the error a compressed collective really makes. They reproduce what
// each family does to the values, not its bit stream.

/// Error-bounded uniform quantization: x -> 2*eb*round(x / (2*eb)). Every |x - x'| <= eb
/// (up to one rounding of x' in double, relative 2^-53), and all values land on one grid,
/// so quantized blocks add exactly (the homomorphic property). eb == 0 leaves the data
/// unchanged; eb < 0 or not finite throws std::invalid_argument.
void quantize_error_bounded(std::span<double> values, double error_bound);

/// Symmetric integer quantization with one scale per block of `block_elements`:
/// s = max|x| / (2^(bits-1) - 1), x -> s * round(x / s); int8 is bits = 8. Per element
/// |x - x'| <= s / 2. An all-zero block stays zero. Needs 2 <= bits <= 32.
void quantize_symmetric(std::span<double> values, int bits, std::size_t block_elements);

/// 1-bit sign quantization with one scale per block, as in signSGD with error feedback
/// and 1-bit Adam: x -> sign(x) * mean|x| over the block (sign(0) = +). The scale keeps
/// the block's L1 norm.
void quantize_sign(std::span<double> values, std::size_t block_elements);

/// Top-k sparsification: keeps the ceil(density * n) elements of largest |x| (the lower
/// index wins a tie) and zeroes the rest. Needs 0 < density <= 1.
void sparsify_top_k(std::span<double> values, double density);

/// Error feedback (Seide et al. 2014; Karimireddy et al. 2019): what a lossy round trip
/// drops from a buffer is remembered and added to the next buffer before compressing, so
/// the error does not accumulate over steps. One instance per buffer being compressed.
class ErrorFeedback {
 public:
  using RoundTrip = std::function<void(std::span<double>)>;

  explicit ErrorFeedback(RoundTrip round_trip) : round_trip_(std::move(round_trip)) {}

  /// values += residual; round trip; residual = (values before) - (values after).
  /// Throws std::invalid_argument when the size differs from the previous call.
  void apply(std::span<double> values);
  const std::vector<double>& residual() const { return residual_; }

 private:
  RoundTrip round_trip_;
  std::vector<double> residual_;
};

/// The round trip of `model` at the operating point `query`: error-bounded compressors
/// quantize with model.absolute_error_bound(query, value_range), quantizers use the
/// setting's bits and block, sparsifiers the requested density (per call, i.e. per block).
std::function<void(std::span<double>)> make_round_trip(const CompressorModel& model, const Query& query,
                                                       double value_range);

}  // namespace ccsim::compress
