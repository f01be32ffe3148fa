#include "collective/hierarchical_all_reduce.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "collective/block_parts.hpp"
#include "collective/ring_phases.hpp"
#include "core/index.hpp"

namespace ccsim::collective {
namespace {

/// Per node id, in order of first appearance: (id, ranks on it).
std::vector<std::pair<int, int>> node_sizes(const std::vector<int>& node_of_rank) {
  std::vector<std::pair<int, int>> sizes;
  std::map<int, std::size_t> position;
  for (int node : node_of_rank) {
    auto [it, fresh] = position.try_emplace(node, sizes.size());
    if (fresh) sizes.emplace_back(node, 0);
    ++sizes[it->second].second;
  }
  return sizes;
}

}  // namespace

std::string HierarchicalAllReduce::layout_error(const std::vector<int>& node_of_rank, int size) {
  if (node_of_rank.size() != static_cast<std::size_t>(size)) {
    return fmt::format("hierarchical all_reduce needs the node of each of the group's {} ranks, got {}", size,
                       node_of_rank.size());
  }
  const auto sizes = node_sizes(node_of_rank);
  for (const auto& [node, count] : sizes) {
    if (count != sizes.front().second) {
      return fmt::format(
          "hierarchical all_reduce needs the same number of the group's ranks on every node, but node {} holds {} "
          "and node {} holds {}",
          sizes.front().first, sizes.front().second, node, count);
    }
  }
  return "";
}

HierarchicalAllReduce::HierarchicalAllReduce(int size, std::uint64_t count, int element_bytes,
                                             std::vector<int> node_of_rank)
    : Schedule(size, count, element_bytes) {
  if (std::string error = layout_error(node_of_rank, size); !error.empty()) throw std::invalid_argument(error);
  const auto sizes = node_sizes(node_of_rank);
  ranks_per_node_ = sizes.front().second;
  std::map<int, int> position;
  for (std::size_t i = 0; i < sizes.size(); ++i) position[sizes[i].first] = static_cast<int>(i);
  std::vector<int> filled(sizes.size(), 0);
  node_index_.resize(node_of_rank.size());
  local_index_.resize(node_of_rank.size());
  members_.resize(node_of_rank.size());
  for (std::size_t rank = 0; rank < node_of_rank.size(); ++rank) {
    const int node = position[node_of_rank[rank]];
    node_index_[rank] = node;
    local_index_[rank] = at(filled, node)++;
    members_[static_cast<std::size_t>(member_slot(node, local_index_[rank]))] = static_cast<int>(rank);
  }
}

int HierarchicalAllReduce::member_slot(int node, int local) const { return node * ranks_per_node_ + local; }

int HierarchicalAllReduce::member(int node, int local) const {
  return members_[static_cast<std::size_t>(member_slot(node, local))];
}

HierarchicalAllReduce::Rings HierarchicalAllReduce::rings(int rank) const {
  const int g = ranks_per_node_;
  const int big_n = nodes();
  const int node = at(node_index_, rank);
  const int local = at(local_index_, rank);
  return Rings{RingPosition{local, g, member(node, wrap(local - 1, g)), member(node, wrap(local + 1, g))},
               RingPosition{node, big_n, member(wrap(node - 1, big_n), local), member(wrap(node + 1, big_n), local)}};
}

std::vector<int> HierarchicalAllReduce::send_peers(int rank) const {
  const auto [intra, inter] = rings(rank);
  std::vector<int> peers = ring_send_peers(intra);
  for (int peer : ring_send_peers(inter)) {
    if (std::find(peers.begin(), peers.end(), peer) == peers.end()) peers.push_back(peer);
  }
  return peers;
}

std::vector<Step> HierarchicalAllReduce::steps(int rank) const {
  const int g = ranks_per_node_;
  const int big_n = nodes();
  const int local = at(local_index_, rank);
  const auto [intra, inter] = rings(rank);
  const Block all = whole(*this);
  const Block mine = part(all, local, g);
  std::vector<Step> out;
  out.reserve(static_cast<std::size_t>(2 * (g - 1) + 2 * (big_n - 1)));
  append_ring_reduce_scatter(out, intra, all);
  append_ring_reduce_scatter(out, inter, mine);
  append_ring_all_gather(out, inter, mine);
  append_ring_all_gather(out, intra, all);
  return out;
}

double HierarchicalAllReduce::cost(const CostParams& params) const {
  const double g = ranks_per_node_;
  const double big_n = nodes();
  const double chunk = static_cast<double>(bytes()) / g;
  const double alpha_i = params.intra_alpha();
  const double beta_i = params.intra_beta();
  const double gamma = params.gamma_s_per_byte;
  const double intra_reduce_scatter = (g - 1) * (alpha_i + chunk * beta_i + chunk * gamma);
  const double inter_all_reduce = 2 * (big_n - 1) * params.alpha_s +
                                  2 * (big_n - 1) / big_n * chunk * params.beta_s_per_byte +
                                  (big_n - 1) / big_n * chunk * gamma;
  const double intra_all_gather = (g - 1) * (alpha_i + chunk * beta_i);
  return intra_reduce_scatter + inter_all_reduce + intra_all_gather;
}

}  // namespace ccsim::collective
