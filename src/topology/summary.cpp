#include "topology/summary.hpp"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "topology/analysis.hpp"

namespace ccsim::topology {

PlatformSummary summarize(const Platform& platform) {
  const Network& net = platform.network;
  PlatformSummary s;
  s.vertices = net.vertex_count();
  for (Network::VertexId v = 0; v < net.vertex_count(); ++v) {
    if (net.vertex(v).kind == VertexKind::kSwitch) ++s.switches;
  }
  s.tiers.resize(net.tiers().size());
  for (std::size_t t = 0; t < net.tiers().size(); ++t) {
    s.tiers[t].name = net.tiers()[t].name;
    s.tiers[t].source = net.tiers()[t].source;
    s.tiers[t].oversubscription = net.tiers()[t].oversubscription;
  }
  for (std::uint32_t id = 0; id < net.link_count(); ++id) {
    const Link& link = net.link(id);
    TierSummary& tier = s.tiers[link.tier];
    ++tier.links;
    tier.bandwidth_Bps = link.bandwidth_Bps;
    tier.capacity_Bps = link.capacity_Bps;
    tier.latency_s = link.latency_s;
    tier.sharing = link.sharing;
  }
  s.bisection_Bps = bisection_bandwidth(net);
  s.closed_form_bisection_Bps = platform.closed_form_bisection_Bps;
  s.diameter_hops = diameter_hops(net);
  // The costliest lone transfer from accelerator 0, by latency.
  for (int a = 1; a < net.accelerator_count(); a = a < 64 ? a + 1 : a * 2) {
    Network::PathCost cost = net.path_cost(0, a);
    if (cost.latency_s > s.farthest.latency_s) {
      s.farthest = cost;
      s.farthest_accelerator = a;
    }
  }
  if (net.accelerator_count() > 1) {
    Network::PathCost last = net.path_cost(0, net.accelerator_count() - 1);
    if (last.latency_s > s.farthest.latency_s) {
      s.farthest = last;
      s.farthest_accelerator = net.accelerator_count() - 1;
    }
  }
  return s;
}

std::string format_summary(const Platform& platform, const PlatformSummary& s) {
  const Network& net = platform.network;
  const AcceleratorSpec& acc = net.accelerator();
  std::string out;
  std::error_code ec;
  std::string shown = std::filesystem::proximate(platform.file, ec).string();
  out += fmt::format("platform {} ({})\n", platform.name, ec ? platform.file : shown);
  if (!platform.description.empty()) out += fmt::format("  {}\n", platform.description);
  out += fmt::format("topology: {} ({})\n", platform.topology, platform.shape);
  if (acc.cpu_core) {
    out += fmt::format(
        "nodes: {} x {} core{} = {} cores (CPU ranks, any number per core), {} NIC{} per node, {} switch{}\n",
        net.node_count(), net.accelerators_per_node(), net.accelerators_per_node() == 1 ? "" : "s",
        net.accelerator_count(), net.nics_per_node(), net.nics_per_node() == 1 ? "" : "s", s.switches,
        s.switches == 1 ? "" : "es");
  } else {
    out += fmt::format("nodes: {} x {} accelerator{} = {} accelerators, {} NIC{} per node, {} switch{}\n",
                       net.node_count(), net.accelerators_per_node(), net.accelerators_per_node() == 1 ? "" : "s",
                       net.accelerator_count(), net.nics_per_node(), net.nics_per_node() == 1 ? "" : "s", s.switches,
                       s.switches == 1 ? "" : "es");
  }
  out += fmt::format(
      "accelerator: {}, {:.4g} TFLOP/s, reduction {}{}{}\n", acc.model, acc.flops / 1e12, format_rate(acc.reduce_Bps),
      acc.memory_Bps > 0 ? fmt::format(", memory {}", format_rate(acc.memory_Bps)) : std::string(),
      acc.memory_bytes > 0 ? fmt::format(", {:.4g} GiB", acc.memory_bytes / (1024.0 * 1024 * 1024)) : std::string());
  out += fmt::format("  source: {}\n", acc.source);
  out += "links:\n";
  out += fmt::format("  {:<8} {:>8}  {:>12}  {:>12}  {:>9}  {:<12}  {:>7}\n", "tier", "links", "per flow", "capacity",
                     "latency", "sharing", "oversub");
  for (const TierSummary& t : s.tiers) {
    if (t.links == 0) continue;
    out += fmt::format("  {:<8} {:>8}  {:>12}  {:>12}  {:>7.3g}us  {:<12}  {:>7}\n", t.name, t.links,
                       format_rate(t.bandwidth_Bps), format_rate(t.capacity_Bps), t.latency_s * 1e6,
                       sharing_name(t.sharing),
                       t.oversubscription > 0 ? fmt::format("{:.3g}:1", t.oversubscription) : std::string("-"));
  }
  out += "  sources:\n";
  for (const TierSummary& t : s.tiers) {
    if (t.links > 0) out += fmt::format("    {}: {}\n", t.name, t.source);
  }
  out += fmt::format("bisection bandwidth: {} (max-flow between the two halves of the accelerators)",
                     format_rate(s.bisection_Bps));
  if (std::isnan(s.closed_form_bisection_Bps)) {
    out += "; no closed form for this shape\n";
  } else {
    out += fmt::format("; closed form {}\n", format_rate(s.closed_form_bisection_Bps));
  }
  out += fmt::format("diameter: {} links (accelerator to accelerator, on ccsim's routes)\n", s.diameter_hops);
  if (net.accelerator_count() > 1) {
    out += fmt::format("farthest route from accelerator 0: to {}, {} links, {:.3g} us, {} per flow\n",
                       s.farthest_accelerator, s.farthest.hops, s.farthest.latency_s * 1e6,
                       format_rate(s.farthest.bandwidth_Bps));
  }
  return out;
}

std::string list_line(const std::string& name, const Platform& platform) {
  const Network& net = platform.network;
  return fmt::format("{:<22} {:>7} nodes x {:<2} {:<11} {}\n", name, net.node_count(), net.accelerators_per_node(),
                     platform.topology, net.accelerator().model);
}

void check_route_ends(const Platform& platform, int src, int dst) {
  const Network& net = platform.network;
  for (int a : {src, dst}) {
    if (a < 0 || a >= net.accelerator_count()) {
      throw InputError("command line", 0, "",
                       fmt::format("expected an accelerator in 0..{}, got \"{}\"", net.accelerator_count() - 1, a));
    }
  }
}

std::string describe_route(const Platform& platform, int src, int dst, const NetworkModel* model) {
  check_route_ends(platform, src, dst);
  const Network& net = platform.network;
  std::string out =
      fmt::format("route from accelerator {} ({}) to {} ({}):\n", src, net.vertex_name(net.accelerator_vertex(src)),
                  dst, net.vertex_name(net.accelerator_vertex(dst)));
  for (const Hop& hop : net.route(src, dst)) {
    const Link& link = net.link(hop.link);
    out += fmt::format("  {:<40} {:<4} {:>12} per flow, {:>12} capacity, {:.3g} us\n", net.link_name(hop.link),
                       hop.forward ? "up" : "down", format_rate(link.bandwidth_Bps), format_rate(link.capacity_Bps),
                       link.latency_s * 1e6);
  }
  const Network::PathCost cost = net.path_cost(src, dst);
  const bool same_node = net.node_of(src) == net.node_of(dst);
  const bool modelled = model && (same_node ? model->has_intra : model->has_inter);
  out += fmt::format("{} links, latency {:.3g} us, bottleneck {} per flow: 1 MiB takes {:.3f} us alone{}\n", cost.hops,
                     cost.latency_s * 1e6, format_rate(cost.bandwidth_Bps),
                     (cost.latency_s + (1 << 20) / cost.bandwidth_Bps) * 1e6,
                     modelled ? " on these links' nominal figures" : "");
  if (modelled) {
    // What a replay simulates: the calibrated model's cost of the tier, the links' sharing kept.
    const TierModel& tier = same_node ? model->intra : model->inter;
    out += fmt::format(
        "network model {} ({} tier): 1 MiB takes {:.3f} us alone (send overhead + latency + bytes / "
        "bandwidth + receive overhead of its size segment), what a replay simulates\n",
        model->name, same_node ? "intra" : "inter", tier.message_s(std::uint64_t{1} << 20) * 1e6);
  }
  return out;
}

}  // namespace ccsim::topology
