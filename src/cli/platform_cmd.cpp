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
    out += topology::list_line(name, read_named_platform(name));
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
  const topology::XmlRouting routing = topology::xml_routing_of(cmd.routing, net);
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
  const topology::Platform p = read_named_platform(cmd.name);
  topology::check_route_ends(p, cmd.src, cmd.dst);  // before the network model is read
  const auto model = study::platform_network_model(data_folders(), p);
  write_output("-", topology::describe_route(p, cmd.src, cmd.dst, model.get()));
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
