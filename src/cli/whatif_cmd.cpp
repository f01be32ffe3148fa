#include <array>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/render.hpp"
#include "cli/simulation_flags.hpp"
#include "core/input_error.hpp"
#include "report/comparison.hpp"
#include "report/timeline.hpp"
#include "study/collective_study.hpp"
#include "study/collective_whatif.hpp"
#include "study/job_report.hpp"
#include "study/replay_job.hpp"
#include "study/sweep.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct WhatIfCommand {
  std::string trace;
  BreakdownFlags view;
  std::string collective;  ///< the collective-only mode: no trace
  std::string bytes;
  int ranks = 0;
  std::string dtype = "fp32";
  SimulationFlags flags;
  std::vector<std::string> replay_options_given;  ///< options of a trace replay given on the command line
};

/// Options that only a trace replay uses: the collective mode refuses them rather than ignore them.
constexpr std::array<const char*, 12> kReplayOnlyOptions = {
    "--rows",          "--per-rank", "--timeline", "--algo", "--placement",     "--oversubscribe",
    "--network-model", "--compute",  "--full",     "--fast", "--every-replica", "--simgrid-log"};

void run_trace(const WhatIfCommand& cmd) {
  study::JobRequest request;
  request.wait_spans = !cmd.view.timeline.empty();
  request.before_replays = [&cmd](const study::ReplayJob& job) {
    check_breakdown_outputs(cmd.view, job.trace.world_size);
  };
  const study::WhatIfReplays replays =
      study::replay_what_if(trace::read_native(cmd.trace), cmd.flags, request, data_lookup());
  const engine::Result& baseline = replays.baseline.last();
  const engine::Result& changed = replays.what_if.last();

  const report::Comparison comparison = study::what_if_comparison(replays, cmd.flags, breakdown_view(cmd.view));
  write_output(cmd.view.output, rendering(comparison, cmd.view.format));
  fmt::print(stderr, "{}",
             report::write_timeline_file(cmd.view.timeline, cmd.view.timeline_ranks,
                                         {{"baseline", &baseline}, {"what_if", &changed}}));
}

void run_collective(const WhatIfCommand& cmd) {
  if (cmd.flags.platform.empty())
    throw InputError("command line", 0, "--platform", "the collective mode needs --platform NAME|FILE");
  if (cmd.view.format == "csv")
    throw InputError("command line", 0, "--format", "the collective mode prints text or json, not csv");
  if (cmd.bytes.empty())
    throw InputError("command line", 0, "--bytes", "the collective mode needs --bytes SIZE, e.g. 256MiB");
  if (!cmd.replay_options_given.empty()) {
    const std::string& option = cmd.replay_options_given.front();
    throw InputError(
        "command line", 0, option,
        fmt::format("applies to the replay of a trace, not to the collective mode, which predicts every "
                    "algorithm of one collective by closed forms on --ranks ranks placed node-major{}",
                    option == "--network-model" ? " (with the calibrated network model the platform names)" : ""));
  }
  const study::CollectiveSize size = study::parse_collective_size(cmd.ranks, cmd.dtype, cmd.bytes);
  check_output_path(cmd.view.output);
  study::CollectiveWhatIf w = study::whatif_collective(cmd.flags, size.ranks, size.bytes, size.dtype, data_lookup());
  w.collective = cmd.collective;
  write_output(cmd.view.output,
               cmd.view.format == "json" ? study::collective_whatif_json(w) : study::collective_whatif_text(w));
}

void run_whatif(const WhatIfCommand& cmd) {
  if (!cmd.collective.empty()) {
    if (!cmd.trace.empty()) {
      throw InputError("command line", 0, "--collective", "give a TRACE or --collective, not both");
    }
    run_collective(cmd);
    return;
  }
  if (cmd.trace.empty()) {
    throw InputError("command line", 0, "TRACE",
                     "expected a trace file, or --collective all_reduce --bytes SIZE --ranks N");
  }
  if (cmd.flags.settings.empty()) {
    throw InputError("command line", 0, "--set",
                     "expected at least one --set KEY=VALUE: the change to compare against the baseline");
  }
  run_trace(cmd);
}

}  // namespace

void setup_whatif(CLI::App& app) {
  auto cmd = std::make_shared<WhatIfCommand>();
  CLI::App* sub = app.add_subcommand(
      "whatif",
      "Replay a trace as it is (baseline) and with the changes of --set KEY=VALUE (what if), and print both "
      "breakdowns side by side with the change of the iteration time; or, with --collective, the predicted time of "
      "every algorithm of one collective on a platform");
  sub->add_option("trace", cmd->trace, "Trace file in the native format (traces/README.md)");
  add_breakdown_flags(sub, cmd->view,
                      {"Output format: text table, csv or json (csv: traces only)",
                       "Write the result to this file instead of stdout ('-')", "", "Also compare rank by rank"});
  add_timeline_flags(sub, cmd->view,
                     "Also write Chrome/Perfetto trace events of both replays here (operators and the waits for peers "
                     "inside them; open in ui.perfetto.dev or chrome://tracing)");
  sub->add_option("--collective", cmd->collective,
                  "Instead of a trace: one collective on --ranks ranks of --bytes, every algorithm's predicted time "
                  "and bus bandwidth (closed forms), nccl-tests style")
      ->check(one_of({"all_reduce"}));
  sub->add_option("--bytes", cmd->bytes, "The collective's buffer, e.g. 256MiB");
  sub->add_option("--ranks", cmd->ranks, "The collective's group size, placed node-major on the platform");
  sub->add_option("--dtype", cmd->dtype, "The collective's element type")->capture_default_str();
  add_simulation_flags(sub, cmd->flags, true);
  sub->callback([cmd, sub] {
    cmd->replay_options_given.clear();
    for (const char* name : kReplayOnlyOptions) {
      if (sub->get_option(name)->count() > 0) cmd->replay_options_given.emplace_back(name);
    }
    run_whatif(*cmd);
  });
}

}  // namespace ccsim::cli
