#include "topology/platform.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"
#include "core/parse.hpp"
#include "topology/dragonfly.hpp"
#include "topology/fat_tree.hpp"
#include "topology/torus.hpp"

namespace ccsim::topology {
namespace {

using json::ObjectReader;

using Limits = PlatformLimits;

/// Member `key`, a number in [min, max] (a positive one when min > 0): the physically
/// meaningful range of a platform parameter (platforms/README.md, "Limits").
double ranged(ObjectReader& r, std::string_view key, double min, double max, std::string_view unit) {
  const double value = min > 0 ? r.required(key).positive() : r.required(key).non_negative();
  if (value < min || value > max) {
    r.at(key).fail(fmt::format("expected {:g} to {:g} {}, {}", min, max, unit, json::got(*r.required(key))));
  }
  return value;
}

double read_bandwidth(ObjectReader& r, std::string_view key) {
  return ranged(r, key, Limits::kMinBandwidth_Bps, Limits::kMaxBandwidth_Bps, "B/s");
}

double read_latency(ObjectReader& r, std::string_view key) { return ranged(r, key, 0, Limits::kMaxLatency_s, "s"); }

/// The key of a `--set KEY=VALUE` setting.
std::string setting_key(const Adjustment& a) { return a.setting.substr(0, a.setting.find('=')); }

/// `base` changed by `a` (none: unchanged), checked against the same range as the file's values.
double adjusted(const std::optional<Adjustment>& a, double base, double min, double max, std::string_view unit) {
  if (!a) return base;
  const double value = a->apply(base);
  if (!(value >= min && value <= max)) {
    std::string how =
        a->factor ? fmt::format(" ({:g} {} of the platform x {:g})", base, unit, a->value) : std::string();
    throw InputError("--set", 0, setting_key(*a),
                     fmt::format("expected {:g} to {:g} {} (the limits of platform files, platforms/README.md), got "
                                 "{:g} {}{}",
                                 min, max, unit, value, unit, how));
  }
  return value;
}

void adjust_link(LinkSpec& link, const std::optional<Adjustment>& bandwidth, const std::optional<Adjustment>& latency) {
  link.bandwidth_Bps =
      adjusted(bandwidth, link.bandwidth_Bps, Limits::kMinBandwidth_Bps, Limits::kMaxBandwidth_Bps, "B/s");
  link.latency_s = adjusted(latency, link.latency_s, 0, Limits::kMaxLatency_s, "s");
}

void adjust_inter(LinkSpec& link, const PlatformOverrides& o) { adjust_link(link, o.inter_bandwidth, o.inter_latency); }

double adjust_oversubscription(double ratio, const PlatformOverrides& o) {
  return adjusted(o.oversubscription, ratio, 1, Limits::kMaxOversubscription, "(down:up)");
}

LinkSpec read_link(ObjectReader& r) {
  LinkSpec link;
  link.bandwidth_Bps = read_bandwidth(r, "bandwidth_Bps");
  link.latency_s = read_latency(r, "latency_s");
  if (r.has("sharing")) {
    link.sharing =
        r.required("sharing").choice({"split-duplex", "shared"}) == "shared" ? Sharing::kShared : Sharing::kSplitDuplex;
  }
  link.source = r.required("source").string();
  r.allow({"note"});
  r.finish();
  return link;
}

LinkSpec read_link(ObjectReader& parent, std::string_view key) {
  ObjectReader r = parent.child(key);
  return read_link(r);
}

AcceleratorSpec read_accelerator(ObjectReader& r) {
  AcceleratorSpec spec;
  spec.model = r.required("model").string();
  spec.flops = ranged(r, "flops", Limits::kMinFlops, Limits::kMaxFlops, "FLOP/s");
  spec.reduce_Bps = read_bandwidth(r, "reduce_Bps");
  spec.memory_Bps = r.has("memory_Bps") ? read_bandwidth(r, "memory_Bps") : 0.0;
  spec.memory_bytes = r.has("memory_bytes")
                          ? ranged(r, "memory_bytes", Limits::kMinMemoryBytes, Limits::kMaxMemoryBytes, "bytes")
                          : 0.0;
  spec.source = r.required("source").string();
  r.allow({"note"});
  r.finish();
  return spec;
}

int bounded_count(ObjectReader& r, std::string_view key, std::int64_t max) {
  std::int64_t value = r.required(key).positive_integer();
  if (value > max) r.at(key).fail(fmt::format("expected at most {}, got \"{}\"", max, value));
  return static_cast<int>(value);
}

/// A ratio "16:3" or a number, from 1 to kMaxOversubscription.
double read_oversubscription(ObjectReader& r, std::string_view key) {
  const json::OptionalField value = r.optional(key);
  if (!value) return 1.0;
  std::optional<double> ratio;
  if (value->is_number()) {
    ratio = parse_double(value->text());
  } else if (value->is_string()) {
    const std::string& text = value->text();
    std::size_t colon = text.find(':');
    if (colon != std::string::npos) {
      auto down = parse_double(std::string_view(text).substr(0, colon));
      auto up = parse_double(std::string_view(text).substr(colon + 1));
      if (down && up && *up > 0) ratio = *down / *up;
    }
  }
  if (!ratio || !(*ratio >= 1.0 && *ratio <= Limits::kMaxOversubscription)) {
    r.at(key).fail(fmt::format("expected a ratio from 1 to {:g} such as 2, 1.5 or \"16:3\" (down:up capacity), {}",
                               Limits::kMaxOversubscription, json::got(*value)));
  }
  return *ratio;
}

/// The trunk of a fat-tree level above the first: oversubscription, cable bandwidth, latency, source.
void read_trunk(ObjectReader& r, FatTreeLevel& level, const PlatformOverrides& o) {
  level.oversubscription = adjust_oversubscription(read_oversubscription(r, "oversubscription"), o);
  level.link.bandwidth_Bps = read_bandwidth(r, "bandwidth_Bps");
  level.link.latency_s = read_latency(r, "latency_s");
  level.link.source = r.required("source").string();
  r.allow({"note"});
  adjust_inter(level.link, o);
}

NodeSpec read_nodes(ObjectReader& doc, const PlatformOverrides& o) {
  NodeSpec spec;
  spec.nodes = bounded_count(doc, "nodes", 1 << 22);
  if (o.nodes) {
    const double nodes = adjusted(o.nodes, spec.nodes, 1, 1 << 22, "nodes");
    if (nodes != std::floor(nodes)) {
      throw InputError("--set", 0, setting_key(*o.nodes),
                       fmt::format("expected a whole number of nodes, got {:g} ({} nodes of the platform x {:g})",
                                   nodes, spec.nodes, o.nodes->value));
    }
    spec.nodes = static_cast<int>(nodes);
  }
  ObjectReader node = doc.child("node");
  const bool cpu_ranks = node.has("cores_per_node");
  if (cpu_ranks && node.has("accelerators")) {
    node.at("accelerators")
        .fail("expected either 'accelerators' (a rank per accelerator) or 'cores_per_node' (CPU ranks), not both");
  }
  spec.accelerators = bounded_count(node, cpu_ranks ? "cores_per_node" : "accelerators", 1024);
  ObjectReader acc = node.child("accelerator");
  spec.accelerator = read_accelerator(acc);
  spec.accelerator.cpu_core = cpu_ranks;
  spec.intra = read_link(node, "intra_link");
  spec.nics = bounded_count(node, "nics", 64);
  spec.nic = read_link(node, "nic_link");
  node.finish();
  adjust_link(spec.intra, o.intra_bandwidth, o.intra_latency);
  adjust_inter(spec.nic, o);
  AcceleratorSpec& a = spec.accelerator;
  a.flops = adjusted(o.flops, a.flops, Limits::kMinFlops, Limits::kMaxFlops, "FLOP/s");
  a.flops = adjusted(o.compute_scale, a.flops, Limits::kMinFlops, Limits::kMaxFlops, "FLOP/s");
  a.reduce_Bps = adjusted(o.reduce, a.reduce_Bps, Limits::kMinBandwidth_Bps, Limits::kMaxBandwidth_Bps, "B/s");
  if (o.memory && o.memory->factor && a.memory_Bps == 0) {
    throw InputError("--set", 0, setting_key(*o.memory),
                     "the platform gives no memory_Bps to scale; give an absolute rate such as 1TB/s");
  }
  a.memory_Bps = adjusted(o.memory, a.memory_Bps, Limits::kMinBandwidth_Bps, Limits::kMaxBandwidth_Bps, "B/s");
  if (static_cast<std::int64_t>(spec.nodes) * spec.accelerators > (1 << 24)) {
    doc.at("nodes").fail(
        fmt::format("expected at most 16777216 accelerators in all, got {} nodes x {}", spec.nodes, spec.accelerators));
  }
  return spec;
}

/// Refuses a network beyond the limits before it is built; `where` is the field that sizes it.
void check_size(const NetworkSize& size, const SourceRef& where) {
  auto check = [&](std::uint64_t count, std::uint64_t limit, std::string_view what) {
    if (count > limit) {
      where.fail(
          fmt::format("the network would have {} {}, more than the limit of {} (platforms/README.md, "
                      "\"Limits\")",
                      count, what, limit));
    }
  };
  check(size.links, Limits::kMaxLinks, "links");
  check(size.vertices, Limits::kMaxVertices, "vertices (accelerators, node hubs, switches)");
  check(size.route_entries, Limits::kMaxRouteEntries, "routing table entries");
}

/// Checks that a fat-tree ends in one root and builds it. With `grown` (the node count was
/// set on the command line, `--set nodes`), a top level of several switches above two or more
/// levels is widened instead: its one switch takes every switch below it, and the platform's
/// notes say so.
void finish_fat_tree(Platform& platform, const NodeSpec& nodes, FatTreeSpec tree, const SourceRef& where,
                     bool grown = false) {
  std::vector<int> counts = fat_tree_switch_counts(nodes, tree);
  if (grown && counts.back() != 1 && counts.size() >= 2) {
    const int was = tree.levels.back().down;
    tree.levels.back().down = counts[counts.size() - 2];
    counts = fat_tree_switch_counts(nodes, tree);
    platform.notes.push_back(fmt::format(
        "--set nodes={}: the fat-tree's top level, {} switches of {} ports down in the file, is one switch of {} "
        "ports down (one per switch below it), with the file's link figures and oversubscription",
        nodes.nodes, (counts[counts.size() - 2] + was - 1) / was, was, tree.levels.back().down));
  }
  if (counts.back() != 1) {
    // What the top level's one switch must take: the switches one level down, or, for a
    // single level, every NIC (every node, with rails; rails of several NICs need a level
    // that joins them).
    const std::size_t n = counts.size();
    const std::int64_t below = n >= 2       ? counts[n - 2]
                               : tree.rails ? (nodes.nics == 1 ? std::int64_t{nodes.nodes} : std::int64_t{0})
                                            : static_cast<std::int64_t>(nodes.nodes) * nodes.nics;
    where.fail(fmt::format("the top level has {} switches for {} nodes x {} NICs; a fat-tree ends in one root: {}",
                           counts.back(), nodes.nodes, nodes.nics,
                           below > 0 ? fmt::format("raise the top level's 'down' to at least {} (the {} {} below it) "
                                                   "or add a level",
                                                   below, below, n >= 2 ? "switches" : "NICs")
                                     : std::string("add a level above the rails (a single level of rails ends in one "
                                                   "switch per NIC)")));
  }
  std::string levels;
  for (std::size_t k = 0; k < tree.levels.size(); ++k) {
    levels += fmt::format("{}level {}: {} switch{} of {} down", k ? ", " : "", k + 1, counts[k],
                          counts[k] == 1 ? "" : "es", tree.levels[k].down);
    if (k > 0) levels += fmt::format(" ({:g}:1)", tree.levels[k].oversubscription);
  }
  platform.shape = fmt::format("{}{}", levels, tree.rails ? ", rail-optimised" : "");
  check_size(fat_tree_size(nodes, tree), where);
  platform.closed_form_bisection_Bps = fat_tree_bisection_closed_form(nodes, tree);
  platform.network = build_fat_tree(nodes, tree);
}

void read_fat_tree(Platform& platform, const NodeSpec& nodes, ObjectReader& net, const PlatformOverrides& o) {
  FatTreeSpec tree;
  tree.rails = net.optional("rails").boolean().value_or(false);
  const json::Value& levels = net.required("levels").array();
  if (levels.items().empty()) net.at("levels").fail("expected at least one level, got []");
  if (levels.items().size() > static_cast<std::size_t>(Limits::kMaxFatTreeLevels)) {
    net.at("levels").fail(
        fmt::format("expected at most {} levels, got {}", Limits::kMaxFatTreeLevels, levels.items().size()));
  }
  for (std::size_t k = 0; k < levels.items().size(); ++k) {
    ObjectReader level(levels.items()[k], net.file(), json::item_path(net.member_path("levels"), k));
    FatTreeLevel spec;
    spec.down = bounded_count(level, "down", 1 << 22);
    if (k == 0) {
      level.required("source").string();
      level.allow({"note"});
    } else {
      read_trunk(level, spec, o);
    }
    level.finish();
    tree.levels.push_back(spec);
  }
  finish_fat_tree(platform, nodes, tree, net.at("levels"), o.nodes.has_value());
}

void read_supernodes(Platform& platform, const NodeSpec& nodes, ObjectReader& net, const PlatformOverrides& o) {
  FatTreeSpec tree;
  FatTreeLevel super;
  super.down = bounded_count(net, "nodes_per_supernode", 1 << 20) * nodes.nics;
  ObjectReader upper = net.child("upper");
  FatTreeLevel top;
  read_trunk(upper, top, o);
  upper.finish();
  top.down = std::max(1, (nodes.nodes * nodes.nics + super.down - 1) / super.down);
  tree.levels = {super, top};
  finish_fat_tree(platform, nodes, tree, net.at("nodes_per_supernode"));
}

void read_torus(Platform& platform, const NodeSpec& nodes, ObjectReader& net, const PlatformOverrides& o) {
  TorusSpec torus;
  const json::Value& dims = net.required("dims").array();
  if (dims.items().size() != 2 && dims.items().size() != 3) {
    net.at("dims").fail(fmt::format("expected 2 or 3 dimensions, got {}", dims.items().size()));
  }
  std::int64_t product = 1;
  for (std::size_t d = 0; d < dims.items().size(); ++d) {
    SourceRef where{net.file(), dims.items()[d].line(), json::item_path(net.member_path("dims"), d)};
    std::int64_t k = json::as_integer(dims.items()[d], where);
    if (k < 1 || k > 4096) where.fail(fmt::format("expected 1..4096 routers, got \"{}\"", k));
    torus.dims.push_back(static_cast<int>(k));
    product *= k;
  }
  if (product != nodes.nodes) {
    net.at("dims").fail(fmt::format("a torus of {} routers needs nodes = {}, got {}", fmt::join(torus.dims, " x "),
                                    product, nodes.nodes));
  }
  torus.link = read_link(net, "link");
  adjust_inter(torus.link, o);
  check_size(torus_size(nodes, torus), net.at("dims"));
  platform.shape =
      fmt::format("{}-D torus {}, dimension-order routing", torus.dims.size(), fmt::join(torus.dims, " x "));
  platform.closed_form_bisection_Bps = torus_bisection_closed_form(nodes, torus);
  platform.network = build_torus(nodes, torus);
}

void read_dragonfly(Platform& platform, const NodeSpec& nodes, ObjectReader& net, const PlatformOverrides& o) {
  DragonflySpec df;
  df.groups = bounded_count(net, "groups", 1 << 16);
  df.routers = bounded_count(net, "routers_per_group", 1 << 10);
  df.nodes_per_router = bounded_count(net, "nodes_per_router", 1 << 10);
  df.global_ports = bounded_count(net, "global_ports", 1 << 10);
  df.local = read_link(net, "local_link");
  df.global = read_link(net, "global_link");
  adjust_inter(df.local, o);
  adjust_inter(df.global, o);
  const std::int64_t slots = static_cast<std::int64_t>(df.groups) * df.routers * df.nodes_per_router;
  if (slots != nodes.nodes) {
    net.at("groups").fail(fmt::format("{} groups x {} routers x {} nodes = {} nodes, but the platform has {}",
                                      df.groups, df.routers, df.nodes_per_router, slots, nodes.nodes));
  }
  if (df.routers * df.global_ports < df.groups - 1) {
    net.at("global_ports")
        .fail(fmt::format("{} routers x {} global ports cannot reach the other {} groups", df.routers, df.global_ports,
                          df.groups - 1));
  }
  check_size(dragonfly_size(nodes, df), net.at("routers_per_group"));
  platform.shape =
      fmt::format("dragonfly: {} groups x {} routers x {} nodes, {} global ports per router, minimal routing",
                  df.groups, df.routers, df.nodes_per_router, df.global_ports);
  platform.closed_form_bisection_Bps = dragonfly_bisection_closed_form(nodes, df);
  platform.network = build_dragonfly(nodes, df);
}

/// "cost": {"price_per_node_hour", "currency", "power_kw_per_node", "power_kind", "source"}: at
/// least one figure, a currency with a price, a kind only with a power, a source always.
PlatformCost read_cost(ObjectReader& doc) {
  ObjectReader r = doc.child("cost");
  PlatformCost cost;
  cost.price_per_node_hour = r.optional("price_per_node_hour").number_in(0, kMaxPricePerNodeHour);
  cost.power_kw_per_node = r.optional("power_kw_per_node").number_in(0, kMaxPowerKwPerNode);
  if (cost.price_per_node_hour) {
    cost.currency = r.required("currency").string();
    if (cost.currency.empty()) r.at("currency").fail("expected a currency such as \"USD\", got \"\"");
  } else if (r.has("currency")) {
    r.at("currency").fail("a currency without 'price_per_node_hour'");
  }
  if (r.has("power_kind")) {
    if (!cost.power_kw_per_node) r.at("power_kind").fail("a power kind without 'power_kw_per_node'");
    cost.power_kind = r.required("power_kind").choice({"maximum", "average"}) == "average"
                          ? PlatformCost::PowerKind::kAverage
                          : PlatformCost::PowerKind::kMaximum;
  }
  if (!cost.price_per_node_hour && !cost.power_kw_per_node) {
    r.here().fail("expected 'price_per_node_hour' (with 'currency'), 'power_kw_per_node' or both");
  }
  cost.source = r.required("source").string();
  if (cost.source.empty())
    r.at("source").fail("expected where the figures come from (or why they are estimates), got \"\"");
  r.allow({"note"});
  r.finish();
  return cost;
}

}  // namespace

namespace {

Platform parse_adjusted(std::string_view text, const std::string& source, const PlatformOverrides& overrides) {
  json::Value root = json::parse(text, source);
  ObjectReader doc(root, source, "");
  std::string format = doc.required("format").string();
  if (format != kPlatformFormat) {
    doc.at("format").fail(fmt::format("expected \"{}\", got \"{}\"", kPlatformFormat, format));
  }
  std::int64_t version = doc.required("version").integer();
  if (version != kPlatformVersion) {
    doc.at("version").fail(fmt::format("expected {} (the only version this build reads), got \"{}\"", kPlatformVersion,
                                       doc.required("version")->text()));
  }
  Platform platform;
  platform.file = source;
  platform.name = doc.required("name").string();
  platform.description = doc.optional("description").string().value_or("");
  if (std::optional<std::string> model = doc.optional("network_model").string()) {
    if (model->empty()) doc.at("network_model").fail("expected a network model NAME or a file, got \"\"");
    platform.network_model = *model;
    platform.network_model_at = doc.at("network_model");
  }
  if (std::optional<std::string> profile = doc.optional("compute_profile").string()) {
    if (profile->empty()) doc.at("compute_profile").fail("expected an accelerator profile NAME or a file, got \"\"");
    platform.compute_profile = *profile;
    platform.compute_profile_at = doc.at("compute_profile");
  }
  doc.allow({"notes"});
  if (doc.has("cost")) platform.cost = read_cost(doc);
  NodeSpec nodes = read_nodes(doc, overrides);

  ObjectReader net = doc.child("network");
  platform.topology = net.required("topology").choice({"switch", "fat-tree", "supernodes", "torus", "dragonfly"});
  net.required("source").string();
  net.allow({"note"});
  if (platform.topology == "switch") {
    FatTreeSpec tree;
    tree.levels.push_back(FatTreeLevel{nodes.nodes * nodes.nics, LinkSpec{}, 1});
    finish_fat_tree(platform, nodes, tree, doc.at("nodes"));
    platform.shape = "one non-blocking switch";
  } else if (platform.topology == "fat-tree") {
    read_fat_tree(platform, nodes, net, overrides);
  } else if (platform.topology == "supernodes") {
    read_supernodes(platform, nodes, net, overrides);
  } else if (platform.topology == "torus") {
    read_torus(platform, nodes, net, overrides);
  } else {
    read_dragonfly(platform, nodes, net, overrides);
  }
  net.finish();
  doc.finish();
  return platform;
}

/// The settings of `overrides`, "nodes=4096, inter.bandwidth=x2", for messages.
std::string settings(const PlatformOverrides& o) {
  std::string out;
  for (const auto* a : {&o.intra_bandwidth, &o.intra_latency, &o.inter_bandwidth, &o.inter_latency, &o.flops, &o.reduce,
                        &o.memory, &o.nodes, &o.oversubscription, &o.compute_scale}) {
    if (*a) out += fmt::format("{}{}", out.empty() ? "" : ", ", (*a)->setting);
  }
  return out;
}

}  // namespace

Platform parse_platform(std::string_view text, const std::string& source, const PlatformOverrides& overrides) {
  if (overrides.empty()) return parse_adjusted(text, source, overrides);
  try {
    return parse_adjusted(text, source, overrides);
  } catch (const InputError& e) {
    if (e.file() == "--set") throw;
    // A platform the settings made impossible (a torus of other dimensions, a tree without one root).
    throw InputError(e.file(), e.line(), e.field(), fmt::format("{} (with --set {})", e.detail(), settings(overrides)));
  }
}

Platform read_platform(const std::string& path, const PlatformOverrides& overrides) {
  return parse_platform(json::read_file(path), path, overrides);
}

std::string find_platform(const std::string& name_or_path, const std::vector<std::string>& dirs) {
  return find_data_file(name_or_path, dirs, "--platform", "platform", "presets");
}

std::vector<std::string> list_platforms(const std::vector<std::string>& dirs) { return list_data_files(dirs); }

}  // namespace ccsim::topology
