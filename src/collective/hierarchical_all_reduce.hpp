#pragma once

#include <string>
#include <vector>

#include "collective/ring_phases.hpp"
#include "collective/schedule.hpp"

namespace ccsim::collective {

/// Two-level all_reduce for groups spread over nodes with g ranks each (N = p / g nodes):
/// ring reduce-scatter inside each node (chunks of n/g), ring all_reduce of its chunk among
/// the N ranks with the same local index (one per node), ring all-gather inside each node.
/// Only n/g bytes per rank cross the slower inter-node tier. For n bytes, with the intra tier
/// (alpha_i, beta_i) = (params.intra_alpha(), params.intra_beta()):
///   (g-1)(alpha_i + n/g beta_i + n/g gamma)                               intra reduce-scatter
///   + 2(N-1) alpha + 2(N-1)/N n/g beta + (N-1)/N n/g gamma                inter ring all_reduce
///   + (g-1)(alpha_i + n/g beta_i)                                         intra all-gather.
/// With g = 1 it is the ring all_reduce; with N = 1, a ring inside the node.
class HierarchicalAllReduce : public Schedule {
 public:
  /// `node_of_rank[i]` is the node (any id) of group-local rank i. Nodes are ordered by their
  /// first rank, and the ranks of a node by rank. Throws std::invalid_argument with
  /// layout_error()'s message unless the layout is usable.
  HierarchicalAllReduce(int size, std::uint64_t count, int element_bytes, std::vector<int> node_of_rank);

  /// Why `node_of_rank` cannot be used for a group of `size` (it must name the node of every
  /// rank, and every node must hold the same number of the group's ranks), or "" if it can.
  static std::string layout_error(const std::vector<int>& node_of_rank, int size);

  int ranks_per_node() const { return ranks_per_node_; }
  int nodes() const { return size() / ranks_per_node_; }
  Algorithm algorithm() const override { return Algorithm::kHierarchical; }
  std::vector<Step> steps(int rank) const override;
  std::vector<int> send_peers(int rank) const override;
  double cost(const CostParams& params) const override;

 private:
  struct Rings {
    RingPosition intra;  ///< the ranks of this rank's node
    RingPosition inter;  ///< the ranks of its local index, one per node
  };
  Rings rings(int rank) const;
  /// Group-local rank of the rank with local index `local` on the node at position `node`.
  int member(int node, int local) const;
  int member_slot(int node, int local) const;

  int ranks_per_node_ = 1;
  std::vector<int> node_index_;   ///< per rank: position of its node (order of first rank)
  std::vector<int> local_index_;  ///< per rank: its position among the ranks of its node
  std::vector<int> members_;      ///< node position * g + local index -> group-local rank
};

}  // namespace ccsim::collective
