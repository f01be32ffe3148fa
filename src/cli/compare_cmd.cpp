#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/render.hpp"
#include "cli/simulation_flags.hpp"
#include "collective/registry.hpp"
#include "core/input_error.hpp"
#include "engine/replay.hpp"
#include "report/comparison.hpp"
#include "report/timeline.hpp"
#include "study/job_facts.hpp"
#include "study/replay_job.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct CompareCommand {
  std::string trace;
  std::string format = "text";
  std::string output = "-";
  std::string rows = "auto";
  std::string plain_algorithm = "auto";
  bool per_rank = false;
  std::string timeline;
  std::string timeline_ranks = "auto";
  SimulationFlags flags;
};

void run_compare(const CompareCommand& cmd) {
  study::JobRequest request;
  request.runs = study::JobRuns::kPlainThenCompressed;  // --compress is required
  request.wait_spans = !cmd.timeline.empty();
  request.plain_algorithm = cmd.plain_algorithm;
  request.note_settings = true;
  request.before_replays = [&cmd](const study::ReplayJob& job) {  // the simulations may take long
    check_output_path(cmd.output);
    if (!cmd.timeline.empty()) check_output_path(cmd.timeline);
    check_timeline_ranks(cmd.timeline_ranks, job.trace.world_size);
    check_distinct_outputs({{"--output", cmd.output}, {"--timeline", cmd.timeline}});
  };
  const study::JobReplays replays = study::replay_job(trace::read_native(cmd.trace), cmd.flags, request, data_lookup());
  const engine::Result& plain_result = replays.results.front();
  const engine::Result& compressed_result = replays.last();

  report::BreakdownOptions view;
  view.key = rows_key(cmd.rows);
  view.per_rank = cmd.per_rank;
  view.ranks_on_demand = true;  // each rank's tables paired as they are written: never all in memory
  report::Comparison comparison = report::compare(plain_result, compressed_result, view);
  const report::JobFacts facts = study::job_facts(replays.job.trace, replays.job.platform);
  comparison.a_summary = report::make_summary(plain_result, facts);
  comparison.b_summary = report::make_summary(compressed_result, facts);
  write_output(cmd.output, rendering(comparison, cmd.format));
  write_timeline_file(cmd.timeline, cmd.timeline_ranks, {{"plain", &plain_result}, {"compressed", &compressed_result}});
}

}  // namespace

void setup_compare(CLI::App& app) {
  auto cmd = std::make_shared<CompareCommand>();
  CLI::App* sub = app.add_subcommand(
      "compare",
      "Replay a trace twice, with plain and with compressed all_reduce, and print both breakdowns side by side "
      "with the speedup of each collective and of the iteration, and the error of the compressed results");
  sub->add_option("trace", cmd->trace, "Trace file in the native format (traces/README.md)")->required();
  sub->add_option("-f,--format", cmd->format, "Output format: text table, csv or json")
      ->check(one_of({"text", "csv", "json"}))
      ->capture_default_str();
  sub->add_option("-o,--output", cmd->output, "Write the comparison to this file instead of stdout ('-')")
      ->capture_default_str();
  sub->add_option("--rows", cmd->rows,
                  std::string(kRowsAutoHelp) +
                      "'operator' (one row per operator in program order), 'name' (summed by name) or " + kRowsKindHelp)
      ->check(one_of(rows_choices()))
      ->capture_default_str();
  sub->add_flag("--per-rank", cmd->per_rank, "Also compare rank by rank");
  sub->add_option("--plain-algo", cmd->plain_algorithm, "all_reduce algorithm of the plain run ('auto' chooses)")
      ->check(one_of(algorithm_choices(collective::plain_all_reduce_algorithms(), true)))
      ->capture_default_str();
  sub->add_option("--timeline", cmd->timeline,
                  "Also write Chrome/Perfetto trace events of both replays here (one process per rank and replay: "
                  "operators and the waits for peers inside them; open in ui.perfetto.dev or chrome://tracing)");
  add_timeline_ranks_option(sub, cmd->timeline_ranks);
  add_simulation_flags(sub, cmd->flags, true);
  sub->get_option("--compress")->required();
  sub->callback([cmd] { run_compare(*cmd); });
}

}  // namespace ccsim::cli
