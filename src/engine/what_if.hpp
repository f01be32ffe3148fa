#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topology/platform.hpp"

namespace ccsim::engine {

/// One key of `--set KEY=VALUE`: what it changes, the form of its value and its range.
struct WhatIfKey {
  std::string_view key;
  std::string_view value;  ///< the accepted forms, e.g. "xF or a rate such as 25GB/s"
  std::string_view description;
  /// It changes only the network between nodes: a run whose ranks are all on one node does not
  /// feel it (idle_settings).
  bool between_nodes = false;
};

/// Every key `--set` accepts, in the order they are listed to users (the one table).
std::span<const WhatIfKey> what_if_keys();

/// The settings of one or more `--set KEY=VALUE`, parsed and checked: changes of the platform
/// (applied by its reader, with the reader's limits), of compute, of the compressor and of
/// the all_reduce algorithm.
struct WhatIf {
  std::vector<std::string> settings;        ///< as given, in order: the assumptions of a what-if run
  topology::PlatformOverrides platform;
  double compute_scale = 1;                 ///< measured compute durations are divided by it
  std::optional<std::string> compress;      ///< a --compress SPEC, or "none"
  std::optional<std::uint64_t> compress_min_bytes;
  std::optional<std::string> algorithm;     ///< an all_reduce algorithm name or "auto"

  bool empty() const { return settings.empty(); }
};

/// Parses `--set` texts. Errors are InputError("--set", 0, KEY, ...): an unknown key lists the
/// valid ones, a value names the key, the accepted forms and the range; a key set twice is an
/// error (the second would silently win).
WhatIf parse_what_if(const std::vector<std::string>& settings);

/// The settings among `settings` (as given to --set) that had nothing to act on in a run whose
/// `ranks` were on `nodes_used` nodes of platform `platform`, each said with the reason
/// ("inter.bandwidth=x2: no effect: ..."); empty when every setting could act (and when
/// `nodes_used` is 0, unknown).
std::vector<std::string> idle_settings(const std::vector<std::string>& settings, int nodes_used, int ranks,
                                       const std::string& platform);

/// Limits of the settings that are not platform parameters.
inline constexpr double kMinComputeScale = 1e-3;
inline constexpr double kMaxComputeScale = 1e3;
inline constexpr double kMaxFactor = 1e6;  ///< a factor xF: 1e-6 to 1e6 (the result is range-checked too)

}  // namespace ccsim::engine
