#include "collective/error_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include <fmt/format.h>

#include "collective/registry.hpp"

namespace ccsim::collective {

ResultError error_of_compressions(int compressions) {
  ResultError error;
  error.compressions = compressions;
  error.worst = compressions;
  error.expected = std::sqrt(2 / std::numbers::pi) * std::sqrt(compressions / 3.0);
  return error;
}

ResultError all_reduce_error(std::string_view algorithm, int size, ResultCopy copy) {
  const auto names = algorithms(Collective::kAllReduce);
  if (algorithm == "auto" || std::find(names.begin(), names.end(), algorithm) == names.end()) {
    throw std::invalid_argument(fmt::format("all_reduce_error: \"{}\" is not an all_reduce algorithm", algorithm));
  }
  if (size < 1) throw std::invalid_argument(fmt::format("all_reduce_error: a group of {} ranks", size));
  if (size == 1) return error_of_compressions(0);
  if (algorithm == "compressed-ring") return error_of_compressions(copy == ResultCopy::kWorst ? size : size - 1);
  if (algorithm == "homomorphic-ring") return error_of_compressions(size);
  if (algorithm == "compressed-allgather") return error_of_compressions(size - 1);
  return error_of_compressions(0);
}

}  // namespace ccsim::collective
