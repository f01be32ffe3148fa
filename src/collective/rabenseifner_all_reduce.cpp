#include "collective/rabenseifner_all_reduce.hpp"

#include "collective/block_parts.hpp"
#include "collective/power_of_two_fold.hpp"

namespace ccsim::collective {

std::vector<Step> RabenseifnerAllReduce::steps(int rank) const {
  const PowerOfTwoFold fold(size());
  const Block all = whole(*this);
  std::vector<Step> out;
  fold.append_fold_in(out, rank, all);
  if (const int core = fold.core_rank(rank); core >= 0) {
    const int q = fold.core_size();
    // Reduce-scatter by recursive halving: the rank keeps the half of its chunk range
    // [first, last) on the side of its bit `distance`, sends the other half to the partner
    // across that bit and adds the partner's copy of the kept half.
    int first = 0;
    int last = q;
    for (int distance = q / 2; distance >= 1; distance /= 2) {
      const int peer = fold.rank_of(core ^ distance);
      const int mid = first + (last - first) / 2;
      const bool upper = (core & distance) != 0;
      const Block low = parts_span(all, first, mid, q);
      const Block high = parts_span(all, mid, last, q);
      out.push_back(exchange(peer, upper ? low : high, peer, upper ? high : low, RecvMode::kReduce));
      (upper ? first : last) = mid;
    }
    // Now [first, last) = [core, core + 1). All-gather by recursive doubling: the ranges of
    // the two partners are adjacent aligned blocks of `distance` chunks.
    for (int distance = 1; distance < q; distance *= 2) {
      const int peer = fold.rank_of(core ^ distance);
      const bool upper = (core & distance) != 0;
      const int peer_first = upper ? first - distance : last;
      out.push_back(exchange(peer, parts_span(all, first, last, q), peer,
                             parts_span(all, peer_first, peer_first + distance, q), RecvMode::kCopy));
      (upper ? first : last) = upper ? peer_first : peer_first + distance;
    }
  }
  fold.append_fold_out(out, rank, all);
  return out;
}

double RabenseifnerAllReduce::cost(const CostParams& params) const {
  const PowerOfTwoFold fold(size());
  const double n = static_cast<double>(bytes());
  const double q = fold.core_size();
  const double rounds = floor_log2(fold.core_size());
  return 2 * rounds * params.alpha_s + 2 * (q - 1) / q * n * params.beta_s_per_byte +
         (q - 1) / q * n * params.gamma_s_per_byte + fold.cost(n, params);
}

}  // namespace ccsim::collective
