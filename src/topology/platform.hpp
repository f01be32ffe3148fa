#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "topology/network.hpp"

namespace ccsim::topology {

inline constexpr std::string_view kPlatformFormat = "ccsim-platform";
inline constexpr int kPlatformVersion = 1;

/// Limits of platform files (platforms/README.md, "Limits"). Every number must lie in a
/// physically meaningful range, so that no result overflows to infinity or is silently
/// rounded, and what a platform builds must fit in memory and route in bounded time: the
/// reader computes the size from the parameters and refuses more before building anything.
struct PlatformLimits {
  static constexpr double kMinBandwidth_Bps = 1e3;    ///< links, NICs, reduction and memory rates: 1 kB/s
  static constexpr double kMaxBandwidth_Bps = 1e15;   ///< ... to 1 PB/s
  static constexpr double kMaxLatency_s = 1.0;        ///< latencies: 0 to 1 s
  static constexpr double kMinFlops = 1e6;            ///< accelerator rate: 1 MFLOP/s ...
  static constexpr double kMaxFlops = 1e18;           ///< ... to 1 EFLOP/s
  static constexpr double kMinMemoryBytes = 1 << 20;  ///< accelerator memory: 1 MiB ...
  static constexpr double kMaxMemoryBytes = 1e15;     ///< ... to 1 PB
  static constexpr double kMaxOversubscription = 1024;
  static constexpr int kMaxFatTreeLevels = 8;
  /// Sizes: a graph of 2^23 links takes about 1 GB, and the bisection's max-flow on it as much
  /// again; the largest preset (sunway-oceanlight) has 215,460 links.
  static constexpr std::uint64_t kMaxVertices = std::uint64_t{1} << 23;  ///< accelerators, hubs, switches
  static constexpr std::uint64_t kMaxLinks = std::uint64_t{1} << 23;
  static constexpr std::uint64_t kMaxRouteEntries = std::uint64_t{1} << 24;  ///< the fabric router's tables
};

/// What a node-hour of a machine costs and the power a node draws (optional "cost" of a
/// platform file), with where the figures come from: used by `ccsim cost` when --price and
/// --power are not given.
struct PlatformCost {
  std::optional<double> price_per_node_hour;
  std::string currency;  ///< of the price, e.g. "USD"; empty without a price
  std::optional<double> power_kw_per_node;
  std::string source;  ///< where each figure comes from, or why it is an estimate
  /// What power_kw_per_node is ("power_kind"): the node's maximum (a datasheet's maximum
  /// system power, or full load on HPL; the default), so that energy from it is an upper
  /// bound; or an average measured over training, so that energy from it is an estimate.
  enum class PowerKind : std::uint8_t { kMaximum, kAverage };
  PowerKind power_kind = PowerKind::kMaximum;
};

/// A named machine: its nodes, accelerators and network, read from platforms/*.json.
struct Platform {
  std::string name;
  std::string description;
  std::string file;      ///< where it was read from
  std::string topology;  ///< the network's topology kind: switch, fat-tree, supernodes, torus, dragonfly
  std::string shape;     ///< a one-line description of the topology's parameters
  /// How the file's network was changed to build this platform (e.g. a fat-tree's top level
  /// widened for `--set nodes`), one sentence each; the replay's notes repeat them.
  std::vector<std::string> notes;
  /// Bisection bandwidth from the topology's closed form, NaN when it has none (see the builders).
  double closed_form_bisection_Bps = 0;
  Network network;
  /// The calibrated network model the platform names ("network_model": a NAME of
  /// models/network/ or a path), empty for none; where it is named, for errors.
  std::string network_model;
  SourceRef network_model_at;
  /// The accelerator profile the platform's accelerator uses ("compute_profile": a NAME of
  /// models/compute/ or a path), empty for none; where it is named, for errors.
  std::string compute_profile;
  SourceRef compute_profile_at;
  std::optional<PlatformCost> cost;  ///< absent when the file gives none
};

/// Limits of a platform's cost figures: a price of 0 to 1e6 per node-hour, 0 to 1000 kW per node.
inline constexpr double kMaxPricePerNodeHour = 1e6;
inline constexpr double kMaxPowerKwPerNode = 1e3;

/// One change to a platform parameter given on the command line (`--set inter.bandwidth=x2`):
/// a factor on the file's value or a new absolute value. `setting` is the text as given
/// ("inter.bandwidth=x2"), for messages.
struct Adjustment {
  double value = 1;
  bool factor = true;
  std::string setting;
  double apply(double base) const { return factor ? base * value : value; }
};

/// Changes applied while a platform file is read, before anything is built (see
/// study/what_if.hpp, which fills them from `--set`). Each result is checked against the same
/// limits as the file's values, and an error names the setting.
struct PlatformOverrides {
  std::optional<Adjustment> intra_bandwidth;  ///< the intra-node link
  std::optional<Adjustment> intra_latency;
  std::optional<Adjustment> inter_bandwidth;  ///< the NIC link and every link of the network
  std::optional<Adjustment> inter_latency;
  std::optional<Adjustment> flops;             ///< the accelerator's FLOP rate
  std::optional<Adjustment> reduce;            ///< reduce_Bps
  std::optional<Adjustment> memory;            ///< memory_Bps (only where the file gives one)
  std::optional<Adjustment> nodes;             ///< an absolute node count
  std::optional<Adjustment> oversubscription;  ///< every fat-tree level above the first, supernodes' upper level
  /// Compute this many times faster: multiplies the FLOP rate after `flops` (compute.scale; the
  /// trace's measured durations are divided by ReplayOptions::compute_scale).
  std::optional<Adjustment> compute_scale;
  bool empty() const {
    return !intra_bandwidth && !intra_latency && !inter_bandwidth && !inter_latency && !flops && !reduce && !memory &&
           !nodes && !oversubscription && !compute_scale;
  }
};

/// Reads a platform file strictly (unknown keys, wrong types, impossible values are
/// InputErrors naming file, line and field), with `overrides` applied to what it reads.
Platform read_platform(const std::string& path, const PlatformOverrides& overrides = {});
Platform parse_platform(std::string_view text, const std::string& source, const PlatformOverrides& overrides = {});

/// Resolves NAME|FILE: an existing file path (or anything ending in .json) is used as is;
/// otherwise NAME.json is looked up in `dirs` in order. An unknown name is an InputError
/// that lists the presets found.
std::string find_platform(const std::string& name_or_path, const std::vector<std::string>& dirs);

/// Names of the presets (NAME for each NAME.json) in `dirs`, sorted, without duplicates.
std::vector<std::string> list_platforms(const std::vector<std::string>& dirs);

}  // namespace ccsim::topology
