#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "engine/replay.hpp"
#include "study/cost_study.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct CostCommand {
  std::string trace;
  study::CostOptions cost;
  std::string format = "text";
  std::string output = "-";
  SimulationFlags flags;
};

void run_cost(const CostCommand& cmd) {
  study::check_cost_options(cmd.cost);
  trace::Trace trace = trace::read_native(cmd.trace);
  const topology::Platform platform = load_platform(cmd.flags, trace);
  engine::ReplayOptions compressed = replay_options(cmd.flags, platform);
  // once: both replays share the adjusted trace
  const calibrate::ComputeAdjustment compute = apply_compute_flag(cmd.flags, trace, platform, compressed);
  check_output_path(cmd.output);  // before the simulations, which may take long
  engine::ReplayOptions plain = compressed;
  plain.compression = engine::CompressionOptions{};
  const engine::Result plain_result = engine::replay(trace, platform, plain);
  std::vector<std::pair<std::string, const engine::Result*>> runs{{"plain", &plain_result}};
  engine::Result compressed_result;
  if (compressed.compression.enabled()) {
    compressed_result = engine::replay(trace, platform, compressed);
    runs.emplace_back("compressed", &compressed_result);
  }
  study::CostStudy study = study::study_cost(cmd.cost, trace, platform, runs);
  std::vector<std::string> settings;
  for (const std::string& setting : cmd.flags.settings) settings.push_back(fmt::format("set: {} (--set)", setting));
  // The settings are said of the last run (the compressed one, when there is one).
  for (const std::string& idle : setting_notes(cmd.flags, trace, platform, *runs.back().second, compute)) {
    settings.push_back("set: " + idle);
  }
  study.assumptions.insert(study.assumptions.begin(), settings.begin(), settings.end());
  write_output(cmd.output, cmd.format == "json"  ? study::cost_json(study)
                           : cmd.format == "csv" ? study::cost_csv(study)
                                                 : study::cost_text(study));
}

}  // namespace

void add_cost_options(CLI::App* sub, study::CostOptions& options) {
  sub->add_option("--iterations", options.iterations, "Training iterations");
  sub->add_option("--tokens", options.tokens, "Training tokens (with --tokens-per-iteration)");
  sub->add_option("--tokens-per-iteration", options.tokens_per_iteration,
                  "Tokens one iteration trains: global batch x sequence");
  sub->add_option("--price", options.price, "Price of one node-hour (any currency)");
  sub->add_option("--power", options.power, "Average power of one node, kW");
}

void setup_cost(CLI::App& app) {
  auto cmd = std::make_shared<CostCommand>();
  CLI::App* sub = app.add_subcommand(
      "cost",
      "What training costs: time, node-hours, money and energy from a simulated iteration, plain and compressed");
  sub->add_option("trace", cmd->trace, "Trace of one (or more) training iterations, native format")->required();
  add_cost_options(sub, cmd->cost);
  sub->add_option("-f,--format", cmd->format, "Output format: text, csv or json")
      ->check(one_of({"text", "csv", "json"}))
      ->capture_default_str();
  sub->add_option("-o,--output", cmd->output, "Write the report here ('-': stdout)")->capture_default_str();
  add_simulation_flags(sub, cmd->flags, true);
  sub->callback([cmd] { run_cost(*cmd); });
}

}  // namespace ccsim::cli
