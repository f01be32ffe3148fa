#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/gemm_shape.hpp"
#include "topology/accelerator_profile.hpp"
#include "topology/network.hpp"

namespace ccsim::topology {

/// What a compute cost sees of one operator.
struct ComputeOp {
  std::string_view name;            ///< "linear", "softmax", ...
  std::string_view label;           ///< "attn.qkv", "bwd:mlp.up", ... (may be empty)
  const GemmShape* gemm = nullptr;  ///< its matrix products (with their dtype), if any
  double flops = 0;
  double bytes = 0;
  double measured_s = -1;  ///< its measured duration, < 0 when unknown
};

/// The time of a compute operator on an accelerator: the one seam through which every
/// executor prices compute (ARCHITECTURE.md, "Cost is a seam too").
/// Contract: `acc.flops` already holds `--set compute.scale` (the platform applies it); a cost
/// that does not read the platform's rates divides by the `speedup` it was built with.
class ComputeCost {
 public:
  virtual ~ComputeCost() = default;
  /// Seconds, finite and >= 0 for any operator a trace reader accepts.
  virtual double seconds(const ComputeOp& op, const AcceleratorSpec& acc) const = 0;
  /// For the report's "compute:" line: "peak rates", "profile h100 (models/compute/h100.json)".
  virtual std::string describe() const = 0;
};

/// max(flops / acc.flops, bytes / acc.memory_Bps): every kernel at the datasheet's peak.
class PeakCost final : public ComputeCost {
 public:
  double seconds(const ComputeOp& op, const AcceleratorSpec& acc) const override;
  std::string describe() const override { return "peak rates"; }
};

/// An accelerator profile's time (AcceleratorProfile::seconds) / speedup.
class ProfileCost final : public ComputeCost {
 public:
  ProfileCost(std::shared_ptr<const AcceleratorProfile> profile, double speedup)
      : profile_(std::move(profile)), speedup_(speedup) {}
  double seconds(const ComputeOp& op, const AcceleratorSpec& acc) const override;
  std::string describe() const override { return profile_->describe(); }
  const AcceleratorProfile& profile() const { return *profile_; }

 private:
  std::shared_ptr<const AcceleratorProfile> profile_;
  double speedup_;
};

/// The measured duration / speedup where there is one, else what `otherwise` says.
class MeasuredCost final : public ComputeCost {
 public:
  MeasuredCost(std::shared_ptr<const ComputeCost> otherwise, double speedup)
      : otherwise_(std::move(otherwise)), speedup_(speedup) {}
  double seconds(const ComputeOp& op, const AcceleratorSpec& acc) const override {
    return op.measured_s >= 0 ? op.measured_s / speedup_ : otherwise_->seconds(op, acc);
  }
  std::string describe() const override { return otherwise_->describe(); }
  const ComputeCost& otherwise() const { return *otherwise_; }

 private:
  std::shared_ptr<const ComputeCost> otherwise_;
  double speedup_;
};

}  // namespace ccsim::topology
