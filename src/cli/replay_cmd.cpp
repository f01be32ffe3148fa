#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "engine/replay.hpp"
#include "report/breakdown.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct ReplayCommand {
  std::string trace;
  std::string platform;
  std::string format = "text";
  std::string output = "-";
  std::string rows = "operator";
  bool per_rank = false;
  std::string algorithm = "ring";
  std::string placement = "auto";
  bool oversubscribe = false;
  bool simgrid_log = false;
};

void run_replay(const ReplayCommand& cmd) {
  trace::Trace trace = trace::read_native(cmd.trace);
  std::string platform_name = cmd.platform.empty() ? trace.platform : cmd.platform;
  if (platform_name.empty()) {
    throw InputError(cmd.trace, 0, "platform", "the trace names no platform; pass --platform NAME|FILE");
  }
  topology::Platform platform = topology::read_platform(topology::find_platform(platform_name, platform_dirs()));

  engine::ReplayOptions options;
  options.all_reduce_algorithm = cmd.algorithm;
  options.placement = cmd.placement;
  options.oversubscribe = cmd.oversubscribe;
  options.simgrid_log = cmd.simgrid_log;
  engine::Result result = engine::replay(trace, platform, options);

  report::BreakdownOptions view;
  view.key = cmd.rows == "name" ? report::RowKey::kName : report::RowKey::kOperator;
  view.per_rank = cmd.per_rank;
  report::Breakdown breakdown = report::make_breakdown(result, view);
  std::ostringstream text;
  if (cmd.format == "csv") {
    report::write_csv(breakdown, text);
  } else if (cmd.format == "json") {
    report::write_json(breakdown, text);
  } else {
    report::write_text(breakdown, text);
  }
  write_output(cmd.output, text.str());
}

}  // namespace

void setup_replay(CLI::App& app) {
  auto cmd = std::make_shared<ReplayCommand>();
  CLI::App* sub = app.add_subcommand(
      "replay",
      "Replay a training trace on a modelled platform with SimGrid and print the per-operator breakdown "
      "(operator, time ms, share % of the iteration) per pipeline stage");
  sub->add_option("trace", cmd->trace, "Trace file in the native format (traces/README.md), e.g. traces/qu2025-profile.json")
      ->required();
  sub->add_option("-p,--platform", cmd->platform,
                  "Platform preset name (see platforms/) or platform file; default: the platform the trace names");
  sub->add_option("-f,--format", cmd->format, "Output format: text table, csv or json")
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  sub->add_option("-o,--output", cmd->output, "Write the breakdown to this file instead of stdout ('-')")
      ->capture_default_str();
  sub->add_option("--rows", cmd->rows,
                  "'operator': one row per operator of the iteration in program order (the published form); "
                  "'name': one row per operator name and label, summed")
      ->check(CLI::IsMember({"operator", "name"}))
      ->capture_default_str();
  sub->add_flag("--per-rank", cmd->per_rank, "Also print one table per rank (default: per pipeline stage only)");
  sub->add_option("--algo", cmd->algorithm, "all_reduce algorithm")
      ->check(CLI::IsMember({"ring"}))
      ->capture_default_str();
  sub->add_option("--placement", cmd->placement,
                  "How ranks map to accelerators: 'auto' (the trace's own placement, else tp,pp,dp), an order of "
                  "tp, pp and dp innermost first (tp,pp,dp keeps tensor-parallel groups inside a node, pipeline "
                  "stages across nodes, data parallel outermost), 'rank-order', or 'map:A,B,...' (rank r on "
                  "accelerator A_r)")
      ->capture_default_str();
  sub->add_flag("--oversubscribe", cmd->oversubscribe,
               "Allow more ranks than accelerators: they share accelerators (compute is time-shared, messages between "
               "ranks on one accelerator are free)");
  sub->add_flag("--simgrid-log", cmd->simgrid_log, "Show SimGrid's own log on stderr");
  sub->callback([cmd] { run_replay(*cmd); });
}

}  // namespace ccsim::cli
