#include "collective/binomial_broadcast.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "collective/block_parts.hpp"
#include "collective/power_of_two_fold.hpp"

namespace ccsim::collective {

BinomialBroadcast::BinomialBroadcast(int size, std::uint64_t count, int element_bytes, int root)
    : Schedule(size, count, element_bytes), root_(root) {
  if (root < 0 || root >= size) {
    throw std::invalid_argument(fmt::format("broadcast: root {} is not a rank of a group of {}", root, size));
  }
}

std::vector<Step> BinomialBroadcast::steps(int rank) const {
  std::vector<Step> out;
  append_binomial_broadcast(out, rank, root_, size(), whole(*this));
  return out;
}

double BinomialBroadcast::cost(const CostParams& params) const {
  const double n = static_cast<double>(bytes());
  return ceil_log2(size()) * (params.alpha_s + n * params.beta_s_per_byte);
}

void append_binomial_broadcast(std::vector<Step>& out, int rank, int root, int size, Block block) {
  const int relative = (rank - root + size) % size;
  auto actual = [&](int r) { return (r + root) % size; };
  // The parent is `relative` with its lowest set bit cleared; the root has none and ends the
  // loop with mask = the first power of two >= size.
  int mask = 1;
  while (mask < size) {
    if ((relative & mask) != 0) {
      out.push_back(recv_only(actual(relative - mask), block, RecvMode::kCopy));
      break;
    }
    mask *= 2;
  }
  for (mask /= 2; mask > 0; mask /= 2) {
    if (relative + mask < size) out.push_back(send_only(actual(relative + mask), block));
  }
}

}  // namespace ccsim::collective
