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
#include "study/job_report.hpp"
#include "study/replay_job.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct ReplayCommand {
  std::string trace;
  BreakdownFlags view;
  SimulationFlags flags;
};

void run_replay(const ReplayCommand& cmd) {
  study::JobRequest request;
  request.wait_spans = !cmd.view.timeline.empty();
  request.note_settings = true;
  request.before_replays = [&cmd](const study::ReplayJob& job) {
    check_breakdown_outputs(cmd.view, job.trace.world_size);
  };
  const study::JobReplays replays = study::replay_job(trace::read_native(cmd.trace), cmd.flags, request, data_lookup());
  const engine::Result& result = replays.last();

  Phase phase("writing the report", "");
  const report::Breakdown breakdown = study::job_breakdown(replays.job, result, breakdown_view(cmd.view));
  write_output(cmd.view.output, rendering(breakdown, cmd.view.format));
  fmt::print(stderr, "{}", report::write_timeline_file(cmd.view.timeline, cmd.view.timeline_ranks, {{"", &result}}));
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
  add_breakdown_flags(
      sub, cmd->view,
      {"Output format: text table, csv or json", "Write the breakdown to this file instead of stdout ('-')",
       "'operator': one row per operator of the iteration in program order (the published form); "
       "'name': one row per operator name and label, summed; " +
           std::string(kRowsKindHelp),
       "Also print one table per rank (default: per pipeline stage only)"});
  add_timeline_flags(sub, cmd->view,
                     "Also write Chrome/Perfetto trace events of the replay here (one process per rank: operators and "
                     "the waits for peers inside them; open in ui.perfetto.dev or chrome://tracing)");
  add_simulation_flags(sub, cmd->flags, true);
  sub->callback([cmd] { run_replay(*cmd); });
}

}  // namespace ccsim::cli
