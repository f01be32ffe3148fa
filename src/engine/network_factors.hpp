#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "collective/algorithm_choice.hpp"
#include "topology/network_model.hpp"

namespace ccsim::engine {

/// A calibrated network model (topology::NetworkModel) as the engine applies it: per message,
/// the tier (same node: intra, else inter), its segment by size, the latency and bandwidth a
/// lone message gets and the CPU overheads of the sender and the receiver. A tier that the
/// model does not describe keeps the platform's nominal figures and costs no overhead.
/// Header without SimGrid types, so that the formulas are testable on their own.
class NetworkFactors {
 public:
  explicit NetworkFactors(std::shared_ptr<const topology::NetworkModel> model);

  const topology::NetworkModel& model() const { return *model_; }
  /// The tier between two ranks, nullptr when the model leaves it to the platform.
  const topology::TierModel* tier(bool same_node) const;
  /// The latency and bandwidth of `tier` for a message of `bytes` (topology::TierModel::at).
  static topology::CostSegment segment(const topology::TierModel& tier, double bytes) { return tier.at(bytes); }

  double send_overhead_s(bool same_node) const;
  double recv_overhead_s(bool same_node) const;
  /// The largest bandwidth of any segment of the intra (or inter) tier, 0 without that tier:
  /// links are never slower than this in model mode, so that a lone flow gets the model's figure.
  double max_bandwidth_Bps(bool same_node) const;
  /// The least capacity a link has in model mode (GraphZoneOptions' floors): an accelerator's
  /// link carries both tiers' messages, any other link the inter tier's.
  double link_floor_Bps(bool accelerator_link) const;
  /// Whether a tier that the model describes charges a send or receive overhead: the ranks
  /// are then busy around each message.
  bool has_overheads() const;
  /// Whether a tier that the model describes was fitted from some smallest message
  /// (floor_bytes > 0): the messages below it are then counted (count()).
  bool has_floor() const;

  /// Ranks share their node's cores, `sharing` per core (> 1): the intra tier becomes
  /// topology::on_shared_cores of the model's (NetworkModel::per_core).
  void share_cores(double sharing);

  /// "calibrated model NAME (FILE), intra: ..., inter: ...", printed with every result.
  std::string describe() const;

  /// Counts a message of `bytes` that the simulation priced with the tier of `same_node`,
  /// for extrapolation_note().
  void count(bool same_node, double bytes);
  /// "" when every counted message lay within the data of its tier, else a note naming how
  /// many did not, the smallest, and how the model priced them (TierModel::extrapolation).
  std::string extrapolation_note() const;

 private:
  std::shared_ptr<const topology::NetworkModel> model_;
  std::optional<topology::TierModel> shared_intra_;  ///< with share_cores
  double sharing_ = 1;
  /// Messages below their tier's floor_bytes, and the smallest of them, by tier (0 inter, 1 intra).
  std::uint64_t below_floor_[2] = {0, 0};
  double smallest_below_[2] = {0, 0};
};

/// The links of a group as the closed forms (--algo auto) see them under the model: each tier
/// the model describes takes its segment for messages of `message_bytes` (its latency plus both
/// CPU overheads as alpha, its bandwidth as 1 / beta); a tier the model leaves to the platform
/// keeps `nominal`'s figures. The NIC is never slower than the model's inter bandwidth (the
/// engine raises the links to it).
collective::GroupLinks calibrated_links(collective::GroupLinks nominal, const NetworkFactors& factors,
                                        double message_bytes);

}  // namespace ccsim::engine
