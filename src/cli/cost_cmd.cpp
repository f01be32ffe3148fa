#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "study/cost_study.hpp"
#include "study/replay_job.hpp"
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
  study::JobRequest request;
  request.runs = study::JobRuns::kPlainThenCompressed;
  request.before_replays = [&cmd](const study::ReplayJob&) { check_output_path(cmd.output); };
  const study::JobReplays replays = study::replay_job(trace::read_native(cmd.trace), cmd.flags, request, data_lookup());
  study::CostStudy study = study::study_cost(cmd.cost, replays.job.trace, replays.job.platform, replays.runs());
  // The settings are said of the last run (the compressed one, when there is one).
  const std::vector<std::string> settings = study::setting_assumptions(cmd.flags, replays.setting_notes);
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
