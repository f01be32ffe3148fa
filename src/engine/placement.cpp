#include "engine/placement.hpp"

#include <algorithm>
#include <array>
#include <numeric>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/index.hpp"

namespace ccsim::engine {
namespace {

[[noreturn]] void fail(const std::string& detail) { throw InputError("--placement", 0, "", detail); }

/// Per rank: its index in its group of `kind` (0 without one); and the groups' size.
std::vector<int> coordinate(const trace::Trace& trace, trace::GroupKind kind, int& size) {
  std::vector<int> index(as_index(trace.world_size), 0);
  size = 1;
  for (const trace::Group& group : trace.groups) {
    if (group.kind != kind) continue;
    size = std::max(size, static_cast<int>(group.ranks.size()));
    for (std::size_t i = 0; i < group.ranks.size(); ++i) at(index, group.ranks[i]) = static_cast<int>(i);
  }
  return index;
}

std::vector<int> explicit_map(const trace::Trace& trace, const topology::Network& network, std::string_view list,
                              bool oversubscribe) {
  std::vector<int> map;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    std::string_view item =
        list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto value = parse_int(item);
    if (!value || *value < 0 || *value >= network.accelerator_count()) {
      fail(fmt::format("map entry {} must be an accelerator in 0..{}, got \"{}\"", map.size(),
                       network.accelerator_count() - 1, item));
    }
    map.push_back(static_cast<int>(*value));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (map.size() != as_index(trace.world_size)) {
    fail(fmt::format("the map places {} ranks but the trace has {}", map.size(), trace.world_size));
  }
  std::vector<int> sorted = map;
  std::sort(sorted.begin(), sorted.end());
  auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end() && !oversubscribe) {
    fail(fmt::format("the map puts two ranks on accelerator {} (--oversubscribe allows it)", *twice));
  }
  return map;
}

/// The first tensor-parallel group of `accelerator` (a placement) that spans nodes whose NICs do
/// not hang off the same switches (NIC k of each on one switch, for every k), or nullptr: a group
/// on neighbouring nodes of a supernode or leaf switch talks through that switch alone.
const trace::Group* group_across_switches(const trace::Trace& trace, const topology::Network& network,
                                          const std::vector<int>& accelerator) {
  const int nics = network.nics_per_node();
  for (const trace::Group& group : trace.groups) {
    if (group.kind != trace::GroupKind::kTensor || group.ranks.empty()) continue;
    const int first = network.node_of(at(accelerator, group.ranks.front()));
    for (int rank : group.ranks) {
      const int node = network.node_of(at(accelerator, rank));
      for (int k = 0; k < nics && node != first; ++k) {
        if (network.link_target(network.nic_link(node, k)) != network.link_target(network.nic_link(first, k)))
          return &group;
      }
    }
  }
  return nullptr;
}

}  // namespace

std::string resolve_placement(const trace::Trace& trace, const std::string& policy) {
  if (policy != "auto") return policy;
  return trace.placement.empty() ? std::string("tp,pp,dp") : trace.placement;
}

std::vector<int> place_ranks(const trace::Trace& trace, const topology::Network& network, const std::string& requested,
                             bool oversubscribe) {
  const std::string policy = resolve_placement(trace, requested);
  const int world = trace.world_size;
  if (world > network.accelerator_count() && !oversubscribe) {
    fail(
        fmt::format("the trace has {} ranks but the platform has only {} accelerators ({} nodes x {}); "
                    "--oversubscribe shares accelerators",
                    world, network.accelerator_count(), network.node_count(), network.accelerators_per_node()));
  }
  if (policy.starts_with("map:"))
    return explicit_map(trace, network, std::string_view(policy).substr(4), oversubscribe);
  std::vector<int> order(as_index(world));
  std::iota(order.begin(), order.end(), 0);
  const int accelerators = network.accelerator_count();
  if (policy == "rank-order") {
    for (int& slot : order) slot %= accelerators;
    return order;
  }

  // A permutation of tp, pp, dp, innermost first. Split into all its parts first: a policy
  // of fewer or more than three parts is as wrong as one with an unknown part.
  std::vector<std::string> names;
  for (std::size_t start = 0;;) {
    std::size_t comma = policy.find(',', start);
    names.push_back(policy.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != std::vector<std::string>{"dp", "pp", "tp"}) {
    fail(
        fmt::format("expected auto, rank-order, map:A,B,... or an order of tp, pp and dp such as tp,pp,dp "
                    "(innermost first), got \"{}\"",
                    policy));
  }
  int tp_size = 1;
  int pp_size = 1;
  int dp_size = 1;
  std::vector<int> tp = coordinate(trace, trace::GroupKind::kTensor, tp_size);
  std::vector<int> pp = coordinate(trace, trace::GroupKind::kPipeline, pp_size);
  std::vector<int> dp = coordinate(trace, trace::GroupKind::kData, dp_size);
  auto coord = [&](const std::string& name, int rank) {
    const auto r = as_index(rank);
    return name == "tp" ? tp[r] : name == "pp" ? pp[r] : dp[r];
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    for (int i = 2; i >= 0; --i) {  // outermost coordinate first
      int ca = coord(at(names, i), a);
      int cb = coord(at(names, i), b);
      if (ca != cb) return ca < cb;
    }
    return a < b;
  });
  std::vector<int> accelerator(as_index(world));
  for (int slot = 0; slot < world; ++slot) {
    at(accelerator, at(order, slot)) = slot % accelerators;
  }
  // Tensor-parallel groups innermost stay inside nodes where the nodes hold whole groups, else
  // on neighbouring nodes under one switch (one-accelerator nodes in a supernode).
  const int per_node = network.accelerators_per_node();
  if (names[0] == "tp" && tp_size > 1 && world <= accelerators && (tp_size > per_node || per_node % tp_size != 0)) {
    if (const trace::Group* group = group_across_switches(trace, network, accelerator)) {
      fail(fmt::format(
          "tensor-parallel groups of {} ranks cannot stay inside nodes of {} accelerators with placement \"{}\", "
          "nor on nodes under one switch (\"{}\" spans switches); pass --placement rank-order (or another order) "
          "to place them across switches",
          tp_size, per_node, policy, group->name));
    }
  }
  return accelerator;
}

double cpu_core_sharing(const topology::Network& network, const std::vector<int>& placement) {
  if (!network.accelerator().cpu_core || placement.empty()) return 1;
  std::vector<int> ranks_on(as_index(network.node_count()), 0);
  for (int a : placement) ++at(ranks_on, network.node_of(a));
  const int most = *std::max_element(ranks_on.begin(), ranks_on.end());
  return std::max(1.0, static_cast<double>(most) / network.accelerators_per_node());
}

}  // namespace ccsim::engine
