#include "study/what_if.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collective/registry.hpp"
#include "compress/compress_spec.hpp"
#include "core/input_error.hpp"
#include "core/spelling.hpp"
#include "core/parse.hpp"

namespace ccsim::study {
namespace {

using Limits = topology::PlatformLimits;

constexpr std::array<WhatIfKey, 13> kKeys = {{
    {"nodes", "a count, or xF", "nodes of the platform (1 to 4194304); the network is rebuilt for them"},
    {"intra.bandwidth", "a rate such as 25GB/s (units of byte counts, per second), or xF",
     "bandwidth of the intra-node link (accelerator to node hub), 1e3 to 1e15 B/s"},
    {"intra.latency", "a time such as 2us (s, ms, us, ns), or xF", "latency of the intra-node link, 0 to 1 s"},
    {"inter.bandwidth", "a rate such as 25GB/s, or xF",
     "bandwidth of the NIC link and of every link of the network between nodes, 1e3 to 1e15 B/s",
     WhatIfKey::Acts::kBetweenNodes},
    {"inter.latency", "a time such as 1us, or xF", "latency of the NIC link and of every network link, 0 to 1 s",
     WhatIfKey::Acts::kBetweenNodes},
    {"network.oversubscription", "a ratio such as 2 or 16:3, or xF",
     "oversubscription of every fat-tree level above the first (and of supernodes' upper level), 1 to 1024",
     WhatIfKey::Acts::kUpperLevels},
    {"accelerator.flops", "a rate in FLOP/s such as 3e13, or xF", "the accelerator's FLOP rate, 1e6 to 1e18 FLOP/s",
     WhatIfKey::Acts::kRates},
    {"accelerator.reduce", "a rate such as 300GB/s, or xF",
     "the rate of an elementwise reduction (reduce_Bps), 1e3 to 1e15 B/s", WhatIfKey::Acts::kReductions},
    {"accelerator.memory", "a rate such as 1TB/s, or xF", "the accelerator's memory bandwidth, 1e3 to 1e15 B/s",
     WhatIfKey::Acts::kRates},
    {"compute.scale", "F or xF (0.001 to 1000)",
     "compute F times faster: measured compute durations divided by F, the FLOP rate multiplied by F",
     WhatIfKey::Acts::kCompute},
    {"compress", "a compressor NAME[:key=value,...] as for --compress, or none",
     "compress the all_reduces with this compressor (none: plain)", WhatIfKey::Acts::kAllReduce},
    {"compress.min_bytes", "a byte count such as 1MiB", "all_reduces smaller than this stay plain",
     WhatIfKey::Acts::kCompressed},
    {"algo", "an all_reduce algorithm or auto", "the all_reduce algorithm, as --algo", WhatIfKey::Acts::kAlgorithm},
}};

[[noreturn]] void bad(std::string_view key, const std::string& detail) {
  throw InputError("--set", 0, std::string(key), detail);
}

std::string key_list() {
  std::string out;
  for (const WhatIfKey& k : kKeys) out += fmt::format("{}{}", out.empty() ? "" : ", ", k.key);
  return out;
}

const WhatIfKey& find_key(std::string_view key) {
  for (const WhatIfKey& k : kKeys) {
    if (k.key == key) return k;
  }
  std::vector<std::string> keys;
  for (const WhatIfKey& k : kKeys) keys.emplace_back(k.key);
  const std::string guess = did_you_mean(key, keys, "; ", "");
  bad(key, fmt::format("unknown key \"{}\"{}{} valid keys: {}", key, guess, guess.empty() ? ";" : "", key_list()));
}

/// "x2" -> a factor; anything else -> nullopt.
std::optional<double> factor_of(std::string_view key, std::string_view text) {
  if (text.empty() || text.front() != 'x') return std::nullopt;
  std::optional<double> f = parse_double(text.substr(1));
  if (!f || !(*f >= 1.0 / kMaxFactor && *f <= kMaxFactor)) {
    bad(key, fmt::format("expected a factor x{:g} to x{:g} such as x2 or x0.5, got \"{}\"", 1.0 / kMaxFactor,
                         kMaxFactor, text));
  }
  return f;
}

/// "25GB/s", "1.4e10" (B/s) -> bytes per second.
std::optional<double> parse_rate(std::string_view text) {
  std::string_view amount = text;
  if (amount.ends_with("/s")) amount.remove_suffix(2);
  if (std::optional<double> plain = parse_double(amount)) return plain;
  if (amount.empty() || amount == text) return std::nullopt;  // a unit needs its "/s"
  if (std::optional<std::uint64_t> bytes = parse_bytes(amount)) return static_cast<double>(*bytes);
  return std::nullopt;
}

/// "2us", "1.5ms", "1e-6" (s) -> seconds.
std::optional<double> parse_duration(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double seconds;
  };
  static constexpr std::array<Unit, 5> kUnits = {{{"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"s", 1.0}, {"", 1.0}}};
  for (const Unit& unit : kUnits) {
    if (!text.ends_with(unit.suffix)) continue;
    std::optional<double> value = parse_double(text.substr(0, text.size() - unit.suffix.size()));
    if (!value) return std::nullopt;
    return *value * unit.seconds;
  }
  return std::nullopt;
}

/// An adjustment: xF, or an absolute value read by `parse` and checked in [min, max].
template <class Parse>
topology::Adjustment adjustment(std::string_view key, std::string_view text, const std::string& setting, Parse parse,
                                double min, double max, std::string_view unit, std::string_view forms) {
  topology::Adjustment a;
  a.setting = setting;
  if (std::optional<double> f = factor_of(key, text)) {
    a.value = *f;
    return a;
  }
  std::optional<double> value = parse(text);
  if (!value) bad(key, fmt::format("expected {}, got \"{}\"", forms, text));
  if (!(*value >= min && *value <= max)) {
    bad(key, fmt::format("expected {:g} to {:g} {}, got \"{}\"", min, max, unit, text));
  }
  a.factor = false;
  a.value = *value;
  return a;
}

std::optional<double> parse_ratio(std::string_view text) {
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return parse_double(text);
  auto down = parse_double(text.substr(0, colon));
  auto up = parse_double(text.substr(colon + 1));
  if (!down || !up || !(*up > 0)) return std::nullopt;
  return *down / *up;
}

void apply(WhatIf& w, std::string_view key, std::string_view text, const std::string& setting) {
  topology::PlatformOverrides& p = w.platform;
  auto rate = [&](std::optional<topology::Adjustment>& slot) {
    slot = adjustment(key, text, setting, parse_rate, Limits::kMinBandwidth_Bps, Limits::kMaxBandwidth_Bps, "B/s",
                      find_key(key).value);
  };
  auto time = [&](std::optional<topology::Adjustment>& slot) {
    slot = adjustment(key, text, setting, parse_duration, 0, Limits::kMaxLatency_s, "s", find_key(key).value);
  };
  if (key == "nodes") {
    auto count = [](std::string_view t) -> std::optional<double> {
      std::optional<std::int64_t> n = parse_int(t);
      return n ? std::optional<double>(static_cast<double>(*n)) : std::nullopt;
    };
    // A factor must give a whole count: the reader checks the result.
    p.nodes = adjustment(key, text, setting, count, 1, 1 << 22, "nodes", "a whole count such as 4096, or xF");
  } else if (key == "intra.bandwidth") {
    rate(p.intra_bandwidth);
  } else if (key == "intra.latency") {
    time(p.intra_latency);
  } else if (key == "inter.bandwidth") {
    rate(p.inter_bandwidth);
  } else if (key == "inter.latency") {
    time(p.inter_latency);
  } else if (key == "network.oversubscription") {
    p.oversubscription =
        adjustment(key, text, setting, parse_ratio, 1, Limits::kMaxOversubscription, "(down:up)", find_key(key).value);
  } else if (key == "accelerator.flops") {
    p.flops = adjustment(key, text, setting, parse_double, Limits::kMinFlops, Limits::kMaxFlops, "FLOP/s",
                         find_key(key).value);
  } else if (key == "accelerator.reduce") {
    rate(p.reduce);
  } else if (key == "accelerator.memory") {
    rate(p.memory);
  } else if (key == "compute.scale") {
    std::string_view number = text.starts_with('x') ? text.substr(1) : text;
    std::optional<double> f = parse_double(number);
    if (!f || !(*f >= kMinComputeScale && *f <= kMaxComputeScale)) {
      bad(key, fmt::format("expected a factor from {:g} to {:g} such as 1.5 (compute 1.5x faster), got \"{}\"",
                           kMinComputeScale, kMaxComputeScale, text));
    }
    w.compute_scale = *f;
    p.compute_scale = topology::Adjustment{*f, true, setting};
  } else if (key == "compress") {
    if (text != "none") {
      try {
        compress::parse_compress_spec(text);
      } catch (const InputError& e) {
        bad(key, e.field().empty() ? e.detail() : fmt::format("{}: {}", e.field(), e.detail()));
      }
    }
    w.compress = std::string(text);
  } else if (key == "compress.min_bytes") {
    w.compress_min_bytes = parse_bytes_or_throw(text, "--set", std::string(key));
  } else if (key == "algo") {
    std::vector<std::string_view> names = collective::algorithms(collective::Collective::kAllReduce);
    bool known = false;
    for (std::string_view name : names) known = known || name == text;
    if (!known) {
      std::string list;
      for (std::string_view name : names) list += fmt::format("{}{}", list.empty() ? "" : ", ", name);
      bad(key, fmt::format("unknown all_reduce algorithm \"{}\"; choices: {}", text, list));
    }
    w.algorithm = std::string(text);
  }
}

/// Whether the bandwidth setting `key` changes the links of tier `tier` (topology's tier names:
/// "intra", "nic", fat-tree "levelK", dragonfly "local" and "global", "torus").
bool changes_tier(std::string_view key, std::string_view tier) {
  if (key == "intra.bandwidth") return tier == "intra";
  if (key == "inter.bandwidth") return tier != "intra";  // the NIC and every network link
  return false;
}

/// What a tier's links join, in words, and where the platform file gives them.
std::string tier_words(std::string_view tier) {
  if (tier == "intra") return "accelerator to node hub: the platform's intra_link";
  if (tier == "nic") return "node hub to the network: the platform's nic_link";
  if (tier.starts_with("level")) return fmt::format("fat-tree level {}", tier.substr(5));
  if (tier == "local" || tier == "global") return fmt::format("the dragonfly's {} links", tier);
  return fmt::format("the network's {} links", tier);
}

/// The slowest link of a route, and whether `keys` change it. Among equally slow links, one
/// the settings leave as it was: it is what binds once the others are faster.
struct RouteBound {
  double bandwidth_Bps = 0;
  std::string tier;
  bool changed = false;
  bool touched = false;  ///< some link of the route is one the settings change
};

RouteBound route_bound(const topology::Network& net, int src, int dst, const std::vector<std::string>& keys) {
  auto changed = [&](std::string_view tier) {
    return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return changes_tier(k, tier); });
  };
  RouteBound b;
  b.bandwidth_Bps = std::numeric_limits<double>::infinity();
  for (const topology::Hop& hop : net.route(src, dst)) {
    const topology::Link& link = net.link(hop.link);
    const std::string& tier = net.tiers().at(link.tier).name;
    const bool c = changed(tier);
    b.touched = b.touched || c;
    const bool slower = link.bandwidth_Bps < b.bandwidth_Bps * (1 - 1e-12);
    const bool as_slow = !slower && link.bandwidth_Bps <= b.bandwidth_Bps * (1 + 1e-12);
    if (slower || (as_slow && b.changed && !c)) {
      b.bandwidth_Bps = link.bandwidth_Bps;
      b.tier = tier;
      b.changed = c;
    }
  }
  return b;
}

/// The slowest of the links of a route that `keys` change (+inf when none).
double slowest_changed_Bps(const topology::Network& net, int src, int dst, const std::vector<std::string>& keys) {
  double slowest = std::numeric_limits<double>::infinity();
  for (const topology::Hop& hop : net.route(src, dst)) {
    const topology::Link& link = net.link(hop.link);
    const std::string& tier = net.tiers().at(link.tier).name;
    if (std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return changes_tier(k, tier); })) {
      slowest = std::min(slowest, link.bandwidth_Bps);
    }
  }
  return slowest;
}

/// The note on one class of messages (from accelerator `src` to `dst`), or "" when the settings'
/// links bind before and after (the rate changes as they do) or touch none of the route.
std::string bound_note(const std::string& what, const std::string& messages, const topology::Network& baseline,
                       const topology::Network& changed, int src, int dst, const std::vector<std::string>& keys) {
  const RouteBound before = route_bound(baseline, src, dst, keys);
  const RouteBound after = route_bound(changed, src, dst, keys);
  if (!before.touched || (before.changed && after.changed)) return "";
  const double rate = after.bandwidth_Bps / before.bandwidth_Bps;
  const double links = slowest_changed_Bps(changed, src, dst, keys) / slowest_changed_Bps(baseline, src, dst, keys);
  if (before.changed && std::abs(rate / links - 1) < 1e-9) return "";  // the rate changed as the links: just bound
  auto link = [](const RouteBound& b) {
    return fmt::format("the {} {} link ({})", format_rate(b.bandwidth_Bps), b.tier, tier_words(b.tier));
  };
  const std::string change = fmt::format("their lone rate {} x{:.3g} ({} to {}), not x{:.3g} as the links it changes",
                                         rate >= 1 ? "grows" : "falls", rate, format_rate(before.bandwidth_Bps),
                                         format_rate(after.bandwidth_Bps), links);
  if (before.changed) {  // now bound by a link the settings leave as it was
    return fmt::format("{}: messages {} are now bound by {}, which the setting leaves as it was: {}", what, messages,
                       link(after), change);
  }
  if (!after.changed && before.tier == after.tier && before.bandwidth_Bps == after.bandwidth_Bps) {
    return fmt::format("{}: messages {} stay bound by {}, which the setting leaves as it was: their lone rate stays {}",
                       what, messages, link(before), format_rate(before.bandwidth_Bps));
  }
  return fmt::format(
      "{}: messages {} were bound by {}, which the setting leaves as it was, and are now bound by {}: {}", what,
      messages, link(before), link(after), change);
}

}  // namespace

std::span<const WhatIfKey> what_if_keys() { return kKeys; }

std::vector<std::string> what_if_key_names() {
  std::vector<std::string> names;
  for (const WhatIfKey& key : kKeys) names.emplace_back(key.key);
  return names;
}

std::vector<std::string> bottleneck_notes(const std::vector<std::string>& settings, const topology::Network& baseline,
                                          const topology::Network& changed, int nodes_used, bool within_nodes) {
  std::vector<std::string> keys, given;
  for (const std::string& setting : settings) {
    const std::string key = setting.substr(0, setting.find('='));
    if (key == "intra.bandwidth" || key == "inter.bandwidth") {
      keys.push_back(key);
      given.push_back(setting);
    }
  }
  std::vector<std::string> notes;
  if (keys.empty()) return notes;
  const std::string what = fmt::format("{}", fmt::join(given, ", "));
  const int per_node = std::min(baseline.accelerators_per_node(), changed.accelerators_per_node());
  if (within_nodes && per_node > 1) {
    std::string note = bound_note(what, "within a node", baseline, changed, 0, 1, keys);
    if (!note.empty()) notes.push_back(std::move(note));
  }
  const int nodes = std::min({nodes_used, baseline.node_count(), changed.node_count()});
  if (nodes > 1) {
    // Node 0 to node 1 (the nearest), and to the last node used when that note differs.
    const int last = (nodes - 1) * per_node;
    const std::string near = bound_note(what, "between nodes", baseline, changed, 0, per_node, keys);
    const std::string far = nodes > 2 ? bound_note(what, "between nodes", baseline, changed, 0, last, keys) : near;
    if (near == far) {
      if (!near.empty()) notes.push_back(near);
    } else {
      for (int to : {1, nodes - 1}) {
        std::string note =
            bound_note(what, fmt::format("between nodes 0 and {}", to), baseline, changed, 0, to * per_node, keys);
        if (!note.empty()) notes.push_back(std::move(note));
      }
    }
  }
  return notes;
}

bool has_upper_levels(const topology::Platform& platform) {
  for (const topology::Tier& tier : platform.network.tiers()) {
    if (tier.oversubscription > 0) return true;
  }
  return false;
}

RunFacts run_facts(const trace::Trace& trace, const topology::Platform& platform, const engine::Result& result,
                   std::int64_t rescaled_ops) {
  RunFacts f;
  f.platform = result.platform_name;
  f.ranks = result.world_size;
  f.nodes_used = result.nodes_used;
  f.upper_levels = has_upper_levels(platform);
  f.topology = platform.topology;
  f.rate_timed = f.all_reduces = f.reduce_scatters = f.compute_ops = 0;
  // Each program once (ranks may share one): what matters is none or some, and a job of a
  // million ranks shares a few programs.
  for (const trace::Program& program : trace.programs) {
    for (const trace::Op& op : program.ops) {
      if (op.kind == trace::OpKind::kCompute) ++f.compute_ops;
      if (op.kind == trace::OpKind::kCompute && op.duration_s < 0) ++f.rate_timed;
      if (op.kind == trace::OpKind::kAllReduce) ++f.all_reduces;
      if (op.kind == trace::OpKind::kReduceScatter) ++f.reduce_scatters;
    }
  }
  f.rate_timed += rescaled_ops;
  f.compressed = !result.compression.empty() && result.compression != "none";
  return f;
}

std::vector<std::string> idle_settings(const std::vector<std::string>& settings, const RunFacts& facts) {
  std::vector<std::string> out;
  for (const std::string& setting : settings) {
    const std::string key = setting.substr(0, setting.find('='));
    std::string why;
    const std::string one_node =
        fmt::format("all {} rank{} {} on one node of {}, so no message crossed that network", facts.ranks,
                    facts.ranks == 1 ? "" : "s", facts.ranks == 1 ? "was" : "were", facts.platform);
    const char* no_compute = "the run has no compute operator";
    switch (find_key(key).acts) {
      case WhatIfKey::Acts::kAlways:
        break;
      case WhatIfKey::Acts::kBetweenNodes:
        if (facts.nodes_used == 1) why = "it changes the network between nodes, and " + one_node;
        break;
      case WhatIfKey::Acts::kUpperLevels:
        if (facts.nodes_used == 1) {
          why = "it changes the network between nodes, and " + one_node;
        } else if (!facts.upper_levels) {
          why = fmt::format("it changes the network's levels above the first, and the network of {} ({}) has none",
                            facts.platform, facts.topology);
        }
        break;
      case WhatIfKey::Acts::kCompute:
        if (facts.compute_ops == 0) why = no_compute;
        break;
      case WhatIfKey::Acts::kRates:
        if (facts.compute_ops == 0) {
          why = no_compute;
        } else if (facts.rate_timed == 0) {
          why =
              "it changes the rates that time compute operators without a measured duration (or rescale one, "
              "--compute rescale), and every compute operator kept its measured duration (compute.scale=F makes "
              "them F times faster)";
        }
        break;
      case WhatIfKey::Acts::kReductions:
        if (facts.all_reduces == 0 && facts.reduce_scatters == 0) why = "the trace has no all_reduce or reduce_scatter";
        break;
      case WhatIfKey::Acts::kAllReduce:
        if (facts.all_reduces == 0) why = "the trace has no all_reduce";
        break;
      case WhatIfKey::Acts::kAlgorithm:
        if (facts.all_reduces == 0) {
          why = "the trace has no all_reduce";
        } else if (facts.every_algorithm) {
          why = "every algorithm is predicted, and auto's choice is said";
        }
        break;
      case WhatIfKey::Acts::kCompressed:
        if (!facts.compressed) why = "no all_reduce was compressed (--compress NAME, or --set compress=NAME)";
        break;
    }
    if (!why.empty()) out.push_back(fmt::format("{}: no effect: {}", setting, why));
  }
  return out;
}

WhatIf parse_what_if(const std::vector<std::string>& settings) {
  WhatIf w;
  std::vector<std::string> seen;
  for (const std::string& setting : settings) {
    const std::size_t eq = setting.find('=');
    if (eq == std::string::npos) {
      throw InputError("--set", 0, "",
                       fmt::format("expected KEY=VALUE, got \"{}\"; valid keys: {}", setting, key_list()));
    }
    const std::string key = setting.substr(0, eq);
    const std::string value = setting.substr(eq + 1);
    find_key(key);
    for (const std::string& k : seen) {
      if (k == key) bad(key, fmt::format("set twice (\"{}\"); give each key once", setting));
    }
    if (value.empty()) bad(key, fmt::format("expected {}, got \"\"", find_key(key).value));
    apply(w, key, value, setting);
    seen.push_back(key);
    w.settings.push_back(setting);
  }
  return w;
}

}  // namespace ccsim::study
