#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/result.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::study {

/// One key of `--set KEY=VALUE`: what it changes, the form of its value and its range.
struct WhatIfKey {
  std::string_view key;
  std::string_view value;  ///< the accepted forms, e.g. "xF or a rate such as 25GB/s"
  std::string_view description;
  /// What it acts on, for a run that has none of it (idle_settings).
  enum class Acts : std::uint8_t {
    kAlways,
    kBetweenNodes,  ///< the network between nodes: nothing when every rank ran on one node
    kUpperLevels,   ///< the network's levels above the first: nothing on one node or without such levels
    kCompute,       ///< the compute operators
    kRates,         ///< compute operators timed by the accelerator's rates (no duration of their own)
    kReductions,    ///< the reductions of all_reduces and reduce_scatters
    kAllReduce,     ///< the all_reduces
    kAlgorithm,     ///< the all_reduces' algorithm: nothing where every algorithm is predicted
    kCompressed,    ///< compressed all_reduces
  };
  Acts acts = Acts::kAlways;
};

/// Every key `--set` accepts, in the order they are listed to users (the one table).
std::span<const WhatIfKey> what_if_keys();
/// The keys of what_if_keys(), in its order: what --set accepts and its help lists.
std::vector<std::string> what_if_key_names();

/// The settings of one or more `--set KEY=VALUE`, parsed and checked: changes of the platform
/// (applied by its reader, with the reader's limits), of compute, of the compressor and of
/// the all_reduce algorithm.
struct WhatIf {
  std::vector<std::string> settings;  ///< as given, in order: the assumptions of a what-if run
  topology::PlatformOverrides platform;
  double compute_scale = 1;             ///< measured compute durations are divided by it
  std::optional<std::string> compress;  ///< a --compress SPEC, or "none"
  std::optional<std::uint64_t> compress_min_bytes;
  std::optional<std::string> algorithm;  ///< an all_reduce algorithm name or "auto"

  bool empty() const { return settings.empty(); }
};

/// Parses `--set` texts. Errors are InputError("--set", 0, KEY, ...): an unknown key lists the
/// valid ones, a value names the key, the accepted forms and the range; a key set twice is an
/// error (the second would silently win).
WhatIf parse_what_if(const std::vector<std::string>& settings);

/// What a run had for the settings to act on (WhatIfKey::Acts).
struct RunFacts {
  std::string platform;
  int ranks = 0;
  int nodes_used = 0;  ///< 0: not known (every setting of the network may act)
  /// The platform's network has levels that network.oversubscription changes (fat-tree levels
  /// above the first, supernodes' upper level); false: none, its topology is `topology`.
  bool upper_levels = true;
  std::string topology;
  std::int64_t compute_ops = -1;  ///< compute operators (each program once); -1: not known
  /// Compute operators timed by the accelerator's rates (each program once): without a duration
  /// of their own, or with one --compute derived from them; -1: not known.
  std::int64_t rate_timed = -1;
  /// Operators of the trace's programs (each program once); -1: not known.
  std::int64_t all_reduces = -1, reduce_scatters = -1;
  bool compressed = true;        ///< whether a compressor applied to the all_reduces
  bool every_algorithm = false;  ///< the run predicts every all_reduce algorithm (whatif --collective)
};

/// Whether `platform`'s network has levels that network.oversubscription changes.
bool has_upper_levels(const topology::Platform& platform);

/// The facts of a replay of `trace` (as replayed: after --compute) on `platform` with `result`;
/// `rescaled_ops`: compute operators whose durations --compute derived from the platform's
/// accelerator rates (calibrate::ComputeAdjustment's flop_bound + memory_bound).
RunFacts run_facts(const trace::Trace& trace, const topology::Platform& platform, const engine::Result& result,
                   std::int64_t rescaled_ops);

/// The settings among `settings` (as given to --set) that had nothing to act on in a run of
/// `facts`, each said with the reason ("inter.bandwidth=x2: no effect: ..."); empty when every
/// setting could act (and for what the facts do not know).
std::vector<std::string> idle_settings(const std::vector<std::string>& settings, const RunFacts& facts);

/// Notes on the bandwidth settings among `settings` (intra.bandwidth, inter.bandwidth) that
/// leave the messages they act on bound by a link they do not change, before or after: a lone
/// message's rate is its route's slowest link, so doubling the NIC and the network gains only
/// up to the next slowest link. One note per class of messages whose bound moved or stayed
/// ("within a node": accelerators 0 and 1; "between nodes": node 0 to node 1, and to the last
/// of `nodes_used` when its route differs), naming the binding link's kind, what it joins and
/// its bandwidth, and the rate's change against the change of the links set, e.g.
/// "inter.bandwidth=x2: messages between nodes are now bound by the 32 GB/s intra link
/// (accelerator to node hub: the platform's intra_link), which the setting leaves as it was:
/// their lone rate grows x1.28 (25 to 32 GB/s), not x2 as the links it changes". Messages
/// within a node are considered only when `within_nodes` (ranks share a node), between nodes
/// only when `nodes_used` > 1.
std::vector<std::string> bottleneck_notes(const std::vector<std::string>& settings, const topology::Network& baseline,
                                          const topology::Network& changed, int nodes_used, bool within_nodes);

/// Limits of the settings that are not platform parameters.
inline constexpr double kMinComputeScale = 1e-3;
inline constexpr double kMaxComputeScale = 1e3;
inline constexpr double kMaxFactor = 1e6;  ///< a factor xF: 1e-6 to 1e6 (the result is range-checked too)

}  // namespace ccsim::study
