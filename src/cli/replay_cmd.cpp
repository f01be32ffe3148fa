#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/render.hpp"
#include "cli/simulation_flags.hpp"
#include "core/input_error.hpp"
#include "core/phase.hpp"
#include "engine/replay.hpp"
#include "report/breakdown.hpp"
#include "report/timeline.hpp"
#include "study/job_facts.hpp"
#include "study/replay_job.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct ReplayCommand {
  std::string trace;
  std::string format = "text";
  std::string output = "-";
  std::string rows = "auto";
  bool per_rank = false;
  std::string timeline;
  std::string timeline_ranks = "auto";
  SimulationFlags flags;
};

void run_replay(const ReplayCommand& cmd) {
  study::JobRequest request;
  request.wait_spans = !cmd.timeline.empty();
  request.note_settings = true;
  request.before_replays = [&cmd](const study::ReplayJob& job) {  // the simulation may take long
    check_output_path(cmd.output);
    if (!cmd.timeline.empty()) check_output_path(cmd.timeline);
    check_timeline_ranks(cmd.timeline_ranks, job.trace.world_size);
    check_distinct_outputs({{"--output", cmd.output}, {"--timeline", cmd.timeline}});
  };
  const study::JobReplays replays = study::replay_job(trace::read_native(cmd.trace), cmd.flags, request, data_lookup());
  const engine::Result& result = replays.last();

  Phase phase("writing the report", "");
  report::BreakdownOptions view;
  view.key = rows_key(cmd.rows);
  view.per_rank = cmd.per_rank;
  view.ranks_on_demand = true;  // each rank's table made as it is written: never all in memory
  report::Breakdown breakdown = report::make_breakdown(result, view);
  breakdown.summary = report::make_summary(result, study::job_facts(replays.job.trace, replays.job.platform));
  write_output(cmd.output, rendering(breakdown, cmd.format));
  write_timeline_file(cmd.timeline, cmd.timeline_ranks, {{"", &result}});
}

}  // namespace

void setup_replay(CLI::App& app) {
  auto cmd = std::make_shared<ReplayCommand>();
  CLI::App* sub = app.add_subcommand(
      "replay",
      "Replay a training trace on a modelled platform with SimGrid and print the per-operator breakdown "
      "(operator, time ms, share % of the iteration) per pipeline stage");
  sub->add_option("trace", cmd->trace,
                  "Trace file in the native format (traces/README.md), e.g. traces/qu2025-profile.json")
      ->required();
  sub->add_option("-f,--format", cmd->format, "Output format: text table, csv or json")
      ->check(one_of({"text", "csv", "json"}))
      ->capture_default_str();
  sub->add_option("-o,--output", cmd->output, "Write the breakdown to this file instead of stdout ('-')")
      ->capture_default_str();
  sub->add_option("--rows", cmd->rows,
                  std::string(kRowsAutoHelp) +
                      "'operator': one row per operator of the iteration in program order (the published form); "
                      "'name': one row per operator name and label, summed; " +
                      kRowsKindHelp)
      ->check(one_of(rows_choices()))
      ->capture_default_str();
  sub->add_flag("--per-rank", cmd->per_rank, "Also print one table per rank (default: per pipeline stage only)");
  sub->add_option("--timeline", cmd->timeline,
                  "Also write Chrome/Perfetto trace events of the replay here (one process per rank: operators and the "
                  "waits for peers inside them; open in ui.perfetto.dev or chrome://tracing)");
  add_timeline_ranks_option(sub, cmd->timeline_ranks);
  add_simulation_flags(sub, cmd->flags, true);
  sub->callback([cmd] { run_replay(*cmd); });
}

}  // namespace ccsim::cli
