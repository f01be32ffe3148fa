#pragma once

#include <vector>

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// The MPICH fold of a group of p ranks onto p' = the largest power of two <= p ranks, for
/// algorithms that need a power of two (recursive doubling, Rabenseifner). With r = p - p',
/// the first 2r ranks pair up (2i, 2i + 1): the even rank sends its whole buffer to the odd
/// one, which reduces it, and sits out; the p' survivors ("core ranks" 0..p'-1: odd rank
/// 2i + 1 < 2r is core rank i, rank k >= 2r is core rank k - r) run the power-of-two
/// algorithm; then each odd rank sends the result back to its even partner.
/// Extra time when r > 0: 2(alpha + n beta) + n gamma (in, reduce, out); 0 when r = 0.
class PowerOfTwoFold {
 public:
  explicit PowerOfTwoFold(int size);

  int core_size() const { return core_size_; }
  int extra() const { return size_ - core_size_; }
  /// The core rank of group-local `rank`, or -1 for an even rank < 2r, which sits out.
  int core_rank(int rank) const;
  /// The group-local rank of core rank `core`.
  int rank_of(int core) const;

  /// Appends `rank`'s step of the fold-in (nothing for ranks >= 2r).
  void append_fold_in(std::vector<Step>& out, int rank, Block whole) const;
  /// Appends `rank`'s step of the fold-out (nothing for ranks >= 2r).
  void append_fold_out(std::vector<Step>& out, int rank, Block whole) const;
  /// Time of fold-in plus fold-out for n bytes.
  double cost(double n, const CostParams& params) const;

 private:
  int size_;
  int core_size_;
};

/// Floor of log2(x) for x >= 1.
int floor_log2(int x);
/// Ceiling of log2(x) for x >= 1 (0 for x = 1).
int ceil_log2(int x);

}  // namespace ccsim::collective
