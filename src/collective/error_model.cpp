#include "collective/error_model.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include <fmt/format.h>

#include "collective/algorithm.hpp"

namespace ccsim::collective {

ResultError error_of_compressions(int compressions) {
  ResultError error;
  error.compressions = compressions;
  error.worst = compressions;
  error.expected = std::sqrt(2 / std::numbers::pi) * std::sqrt(compressions / 3.0);
  return error;
}

ResultError all_reduce_error(std::string_view algorithm, int size, ResultCopy copy) {
  const AlgorithmInfo* info = find_algorithm(Collective::kAllReduce, algorithm);
  if (info == nullptr) {
    throw std::invalid_argument(fmt::format("all_reduce_error: \"{}\" is not an all_reduce algorithm", algorithm));
  }
  if (size < 1) throw std::invalid_argument(fmt::format("all_reduce_error: a group of {} ranks", size));
  if (size == 1) return error_of_compressions(0);
  switch (info->id) {
    case Algorithm::kCompressedRing:
      return error_of_compressions(copy == ResultCopy::kWorst ? size : size - 1);
    case Algorithm::kHomomorphicRing:
      return error_of_compressions(size);
    case Algorithm::kCompressedAllGather:
      return error_of_compressions(size - 1);
    default:
      return error_of_compressions(0);
  }
}

}  // namespace ccsim::collective
