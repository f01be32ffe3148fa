#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/compute_cost.hpp"
#include "topology/network.hpp"
#include "trace/trace.hpp"

namespace ccsim::calibrate {

/// Format tag and version of a compute model file (models/README.md, "Compute models").
inline constexpr std::string_view kComputeModelFormat = "ccsim-compute-model";
inline constexpr int kComputeModelVersion = 1;

/// The fitted time of one compute operator kind on one machine:
/// overhead_s + flops / flop_rate * (flops / flop_reference)^(flop_exponent - 1) + bytes / byte_rate
/// (a rate of 0 means the term is absent). With flop_exponent 1 (the default) the FLOP term is
/// flops / flop_rate; otherwise flop_rate is the rate at flop_reference FLOPs, and the rate of
/// an operator of f FLOPs is flop_rate * (f / flop_reference)^(1 - flop_exponent): above 1, larger
/// operators run at a lower rate (on a CPU, GEMMs whose operands leave the caches).
struct KindModel {
  std::string kind;
  double overhead_s = 0;
  double flop_rate = 0;       ///< FLOP/s (at flop_reference FLOPs when flop_exponent != 1); 0: no FLOP term
  double flop_exponent = 1;   ///< time of the FLOP term ~ flops^flop_exponent
  double flop_reference = 0;  ///< FLOPs at which flop_rate holds; > 0 when flop_exponent != 1
  double byte_rate = 0;       ///< bytes/s; 0: no byte term
  int points = 0;             ///< operators the fit used
  int distinct = 0;           ///< distinct (flops, bytes) pairs among them
  std::string form;           ///< the terms the fit was allowed, e.g. "overhead + flops + bytes"
  double gmean_error = 0;
  double worst_error = 0;

  double predict_s(double flops, double bytes) const;
  /// The FLOP rate of an operator of `flops` FLOPs (flop_rate when flop_exponent is 1); 0 without a FLOP term.
  double flop_rate_at(double flops) const;
};

/// The effective cost of one traced collective kind (or send/recv) on groups of `ranks`:
/// latency_s + bytes / bandwidth_Bps per call.
struct CallModel {
  trace::OpKind kind = trace::OpKind::kAllReduce;
  int ranks = 2;
  double latency_s = 0;
  double bandwidth_Bps = 0;  ///< 0: no size term
  int points = 0;            ///< calls the fit used
  int distinct = 0;          ///< distinct sizes among them
  double gmean_error = 0;
  double worst_error = 0;

  double predict_s(double bytes) const;
};

/// A calibrated compute model (models/compute/NAME.json): per operator kind, and the traced
/// backend's collectives.
struct ComputeModel {
  std::string file;  ///< where it was read from (for messages), empty when built in memory
  std::string name;
  std::string description;
  trace::Hardware hardware;  ///< what it was measured on (name "unknown" when the traces did not say)
  std::string command;       ///< the command that made it
  std::vector<std::string> traces;
  std::vector<KindModel> kinds;
  std::vector<CallModel> calls;

  const KindModel* find(std::string_view kind) const;
  /// "linear, bmm, ..." (the first 20), for messages.
  std::string kind_list() const;
};

/// A fitted compute model as a compute cost: an operator's time is its kind's curve (the
/// backward kind "NAME:bwd" for a label "bwd:...", else the forward one), whatever the
/// accelerator; NaN for a kind the model lacks (adjust_compute refuses those first).
class KindModelCost final : public topology::ComputeCost {
 public:
  explicit KindModelCost(const ComputeModel& model) : model_(model) {}
  double seconds(const topology::ComputeOp& op, const topology::AcceleratorSpec& acc) const override;
  std::string describe() const override { return "compute model " + (model_.file.empty() ? model_.name : model_.file); }
  /// The curve that prices an operator of `name` and `label`, nullptr when the model has none.
  const KindModel* kind_of(std::string_view name, std::string_view label) const;

 private:
  const ComputeModel& model_;
};

/// Reads a compute model strictly: unknown keys, a wrong format or version, a negative or
/// non-finite parameter, a collective kind that is not one are InputErrors naming file, line, field.
ComputeModel read_compute_model(const std::string& path);
ComputeModel parse_compute_model(std::string_view text, const std::string& source);
std::string write_compute_model(const ComputeModel& model);

/// How a replay obtains compute durations on its platform (--compute).
enum class ComputeMode : std::uint8_t {
  kAuto,     ///< keep when the trace's hardware is the platform's accelerator (or unnamed), else rescale
  kKeep,     ///< the recorded durations, whatever the platform
  kRescale,  ///< scaled by the ratio of peak rates (FLOP/s or memory bandwidth)
  kModel,    ///< recomputed from a compute model
};

/// What was done to a trace's compute durations, for the report.
struct ComputeAdjustment {
  std::string summary;   ///< one sentence: "compute rescaled x0.031: trace measured on X, platform accelerator Y (...)"
  double factor = 1;     ///< new / recorded total of the adjusted operators' durations
  int flop_bound = 0;    ///< operators scaled by the FLOP ratio (rescale)
  int memory_bound = 0;  ///< operators scaled by the memory-bandwidth ratio (rescale)
  int kept = 0;          ///< operators kept as recorded (host time, e.g. cpu_gap)
  double flop_ratio = 1;
  double memory_ratio = 1;
};

/// The kind an operator is fitted and predicted as: its name, with ":bwd" for a backward
/// operator (label "bwd:..."): "linear", "linear:bwd". A model without the backward kind
/// predicts a backward operator with the forward kind's curve.
std::string compute_kind(const trace::Trace& trace, const trace::Op& op);

/// True when `name` is an elementwise / normalisation operator, bound by memory bandwidth
/// (softmax, relu, gelu, silu, layer_norm, dropout, add, mul, ...), case-insensitive.
bool memory_bound_kind(std::string_view name);

/// Adjusts the measured compute durations of `trace` for a replay on `accelerator` (of
/// platform `platform_name`). Operators given only in FLOPs are left to the platform's rates.
/// kRescale (or kAuto on other hardware) without the peak rates it needs is an InputError
/// naming the trace's hardware and the choices; kModel needs `model` and every compute kind
/// of the trace in it (else an InputError naming the operator, its line and the model's kinds).
ComputeAdjustment adjust_compute(trace::Trace& trace, const topology::AcceleratorSpec& accelerator,
                                 const std::string& platform_name, ComputeMode mode, const ComputeModel* model);

}  // namespace ccsim::calibrate
