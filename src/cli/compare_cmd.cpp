#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/render.hpp"
#include "cli/simulation_flags.hpp"
#include "collective/registry.hpp"
#include "core/input_error.hpp"
#include "engine/replay.hpp"
#include "report/comparison.hpp"
#include "report/timeline.hpp"
#include "study/job_report.hpp"
#include "study/replay_job.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct CompareCommand {
  std::string trace;
  BreakdownFlags view;
  std::string plain_algorithm = "auto";
  SimulationFlags flags;
};

void run_compare(const CompareCommand& cmd) {
  study::JobRequest request;
  request.runs = study::JobRuns::kPlainThenCompressed;  // --compress is required
  request.wait_spans = !cmd.view.timeline.empty();
  request.plain_algorithm = cmd.plain_algorithm;
  request.note_settings = true;
  request.before_replays = [&cmd](const study::ReplayJob& job) {
    check_breakdown_outputs(cmd.view, job.trace.world_size);
  };
  const study::JobReplays replays = study::replay_job(trace::read_native(cmd.trace), cmd.flags, request, data_lookup());
  const engine::Result& plain_result = replays.results.front();
  const engine::Result& compressed_result = replays.last();

  const report::Comparison comparison =
      study::job_comparison(replays.job, plain_result, compressed_result, breakdown_view(cmd.view));
  write_output(cmd.view.output, rendering(comparison, cmd.view.format));
  fmt::print(stderr, "{}",
             report::write_timeline_file(cmd.view.timeline, cmd.view.timeline_ranks,
                                         {{"plain", &plain_result}, {"compressed", &compressed_result}}));
}

}  // namespace

void setup_compare(CLI::App& app) {
  auto cmd = std::make_shared<CompareCommand>();
  CLI::App* sub = app.add_subcommand(
      "compare",
      "Replay a trace twice, with plain and with compressed all_reduce, and print both breakdowns side by side "
      "with the speedup of each collective and of the iteration, and the error of the compressed results");
  sub->add_option("trace", cmd->trace, "Trace file in the native format (traces/README.md)")->required();
  add_breakdown_flags(sub, cmd->view,
                      {"Output format: text table, csv or json",
                       "Write the comparison to this file instead of stdout ('-')", "", "Also compare rank by rank"});
  sub->add_option("--plain-algo", cmd->plain_algorithm, "all_reduce algorithm of the plain run ('auto' chooses)")
      ->check(one_of(algorithm_choices(collective::plain_all_reduce_algorithms(), true)))
      ->capture_default_str();
  add_timeline_flags(sub, cmd->view,
                     "Also write Chrome/Perfetto trace events of both replays here (one process per rank and replay: "
                     "operators and the waits for peers inside them; open in ui.perfetto.dev or chrome://tracing)");
  add_simulation_flags(sub, cmd->flags, true);
  sub->get_option("--compress")->required();
  sub->callback([cmd] { run_compare(*cmd); });
}

}  // namespace ccsim::cli
