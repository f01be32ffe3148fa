#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/simulation_flags.hpp"
#include "core/input_error.hpp"
#include "engine/replay.hpp"
#include "report/cost.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct CostCommand {
  std::string trace;
  double iterations = 0;
  double tokens = 0;
  double tokens_per_iteration = 0;
  std::optional<double> price;
  std::optional<double> power;
  std::string output = "-";
  SimulationFlags flags;
};

double iteration_s(const engine::Result& r) { return r.makespan_s / std::max(r.iterations, 1); }

void run_cost(const CostCommand& cmd) {
  if ((cmd.iterations > 0) == (cmd.tokens > 0)) {
    throw InputError("command line", 0, "--iterations", "give either --iterations N or --tokens N (with --tokens-per-iteration)");
  }
  if (cmd.tokens > 0 && !(cmd.tokens_per_iteration > 0)) {
    throw InputError("command line", 0, "--tokens-per-iteration",
                     "--tokens needs the tokens one iteration trains (global batch x sequence length)");
  }
  for (auto [flag, v] : {std::pair{"--iterations", cmd.iterations}, {"--tokens", cmd.tokens},
                         {"--tokens-per-iteration", cmd.tokens_per_iteration}}) {
    if (!std::isfinite(v) || v < 0 || v > 1e18) {
      throw InputError("command line", 0, flag, fmt::format("expected a number in [0, 1e18], got \"{}\"", v));
    }
  }
  for (auto [flag, v] : {std::pair{"--price", cmd.price}, {"--power", cmd.power}}) {
    if (v && (!std::isfinite(*v) || *v < 0 || *v > 1e9)) {
      throw InputError("command line", 0, flag, fmt::format("expected a number in [0, 1e9], got \"{}\"", *v));
    }
  }
  trace::Trace trace = trace::read_native(cmd.trace);
  const topology::Platform platform = load_platform(cmd.flags, trace);
  engine::ReplayOptions compressed = replay_options(cmd.flags, platform);
  compressed.compute = apply_compute_flag(cmd.flags, trace, platform);  // once: both replays share the adjusted trace
  engine::ReplayOptions plain = compressed;
  plain.compression = engine::CompressionOptions{};
  std::vector<std::pair<std::string, engine::Result>> runs;
  runs.emplace_back("plain", engine::replay(trace, platform, plain));
  if (compressed.compression.enabled()) runs.emplace_back("compressed", engine::replay(trace, platform, compressed));

  const topology::Network& net = platform.network;
  const int per_node = net.accelerators_per_node();
  const int nodes = std::min(net.node_count(), (trace.world_size + per_node - 1) / per_node);
  const double iterations = cmd.iterations > 0 ? cmd.iterations : std::ceil(cmd.tokens / cmd.tokens_per_iteration);

  std::string out = fmt::format("cost: {} on {}, {} ranks on {} node(s), {:.6g} iterations\n", trace.name, platform.name,
                                trace.world_size, nodes, iterations);
  out += "assumptions:\n";
  for (const std::string& setting : cmd.flags.settings) out += fmt::format("  set: {} (--set)\n", setting);
  out += fmt::format("  iteration time: the simulated makespan{}\n",
                     runs.front().second.iterations > 0
                         ? fmt::format(" divided by the {} iterations the trace holds", runs.front().second.iterations)
                         : std::string(" (the trace does not say how many iterations it holds: taken as one)"));
  out += fmt::format("  nodes: ceil({} ranks / {} per node), at most the platform's {}; the job holds them for the whole run\n",
                     trace.world_size, per_node, net.node_count());
  if (cmd.tokens > 0) {
    out += fmt::format("  iterations: ceil({:.6g} tokens / {:.6g} tokens per iteration)\n", cmd.tokens, cmd.tokens_per_iteration);
  }
  out += cmd.price ? fmt::format("  price: {:.6g} per node-hour (--price)\n", *cmd.price)
                   : std::string("  price: not given (--price PER_NODE_HOUR): no money figure\n");
  out += cmd.power ? fmt::format("  power: {:.6g} kW per node, average over the run (--power)\n", *cmd.power)
                   : std::string("  power: not given (--power KW_PER_NODE): no energy figure\n");
  out += fmt::format("  network: {}\n", runs.front().second.network_model);
  out += fmt::format("  compute: {}\n", runs.front().second.compute);

  std::vector<report::CostFigures> figures;
  for (const auto& [name, result] : runs) {
    report::CostInputs in;
    in.iteration_s = iteration_s(result);
    in.iterations = iterations;
    in.nodes = nodes;
    in.price_per_node_hour = cmd.price;
    in.power_kw_per_node = cmd.power;
    figures.push_back(report::training_cost(in));
  }
  const bool both = runs.size() == 2;
  out += fmt::format("{:<16} {:>16}", "", "plain");
  if (both) out += fmt::format(" {:>16} {:>9}", "compressed", "saving");
  out += "\n";
  auto row = [&](const std::string& what, auto value, auto render) {
    out += fmt::format("{:<16} {:>16}", what, render(value(0)));
    if (both) {
      const double a = value(0), b = value(1);
      out += fmt::format(" {:>16} {:>8.1f}%", render(b), a > 0 ? (a - b) / a * 100 : 0.0);
    }
    out += "\n";
  };
  row("iteration", [&](int i) { return iteration_s(runs[static_cast<std::size_t>(i)].second); },
      [](double s) { return fmt::format("{:.3f} ms", s * 1e3); });
  row("time to train", [&](int i) { return figures[static_cast<std::size_t>(i)].seconds; }, report::format_duration);
  row("node-hours", [&](int i) { return figures[static_cast<std::size_t>(i)].node_hours; },
      [](double v) { return fmt::format("{:.6g}", v); });
  if (cmd.price) {
    row("money", [&](int i) { return *figures[static_cast<std::size_t>(i)].money; },
        [](double v) { return fmt::format("{:.6g}", v); });
  }
  if (cmd.power) {
    row("energy", [&](int i) { return *figures[static_cast<std::size_t>(i)].energy_kwh / 1000; },
        [](double v) { return fmt::format("{:.6g} MWh", v); });
  }
  write_output(cmd.output, out);
}

}  // namespace

void setup_cost(CLI::App& app) {
  auto cmd = std::make_shared<CostCommand>();
  CLI::App* sub = app.add_subcommand(
      "cost", "What training costs: time, node-hours, money and energy from a simulated iteration, plain and compressed");
  sub->add_option("trace", cmd->trace, "Trace of one (or more) training iterations, native format")->required();
  sub->add_option("--iterations", cmd->iterations, "Training iterations");
  sub->add_option("--tokens", cmd->tokens, "Training tokens (with --tokens-per-iteration)");
  sub->add_option("--tokens-per-iteration", cmd->tokens_per_iteration, "Tokens one iteration trains: global batch x sequence");
  sub->add_option("--price", cmd->price, "Price of one node-hour (any currency)");
  sub->add_option("--power", cmd->power, "Average power of one node, kW");
  sub->add_option("-o,--output", cmd->output, "Write the report here ('-': stdout)")->capture_default_str();
  add_simulation_flags(sub, cmd->flags, true);
  sub->callback([cmd] { run_cost(*cmd); });
}

}  // namespace ccsim::cli
