#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "core/command_line.hpp"
#include "core/output_file.hpp"
#include "report/document.hpp"
#include "report/figures.hpp"
#include "study/cost_study.hpp"
#include "study/job_report.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct ReportCommand {
  std::string trace;
  std::string output;
  bool no_figures = false;
  /// The breakdown's rows: by name by default (the report's size grows with a job's distinct
  /// operators, not with its micro-batches), 'operator' for program order.
  std::string rows = "name";
  study::CostOptions cost;
  SimulationFlags flags;
};

// The figures script, run by report::figures_python().
constexpr const char* kFigureScript = CCSIM_SOURCE_DIR "/scripts/report_figures.py";

void run_report(const ReportCommand& cmd) {
  const bool with_cost = cmd.cost.iterations > 0 || cmd.cost.tokens > 0;
  if (with_cost) study::check_cost_options(cmd.cost);
  check_output_directory(cmd.output);
  const std::filesystem::path dir(cmd.output);
  study::JobRequest request;
  request.runs = study::JobRuns::kPlainThenCompressed;
  request.before_replays = [&cmd](const study::ReplayJob&) {
    create_output_directory(cmd.output, {"report.md", "report.html", "report.json"});
  };
  const study::JobReplays replays = study::replay_job(trace::read_native(cmd.trace), cmd.flags, request, data_lookup());
  study::JobReportOptions options;
  options.trace_file = cmd.trace;
  options.rows = report::row_key_of(cmd.rows);
  if (with_cost) options.cost = cmd.cost;
  const study::JobReport job_report = study::job_report(replays, cmd.flags, options);
  write_output((dir / "report.json").string(), study::job_report_json(job_report));

  report::Figures figures;
  if (cmd.no_figures) {
    figures.skipped = "figures skipped: --no-figures";
  } else {
    figures = report::make_figures(dir, report::figures_python(), kFigureScript);
  }
  const report::Document doc =
      report::report_document(study::report_content(job_report, own_command_line("ccsim", "ccsim report"), figures));

  write_output((dir / "report.md").string(), doc.markdown());
  write_output((dir / "report.html").string(), doc.html());
  write_stdout(fmt::format("wrote {}, {}{}\n", (dir / "report.md").string(), (dir / "report.html").string(),
                           figures.images.empty() ? fmt::format(" ({})", figures.skipped)
                                                  : fmt::format(" and {} figure(s)", figures.images.size())));
}

}  // namespace

void setup_report(CLI::App& app) {
  auto cmd = std::make_shared<ReportCommand>();
  CLI::App* sub = app.add_subcommand(
      "report",
      "Replay a trace (plain, and compressed with --compress) and write DIR/report.md and DIR/report.html: "
      "breakdowns, plain vs compressed, cost, every assumption, the command line, and figures as PNG");
  sub->add_option("trace", cmd->trace, "Trace file in the native format (traces/README.md)")->required();
  sub->add_option("-o,--output", cmd->output, "Directory to write the report into (created if missing)")->required();
  sub->add_flag("--no-figures", cmd->no_figures, "Do not run scripts/report_figures.py (matplotlib)");
  sub->add_option("--rows", cmd->rows,
                  "'name' (default): one row per operator name and label per stage, summed over its calls, so that "
                  "the report stays small at any number of micro-batches; 'operator': one row per operator of the "
                  "iteration in program order (the published form; large for long pipelines); " +
                      std::string(kRowsKindHelp))
      ->check(one_of({"operator", "name", "kind"}))
      ->capture_default_str();
  add_cost_options(sub, cmd->cost);
  add_simulation_flags(sub, cmd->flags, true);
  sub->callback([cmd] { run_report(*cmd); });
}

}  // namespace ccsim::cli
