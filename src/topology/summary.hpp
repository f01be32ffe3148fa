#pragma once

#include <string>
#include <vector>

#include "topology/network_model.hpp"
#include "topology/platform.hpp"

namespace ccsim::topology {

/// One tier of links as `ccsim platform show` prints it.
struct TierSummary {
  std::string name;
  std::size_t links = 0;
  double bandwidth_Bps = 0;  ///< per flow (one cable)
  double capacity_Bps = 0;   ///< per link, all cables
  double latency_s = 0;
  Sharing sharing = Sharing::kSplitDuplex;
  double oversubscription = 0;
  std::string source;
};

/// What a platform is, computed on its graph: sizes, tiers, bisection, diameter.
struct PlatformSummary {
  std::size_t vertices = 0;
  std::size_t switches = 0;
  std::vector<TierSummary> tiers;
  double bisection_Bps = 0;              ///< max-flow on the graph (analysis.hpp)
  double closed_form_bisection_Bps = 0;  ///< NaN when the topology has no closed form
  int diameter_hops = 0;
  Network::PathCost farthest;  ///< the route to the farthest accelerator from accelerator 0
  int farthest_accelerator = 0;
};

PlatformSummary summarize(const Platform& platform);

/// The summary as text, for `ccsim platform show`.
std::string format_summary(const Platform& platform, const PlatformSummary& summary);

/// The line of `ccsim platform list` for the preset `name`: nodes, accelerators per node,
/// topology, accelerator.
std::string list_line(const std::string& name, const Platform& platform);

/// Throws InputError unless `src` and `dst` are accelerators of `platform`.
void check_route_ends(const Platform& platform, int src, int dst);

/// The links a message from accelerator `src` to `dst` crosses, each with its figures; what
/// 1 MiB takes alone on their nominal figures; and, where `model` (a calibrated network model,
/// nullptr: none) has the pair's tier, what it takes in a replay. Checks the ends first
/// (check_route_ends).
std::string describe_route(const Platform& platform, int src, int dst, const NetworkModel* model);

}  // namespace ccsim::topology
