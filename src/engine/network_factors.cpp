#include "engine/network_factors.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace ccsim::engine {
namespace {

std::string format_bytes(std::uint64_t bytes) {
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (1ull << 10) && bytes % (1ull << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

std::string describe_tier(const char* name, const topology::TierModel& tier) {
  std::vector<std::string> segments;
  for (const topology::CostSegment& s : tier.segments) {
    segments.push_back(fmt::format(">= {}: {:.3g} us + bytes / {:.4g} MB/s{}", format_bytes(s.min_bytes),
                                   s.latency_s * 1e6, s.bandwidth_Bps / 1e6, s.ramp ? ", ramping to the next" : ""));
  }
  return fmt::format("{}: overheads send {:.3g} us, recv {:.3g} us; {} segment{} [{}]", name,
                     tier.send_overhead_s * 1e6, tier.recv_overhead_s * 1e6, tier.segments.size(),
                     tier.segments.size() == 1 ? "" : "s", fmt::join(segments, "; "));
}

void check_tier(const char* name, const topology::TierModel& tier) {
  if (tier.segments.empty()) throw std::invalid_argument(fmt::format("network model: tier {} has no segments", name));
  for (const topology::CostSegment& s : tier.segments) {
    if (!(s.bandwidth_Bps > 0))
      throw std::invalid_argument(fmt::format("network model: tier {} has a segment without bandwidth", name));
  }
}

}  // namespace

NetworkFactors::NetworkFactors(std::shared_ptr<const topology::NetworkModel> model) : model_(std::move(model)) {
  if (model_ == nullptr) throw std::invalid_argument("NetworkFactors: no model");
  if (model_->has_intra) check_tier("intra", model_->intra);
  if (model_->has_inter) check_tier("inter", model_->inter);
}

void NetworkFactors::share_cores(double sharing) {
  if (!(sharing > 1) || !model_->has_intra) return;
  shared_intra_ = topology::on_shared_cores(model_->intra, sharing);
  sharing_ = sharing;
}

const topology::TierModel* NetworkFactors::tier(bool same_node) const {
  if (same_node && shared_intra_) return &*shared_intra_;
  if (same_node) return model_->has_intra ? &model_->intra : nullptr;
  return model_->has_inter ? &model_->inter : nullptr;
}

double NetworkFactors::send_overhead_s(bool same_node) const {
  const topology::TierModel* t = tier(same_node);
  return t != nullptr ? t->send_overhead_s : 0.0;
}

double NetworkFactors::recv_overhead_s(bool same_node) const {
  const topology::TierModel* t = tier(same_node);
  return t != nullptr ? t->recv_overhead_s : 0.0;
}

double NetworkFactors::max_bandwidth_Bps(bool same_node) const {
  const topology::TierModel* t = tier(same_node);
  double best = 0;
  if (t != nullptr) {
    for (const topology::CostSegment& s : t->segments) best = std::max(best, s.bandwidth_Bps);
  }
  return best;
}

double NetworkFactors::link_floor_Bps(bool accelerator_link) const {
  const double inter_Bps = max_bandwidth_Bps(false);
  return accelerator_link ? std::max(max_bandwidth_Bps(true), inter_Bps) : inter_Bps;
}

bool NetworkFactors::has_overheads() const {
  for (bool same_node : {true, false}) {
    const topology::TierModel* t = tier(same_node);
    if (t != nullptr && (t->send_overhead_s != 0 || t->recv_overhead_s != 0)) {
      return true;
    }
  }
  return false;
}

bool NetworkFactors::has_floor() const {
  for (bool same_node : {true, false}) {
    const topology::TierModel* t = tier(same_node);
    if (t != nullptr && t->floor_bytes > 0) return true;
  }
  return false;
}

void NetworkFactors::count(bool same_node, double bytes) {
  const topology::TierModel* t = tier(same_node);
  if (t == nullptr || !t->extrapolates(bytes)) return;
  const int i = same_node ? 1 : 0;
  if (below_floor_[i]++ == 0 || bytes < smallest_below_[i]) smallest_below_[i] = bytes;
}

std::string NetworkFactors::extrapolation_note() const {
  std::vector<std::string> parts;
  for (int i = 1; i >= 0; --i) {
    if (below_floor_[i] == 0) continue;
    const topology::TierModel* t = tier(i == 1);
    parts.push_back(fmt::format("{} {} message{} (the smallest {:.0f} B) below the {} B it was fitted from, priced {}",
                                below_floor_[i], i == 1 ? "intra" : "inter", below_floor_[i] == 1 ? "" : "s",
                                smallest_below_[i], t->floor_bytes, t->extrapolation()));
  }
  if (parts.empty()) return "";
  return fmt::format("calibrated model {} extrapolated: {}; measure smaller messages to know them", model_->name,
                     fmt::join(parts, "; "));
}

std::string NetworkFactors::describe() const {
  std::string where = model_->file.empty() ? std::string("in memory") : model_->file;
  std::string intra = model_->has_intra ? describe_tier("intra", model_->intra) : "intra: the platform's links";
  std::string inter = model_->has_inter ? describe_tier("inter", model_->inter) : "inter: the platform's links";
  return fmt::format(
      "calibrated model {} ({}): SimGrid CM02 with per-message latency and bandwidth factors, so that a lone message "
      "costs send overhead + latency + bytes / bandwidth + receive overhead of its tier; {}; {}",
      model_->name.empty() ? std::string("(unnamed)") : model_->name, where, intra, inter);
}

collective::GroupLinks calibrated_links(collective::GroupLinks links, const NetworkFactors& factors,
                                        double message_bytes) {
  if (const topology::TierModel* intra = factors.tier(true)) {
    const topology::CostSegment s = NetworkFactors::segment(*intra, message_bytes);
    links.intra_alpha_s = s.latency_s + intra->send_overhead_s + intra->recv_overhead_s;
    links.intra_beta_s_per_byte = 1.0 / s.bandwidth_Bps;
  }
  if (const topology::TierModel* inter = factors.tier(false)) {
    const topology::CostSegment s = NetworkFactors::segment(*inter, message_bytes);
    links.inter_alpha_s = s.latency_s + inter->send_overhead_s + inter->recv_overhead_s;
    links.inter_beta_s_per_byte = 1.0 / s.bandwidth_Bps;
    links.nic_Bps = std::max(links.nic_Bps, factors.max_bandwidth_Bps(false));
  }
  return links;
}

}  // namespace ccsim::engine
