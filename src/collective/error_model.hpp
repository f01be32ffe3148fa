#pragma once

#include <cstdint>
#include <string_view>

namespace ccsim::collective {

/// The absolute error of one element of an all_reduce result, in units of eb, the absolute
/// error bound of one compression (|decompress(compress(x)) - x| <= eb). The element is the
/// exact sum plus the errors of the k compressions it went through; homomorphic adds,
/// decompressions and raw adds add none. Errors are taken independent and uniform on
/// [-eb, eb] (variance eb^2 / 3), so the sum of k has standard deviation eb sqrt(k / 3).
struct ResultError {
  int compressions = 0;  ///< k
  double worst = 0;      ///< worst case: k (all k errors at the bound with the same sign)
  /// E|sum of k errors| with the sum taken normal: sqrt(2/pi) sqrt(k/3) (0.461 for k = 1,
  /// against the exact 0.5; within 2.5% from k = 2 on).
  double expected = 0;
};

/// The error of a sum of `compressions` independent compression errors.
ResultError error_of_compressions(int compressions);

/// Which copy of an element of the result: compressed all_reduce results are not the same on
/// every rank when a rank keeps its own raw data.
enum class ResultCopy : std::uint8_t {
  kWorst,  ///< the copy that went through the most compressions (the bound for all ranks)
  kBest,   ///< the copy that went through the fewest
};

/// The error of an element of the all_reduce result of `algorithm` (a name of
/// algorithms(Collective::kAllReduce) other than "auto") on a group of `size` ranks. Counted
/// from the schedules:
///   compressed-ring      reduce-scatter: the chunk is compressed once by each of the p - 1
///                        ranks before its owner, which adds its raw input: k = p - 1 on the
///                        owner (kBest); the owner compresses it once more for the
///                        all-gather: k = p on every other rank (kWorst).
///   homomorphic-ring     every input compressed once, adds exact, the owner's copy too:
///                        k = p on every rank.
///   compressed-allgather a rank adds its own raw input to the p - 1 others' compressed
///                        ones: k = p - 1 on every rank.
///   plain algorithms     k = 0.
/// p = 1 runs no steps: k = 0. Throws std::invalid_argument for an unknown name or size < 1.
ResultError all_reduce_error(std::string_view algorithm, int size, ResultCopy copy = ResultCopy::kWorst);

}  // namespace ccsim::collective
