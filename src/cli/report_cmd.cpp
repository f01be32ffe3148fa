#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "core/input_error.hpp"
#include "core/output_file.hpp"
#include "engine/replay.hpp"
#include "report/breakdown.hpp"
#include "report/comparison.hpp"
#include "report/document.hpp"
#include "report/figures.hpp"
#include "report/report_document.hpp"
#include "study/cost_study.hpp"
#include "study/job_facts.hpp"
#include "study/replay_job.hpp"
#include "topology/platform.hpp"
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

// The figures script and the interpreter that runs it ($CCSIM_PYTHON, else Debian's).
constexpr const char* kFigureScript = CCSIM_SOURCE_DIR "/scripts/report_figures.py";

std::string python_interpreter() {
  const char* env = std::getenv("CCSIM_PYTHON");
  return env && *env ? env : "/usr/bin/python3";
}

// Quoted for a POSIX shell when it holds anything but safe characters.
std::string shell_word(const std::string& word) {
  const bool safe = !word.empty() && word.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                         "-_./=:,+@%") == std::string::npos;
  if (safe) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The command line that made the report, as the user typed it ("ccsim" for the program's path).
std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> words;
  for (std::string word; std::getline(in, word, '\0');) words.push_back(word);
  if (words.empty()) return "ccsim report";
  std::string out = "ccsim";
  for (std::size_t i = 1; i < words.size(); ++i) out += " " + shell_word(words[i]);
  return out;
}

/// report.json, the data of the figures: the same JSON documents replay, compare and cost print.
std::string figures_data(const report::Breakdown& breakdown, const report::Comparison* comparison,
                         const study::CostStudy* cost) {
  nlohmann::ordered_json data;
  {
    std::ostringstream text;
    report::write_json(breakdown, text);
    data["breakdown"] = nlohmann::ordered_json::parse(text.str());
  }
  if (comparison) {
    std::ostringstream text;
    report::write_json(*comparison, text);
    data["comparison"] = nlohmann::ordered_json::parse(text.str());
  }
  if (cost) data["cost"] = nlohmann::ordered_json::parse(study::cost_json(*cost));
  return data.dump(2) + "\n";
}

/// The assumptions of the job: the trace, the platform, the --set settings and `setting_notes`.
std::vector<std::string> job_assumptions(const ReportCommand& cmd, const trace::Trace& trace,
                                         const topology::Platform& platform, const report::Breakdown& breakdown,
                                         const std::vector<std::string>& setting_notes) {
  std::vector<std::string> assumptions;
  assumptions.push_back(fmt::format("trace: {} ({}), {} ranks{}, {} pipeline stage(s)", trace.name, cmd.trace,
                                    breakdown.world_size, report::on_nodes(breakdown.nodes_used),
                                    breakdown.stage_count));
  assumptions.push_back(fmt::format("platform: {}: {}", platform.name, platform.description));
  for (std::string& setting : study::setting_assumptions(cmd.flags, setting_notes)) {
    assumptions.push_back(std::move(setting));
  }
  return assumptions;
}

void run_report(const ReportCommand& cmd) {
  const bool with_cost = cmd.cost.iterations > 0 || cmd.cost.tokens > 0;
  if (with_cost) study::check_cost_options(cmd.cost);
  if (cmd.output.empty() || cmd.output == "-") {
    throw InputError("command line", 0, "--output", fmt::format("expected a directory, got \"{}\"", cmd.output));
  }
  const std::filesystem::path dir(cmd.output);
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
    throw InputError("command line", 0, "--output",
                     fmt::format("expected a directory, got \"{}\" (a file)", cmd.output));
  }
  study::JobRequest request;
  request.runs = study::JobRuns::kPlainThenCompressed;
  request.before_replays = [&cmd, &dir](const study::ReplayJob&) {
    std::error_code error;
    if (!std::filesystem::create_directories(dir, error) && error) {
      throw InputError(cmd.output, 0, "--output", fmt::format("cannot create the directory: {}", error.message()));
    }
    // After the directory exists (a report file that is an input lies in a directory that did).
    for (const char* file : {"report.md", "report.html", "report.json"}) check_output_path((dir / file).string());
  };
  const study::JobReplays replays = study::replay_job(trace::read_native(cmd.trace), cmd.flags, request, data_lookup());
  const trace::Trace& trace = replays.job.trace;
  const topology::Platform& platform = replays.job.platform;
  const engine::Result& plain = replays.results.front();
  const bool compressed = replays.results.size() > 1;
  const engine::Result& packed = replays.last();

  report::BreakdownOptions view;
  view.key = rows_key(cmd.rows);
  const report::JobFacts facts = study::job_facts(trace, platform);
  report::Breakdown breakdown = report::make_breakdown(plain, view);
  breakdown.summary = report::make_summary(plain, facts);
  std::unique_ptr<report::Comparison> comparison;
  if (compressed) {
    comparison = std::make_unique<report::Comparison>(report::compare(plain, packed, view));
    comparison->a_summary = breakdown.summary;
    comparison->b_summary = report::make_summary(packed, facts);
  }
  std::unique_ptr<study::CostStudy> cost;
  if (with_cost)
    cost = std::make_unique<study::CostStudy>(study::study_cost(cmd.cost, trace, platform, replays.runs()));

  write_output((dir / "report.json").string(), figures_data(breakdown, comparison.get(), cost.get()));

  report::Figures figures;
  if (cmd.no_figures) {
    figures.skipped = "figures skipped: --no-figures";
  } else {
    figures = report::make_figures(dir, python_interpreter(), kFigureScript);
  }

  report::ReportContent content;
  content.title = fmt::format("ccsim report: {} on {}", trace.name, platform.name);
  content.command = command_line();
  content.breakdown = &breakdown;
  content.comparison = comparison.get();
  content.job_assumptions = job_assumptions(cmd, trace, platform, breakdown, replays.setting_notes);
  if (cost) {
    content.cost_assumptions = cost->assumptions;
    content.cost_sentence = fmt::format("{} ranks on {} node(s), {} iterations.", cost->ranks, cost->nodes,
                                        report::format_thousands(cost->iterations, 0));
    content.cost_rows = study::cost_rows(*cost);
  }
  content.figures = figures.images;
  content.figures_skipped = figures.skipped;
  const report::Document doc = report::report_document(content);

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
