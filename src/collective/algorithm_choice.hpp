#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "collective/registry.hpp"
#include "compress/compressor_cost.hpp"

namespace ccsim::collective {

/// The links of one group on a platform, as the closed forms see them (no contention, except
/// that the ranks of a node share its NICs).
struct GroupLinks {
  double intra_alpha_s = 0;  ///< between two ranks of one node
  double intra_beta_s_per_byte = 0;
  double inter_alpha_s = 0;          ///< between ranks of different nodes (the group's worst pair)
  double inter_beta_s_per_byte = 0;  ///< one flow alone on its route
  double nic_Bps = 0;                ///< one NIC's bandwidth; 0: NIC sharing not modelled
  int nics_per_node = 1;
  double gamma_s_per_byte = 0;          ///< elementwise reduction
  compress::CompressorCost compressor;  ///< of a compressed request
};

/// One candidate algorithm and its predicted time.
struct Prediction {
  std::string algorithm;
  double time_s = 0;
  int nic_sharing = 1;  ///< ranks of a node that send off it at once, per NIC (their flows share it)
};

/// The predicted time of every all_reduce algorithm that applies to `request` (the plain ones
/// without a compressor; with one, those that accept its kind and whose result's worst error
/// (error_model.hpp) is no worse than that of the algorithm its kind calls for; hierarchical only
/// on a layout of >= 2 nodes with >= 2 ranks on each), in table order. Each is its schedule's closed form
/// (Schedule::cost) with the group's links: intra-node figures for a group inside one node,
/// else the inter-node ones, whose bandwidth is divided among the ranks of a node that the
/// schedule makes send off the node (counted from its steps) per NIC. request.algorithm is ignored.
std::vector<Prediction> predict_all_reduce(const Request& request, const GroupLinks& links);

/// The predicted time of the all_reduce algorithm that make_schedule(request) builds
/// (choose_algorithm: request.algorithm, or the choice without a platform for "auto"), by the
/// same closed form and links as predict_all_reduce; throws as make_schedule().
Prediction predict_algorithm(const Request& request, const GroupLinks& links);

/// The fastest of `predictions` (the first in table order among equal times).
const Prediction& fastest(const std::vector<Prediction>& predictions);

/// "ring 52.811 ms (chosen), hierarchical 55.021 ms (NIC shared by 2), ...", for reports.
std::string describe(const std::vector<Prediction>& predictions, std::string_view chosen);

}  // namespace ccsim::collective
