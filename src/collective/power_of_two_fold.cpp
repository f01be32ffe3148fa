#include "collective/power_of_two_fold.hpp"

#include <bit>

namespace ccsim::collective {

int floor_log2(int x) { return std::bit_width(static_cast<unsigned>(x)) - 1; }

int ceil_log2(int x) { return x <= 1 ? 0 : floor_log2(x - 1) + 1; }

PowerOfTwoFold::PowerOfTwoFold(int size) : size_(size), core_size_(1 << floor_log2(size)) {}

int PowerOfTwoFold::core_rank(int rank) const {
  const int r = extra();
  if (rank >= 2 * r) return rank - r;
  return rank % 2 == 1 ? rank / 2 : -1;
}

int PowerOfTwoFold::rank_of(int core) const {
  const int r = extra();
  return core < r ? 2 * core + 1 : core + r;
}

void PowerOfTwoFold::append_fold_in(std::vector<Step>& out, int rank, Block whole) const {
  if (rank >= 2 * extra()) return;
  if (rank % 2 == 0) {
    out.push_back(send_only(rank + 1, whole));
  } else {
    out.push_back(recv_only(rank - 1, whole, RecvMode::kReduce));
  }
}

void PowerOfTwoFold::append_fold_out(std::vector<Step>& out, int rank, Block whole) const {
  if (rank >= 2 * extra()) return;
  if (rank % 2 == 0) {
    out.push_back(recv_only(rank + 1, whole, RecvMode::kCopy));
  } else {
    out.push_back(send_only(rank - 1, whole));
  }
}

double PowerOfTwoFold::cost(double n, const CostParams& params) const {
  if (extra() == 0) return 0.0;
  return 2 * (params.alpha_s + n * params.beta_s_per_byte) + n * params.gamma_s_per_byte;
}

}  // namespace ccsim::collective
