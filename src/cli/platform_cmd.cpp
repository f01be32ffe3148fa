#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/phase.hpp"
#include "topology/analysis.hpp"
#include "topology/platform.hpp"
#include "topology/simgrid_xml.hpp"
#include "topology/summary.hpp"
#include "engine/network_factors.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"

namespace ccsim::cli {
namespace {

struct PlatformCommand {
  std::string name;
  std::string output = "-";
  bool xml = false;
  std::string routing = "auto";
  int src = 0;
  int dst = 0;
};

void run_list() {
  std::string out;
  for (const std::string& name : topology::list_platforms(data_folders().platforms)) {
    topology::Platform p = read_named_platform(name);
    const topology::Network& net = p.network;
    out += fmt::format("{:<22} {:>7} nodes x {:<2} {:<11} {}\n", name, net.node_count(), net.accelerators_per_node(),
                       p.topology, net.accelerator().model);
  }
  write_output("-", out);
}

void run_show(const PlatformCommand& cmd) {
  topology::Platform p = read_named_platform(cmd.name);
  std::string out = topology::format_summary(p, topology::summarize(p));
  if (auto model = study::platform_network_model(data_folders(), p)) {
    out += fmt::format(
        "network model: {}\n  (the link figures above are nominal: with a network model, a lone "
        "message costs the model's figure for its tier and size)\n",
        engine::NetworkFactors(model).describe());
  }
  write_output(cmd.output, out);
}

void run_export(const PlatformCommand& cmd) {
  if (!cmd.xml) throw InputError("command line", 0, "--xml", "choose an export format: --xml (SimGrid platform file)");
  topology::Platform p = read_named_platform(cmd.name);
  check_output_path(cmd.output);
  const topology::Network& net = p.network;
  topology::XmlRouting routing = topology::XmlRouting::kDijkstra;
  if (cmd.routing == "full" || (cmd.routing == "auto" && net.accelerator_count() <= 64)) {
    routing = topology::XmlRouting::kFull;
  }
  topology::check_export_size(net, p.name, routing);
  std::string xml;
  {
    Phase phase(fmt::format("writing the SimGrid XML of platform \"{}\" ({} links, {} accelerators)", p.name,
                            net.link_count(), net.accelerator_count()),
                "use --routing dijkstra, or a smaller platform");
    xml = topology::to_simgrid_xml(net, p.name, routing);
  }
  write_output(cmd.output, xml);
  if (const std::string caveat = topology::dijkstra_caveat(net, routing); !caveat.empty()) {
    fmt::print(stderr, "note: {}\n", caveat);
  }
  if (auto model = study::platform_network_model(data_folders(), p)) {
    fmt::print(stderr,
               "note: the platform's network model {} is not in the XML (SimGrid files have no size-dependent "
               "message costs): SimGrid gets the links' nominal figures, while ccsim's replay gives each message the "
               "model's cost (ccsim platform route shows both)\n",
               model->name);
  }
}

void run_route(const PlatformCommand& cmd) {
  topology::Platform p = read_named_platform(cmd.name);
  const topology::Network& net = p.network;
  for (int a : {cmd.src, cmd.dst}) {
    if (a < 0 || a >= net.accelerator_count()) {
      throw InputError("command line", 0, "",
                       fmt::format("expected an accelerator in 0..{}, got \"{}\"", net.accelerator_count() - 1, a));
    }
  }
  std::string out = fmt::format("route from accelerator {} ({}) to {} ({}):\n", cmd.src,
                                net.vertex_name(net.accelerator_vertex(cmd.src)), cmd.dst,
                                net.vertex_name(net.accelerator_vertex(cmd.dst)));
  for (const topology::Hop& hop : net.route(cmd.src, cmd.dst)) {
    const topology::Link& link = net.link(hop.link);
    out += fmt::format("  {:<40} {:<4} {:>12} per flow, {:>12} capacity, {:.3g} us\n", net.link_name(hop.link),
                       hop.forward ? "up" : "down", format_rate(link.bandwidth_Bps), format_rate(link.capacity_Bps),
                       link.latency_s * 1e6);
  }
  topology::Network::PathCost cost = net.path_cost(cmd.src, cmd.dst);
  const auto model = study::platform_network_model(data_folders(), p);
  const bool same_node = net.node_of(cmd.src) == net.node_of(cmd.dst);
  const bool modelled = model && (same_node ? model->has_intra : model->has_inter);
  out += fmt::format("{} links, latency {:.3g} us, bottleneck {} per flow: 1 MiB takes {:.3f} us alone{}\n", cost.hops,
                     cost.latency_s * 1e6, format_rate(cost.bandwidth_Bps),
                     (cost.latency_s + (1 << 20) / cost.bandwidth_Bps) * 1e6,
                     modelled ? " on these links' nominal figures" : "");
  if (modelled) {
    // What a replay simulates: the calibrated model's cost of the tier, the links' sharing kept.
    const topology::TierModel& tier = same_node ? model->intra : model->inter;
    out += fmt::format(
        "network model {} ({} tier): 1 MiB takes {:.3f} us alone (send overhead + latency + bytes / "
        "bandwidth + receive overhead of its size segment), what a replay simulates\n",
        model->name, same_node ? "intra" : "inter", tier.message_s(std::uint64_t{1} << 20) * 1e6);
  }
  write_output("-", out);
}

}  // namespace

void setup_platform(CLI::App& app) {
  auto cmd = std::make_shared<PlatformCommand>();
  CLI::App* platform = app.add_subcommand("platform", "List, describe and export the platform presets (platforms/)");
  platform->require_subcommand(1);

  platform->add_subcommand("list", "One line per preset: nodes, accelerators per node, topology, accelerator")
      ->callback([] { run_list(); });

  CLI::App* show = platform->add_subcommand(
      "show",
      "Describe a platform: nodes, accelerators, per-tier bandwidth and latency with their sources, "
      "oversubscription, bisection bandwidth (computed and closed form), diameter");
  show->add_option("platform", cmd->name, "Preset name or platform file")->required();
  show->add_option("-o,--output", cmd->output, "Write to this file instead of stdout ('-')")->capture_default_str();
  show->callback([cmd] { run_show(*cmd); });

  CLI::App* exp = platform->add_subcommand("export", "Write a platform in another tool's format");
  exp->add_option("platform", cmd->name, "Preset name or platform file")->required();
  exp->add_flag("--xml", cmd->xml, "SimGrid platform file (version 4.1), loadable by any SimGrid program");
  exp->add_option(
         "--routing", cmd->routing,
         "'full': ccsim's own route for every pair of accelerators (N^2 entries, at most 262,144 routes: 512 accelerators); 'dijkstra': links only, "
         "SimGrid computes shortest paths (ccsim's routes on trees of one NIC a node, not with rails: the file says so); 'auto': full up to 64 accelerators")
      ->check(one_of({"auto", "full", "dijkstra"}))
      ->capture_default_str();
  exp->add_option("-o,--output", cmd->output, "Write to this file instead of stdout ('-')")->capture_default_str();
  exp->callback([cmd] { run_export(*cmd); });

  CLI::App* route = platform->add_subcommand("route", "Show the links a message between two accelerators crosses");
  route->add_option("platform", cmd->name, "Preset name or platform file")->required();
  route->add_option("src", cmd->src, "Source accelerator (node-major index)")->required();
  route->add_option("dst", cmd->dst, "Destination accelerator")->required();
  route->callback([cmd] { run_route(*cmd); });
}

}  // namespace ccsim::cli
