#pragma once

#include <vector>

#include "topology/node_spec.hpp"

namespace ccsim::topology {

/// One level of a fat-tree. Level 1 switches join `down` NICs; level k > 1 switches join
/// `down` level k-1 switches through trunks whose capacity is the lower switch's down
/// capacity divided by `oversubscription`, made of cables of `link.bandwidth_Bps`.
struct FatTreeLevel {
  int down = 1;
  LinkSpec link;                ///< level > 1: one cable of the trunk to the level below
  double oversubscription = 1;  ///< level > 1: down capacity : up capacity of the level below
};

/// A multi-level fat-tree with its own bandwidth and oversubscription at each level, ending
/// in one root. With `rails`, NIC k of every node joins rail k's level-1 switches
/// (rail-optimised, as in NVIDIA's SuperPOD); rails meet at level 2.
struct FatTreeSpec {
  std::vector<FatTreeLevel> levels;
  bool rails = false;
};

/// Number of switches at each level (index 0 = level 1) for `nodes` nodes with `nics` NICs.
std::vector<int> fat_tree_switch_counts(const NodeSpec& nodes, const FatTreeSpec& tree);

/// Trunk capacity from a level-k switch (k = 1..L-1) up to its parent.
std::vector<double> fat_tree_uplink_capacity(const NodeSpec& nodes, const FatTreeSpec& tree);

/// What build_fat_tree allocates (a tree router holds a parent and a link per switch).
NetworkSize fat_tree_size(const NodeSpec& nodes, const FatTreeSpec& tree);

/// Builds the network; requires fat_tree_switch_counts(...).back() == 1.
Network build_fat_tree(const NodeSpec& nodes, const FatTreeSpec& tree);

/// Bisection bandwidth in closed form when the tree is full and its root has an even
/// number of children: min(A/2 * intra, N*nics/2 * nic / prod(oversubscription)); NaN otherwise.
double fat_tree_bisection_closed_form(const NodeSpec& nodes, const FatTreeSpec& tree);

}  // namespace ccsim::topology
