#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
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
#include "study/cost_study.hpp"
#include "study/job_facts.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"

extern char** environ;

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

// The figures script, its outputs and the interpreter that runs it ($CCSIM_PYTHON, else Debian's).
constexpr const char* kFigureScript = CCSIM_SOURCE_DIR "/scripts/report_figures.py";
constexpr int kFiguresMissingModule = 3;  // report_figures.py: matplotlib cannot be imported

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

std::string ms(double s) { return fmt::format("{:.3f}", s * 1e3); }
std::string ratio(double plain_s, double compressed_s) {
  return compressed_s > 0 ? fmt::format("{:.3f}x", plain_s / compressed_s) : std::string("-");
}

struct Figures {
  std::vector<std::pair<std::string, std::string>> images;  ///< file name, caption
  std::string skipped;                                      ///< why not, when there are none
};

// Runs report_figures.py on DIR/report.json; it writes PNGs into DIR and prints "FILE<TAB>caption" per figure.
Figures make_figures(const std::filesystem::path& dir) {
  Figures figures;
  const std::string python = python_interpreter();
  const std::filesystem::path log = dir / ".figures.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const std::string json = (dir / "report.json").string();
  const std::string out_dir = dir.string();
  std::vector<char*> argv{const_cast<char*>(python.c_str()), const_cast<char*>(kFigureScript),
                          const_cast<char*>(json.c_str()), const_cast<char*>(out_dir.c_str()), nullptr};
  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawn_error == 0) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  in.close();
  std::error_code ignored;
  std::filesystem::remove(log, ignored);
  const std::string last = lines.empty() ? std::string() : lines.back();
  if (spawn_error != 0) {
    figures.skipped = fmt::format("figures skipped: cannot run {}: {}", python, std::strerror(spawn_error));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    figures.skipped = fmt::format("figures skipped: cannot run {} (not found)", python);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kFiguresMissingModule) {
    figures.skipped = fmt::format("figures skipped: {}", last);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    figures.skipped =
        fmt::format("figures skipped: {} {} failed ({}){}", python, kFigureScript,
                    WIFEXITED(status) ? fmt::format("exit {}", WEXITSTATUS(status)) : std::string("killed by a signal"),
                    last.empty() ? std::string() : ": " + last);
  } else {
    for (const std::string& line : lines) {
      const auto tab = line.find('\t');
      if (tab != std::string::npos) figures.images.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    }
    if (figures.images.empty()) figures.skipped = "figures skipped: report_figures.py made none";
  }
  return figures;
}

void add_plain_tables(report::Document& doc, const report::Breakdown& b) {
  for (const report::Table& t : b.tables) {
    doc.heading(3, t.scope == "stage" ? fmt::format("Pipeline stage {} (ranks {})", t.id, report::format_ranks(t.ranks))
                                      : fmt::format("Rank {}", t.id));
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const report::Row& r = t.rows[i];
      rows.push_back(
          {std::to_string(i + 1), r.name, r.label, ms(r.time_s), fmt::format("{:.2f}", r.share * 100), r.algorithm});
    }
    rows.push_back({"", "total", "", ms(t.total_s), "100.00", ""});
    doc.table({"#", "operator", "label", "time ms", "share %", "algorithm"}, std::move(rows),
              {true, false, false, true, true, false});
  }
}

void add_compared_tables(report::Document& doc, const report::Comparison& c) {
  for (const report::ComparedTable& t : c.tables) {
    doc.heading(3, t.scope == "stage" ? fmt::format("Pipeline stage {} (ranks {})", t.id, report::format_ranks(t.ranks))
                                      : fmt::format("Rank {}", t.id));
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const report::ComparedRow& r = t.rows[i];
      rows.push_back({std::to_string(i + 1), r.name, r.label, ms(r.plain_s), ms(r.compressed_s),
                      r.is_collective() ? ratio(r.plain_s, r.compressed_s) : "", r.plain_algorithm,
                      r.compressed_algorithm,
                      report::format_error(r.error_worst_eb, r.error_expected_eb, c.error_bound_abs)});
    }
    rows.push_back({"", "total", "", ms(t.plain_total_s), ms(t.compressed_total_s),
                    ratio(t.plain_total_s, t.compressed_total_s), "", "", ""});
    doc.table({"#", "operator", "label", "plain ms", "compressed ms", "speedup", "plain algorithm",
               "compressed algorithm", "error"},
              std::move(rows), {true, false, false, true, true, true, false, false, false});
  }
}

// Time per operator kind (name), summed over a stage's rows: what the stacked-bar figure shows
// (scripts/report_figures.py). A send, receive or collective counts its transfer under its kind
// and its wait for peers (the pipeline bubble, a late member) under kWaiting.
constexpr const char* kWaiting = "waiting for peers";

void add_kind_table(report::Document& doc, const report::Comparison* c, const report::Breakdown& b) {
  doc.paragraph(
      "Summed over each stage's operators, mean over its ranks. Sends, receives and collectives count their "
      "transfers; the time they wait for peers (the pipeline bubble, a late member) is \"waiting for peers\". "
      "Operators of streams that overlap count once each.");
  std::vector<std::vector<std::string>> rows;
  if (c) {
    for (const report::ComparedTable& t : c->tables) {
      std::map<std::string, std::pair<double, double>> kinds;
      for (const report::ComparedRow& r : t.rows) {
        kinds[r.name].first += r.plain_s - r.plain_wait_s;
        kinds[r.name].second += r.compressed_s - r.compressed_wait_s;
        if (r.plain_wait_s > 0 || r.compressed_wait_s > 0) {
          kinds[kWaiting].first += r.plain_wait_s;
          kinds[kWaiting].second += r.compressed_wait_s;
        }
      }
      for (const auto& [kind, s] : kinds) {
        rows.push_back({fmt::format("{} {}", t.scope, t.id), kind, ms(s.first), ms(s.second)});
      }
    }
    doc.table({"scope", "operator kind", "plain ms", "compressed ms"}, std::move(rows), {false, false, true, true});
  } else {
    for (const report::Table& t : b.tables) {
      std::map<std::string, double> kinds;
      for (const report::Row& r : t.rows) {
        kinds[r.name] += r.time_s - r.wait_s;
        if (r.wait_s > 0) kinds[kWaiting] += r.wait_s;
      }
      for (const auto& [kind, s] : kinds) rows.push_back({fmt::format("{} {}", t.scope, t.id), kind, ms(s)});
    }
    doc.table({"scope", "operator kind", "time ms"}, std::move(rows), {false, false, true});
  }
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
  trace::Trace trace = trace::read_native(cmd.trace);
  const topology::Platform platform = load_platform(cmd.flags, trace);
  engine::ReplayOptions compressed_options = replay_options(cmd.flags, platform);
  // both replays share the adjusted trace
  const calibrate::ComputeAdjustment compute = apply_compute_flag(cmd.flags, trace, platform, compressed_options);
  if (!std::filesystem::create_directories(dir, ec) && ec) {
    throw InputError(cmd.output, 0, "--output", fmt::format("cannot create the directory: {}", ec.message()));
  }
  // After the directory exists (a report file that is an input lies in a directory that did).
  for (const char* file : {"report.md", "report.html", "report.json"}) check_output_path((dir / file).string());

  engine::ReplayOptions plain_options = compressed_options;
  plain_options.compression = engine::CompressionOptions{};
  const bool compressed = compressed_options.compression.enabled();
  const engine::Result plain = engine::replay(trace, platform, plain_options);
  engine::Result packed;
  if (compressed) packed = engine::replay(trace, platform, compressed_options);

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
  std::vector<std::pair<std::string, const engine::Result*>> runs{{"plain", &plain}};
  if (compressed) runs.emplace_back("compressed", &packed);
  std::unique_ptr<study::CostStudy> cost;
  if (with_cost) cost = std::make_unique<study::CostStudy>(study::study_cost(cmd.cost, trace, platform, runs));

  // The data of the figures: the same JSON documents replay, compare and cost print.
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
  write_output((dir / "report.json").string(), data.dump(2) + "\n");

  Figures figures;
  if (cmd.no_figures) {
    figures.skipped = "figures skipped: --no-figures";
  } else {
    figures = make_figures(dir);
  }

  report::Document doc(fmt::format("ccsim report: {} on {}", trace.name, platform.name));
  doc.paragraph("Made by this command (from the directory it ran in):");
  doc.code(command_line());

  doc.heading(2, "Summary");
  {
    // The block replay, compare and cost print first (docs/summary.md defines each figure).
    std::ostringstream block;
    std::vector<std::pair<std::string, const report::Summary*>> runs{{comparison ? "plain" : "", &*breakdown.summary}};
    if (comparison) runs.emplace_back("compressed", &*comparison->b_summary);
    report::write_summary_text(runs, block);
    std::string text = block.str();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    doc.code(text);
  }
  std::vector<std::vector<std::string>> summary;
  if (comparison) {
    summary.push_back({"whole trace", ms(comparison->plain_makespan_s), ms(comparison->compressed_makespan_s),
                       ratio(comparison->plain_makespan_s, comparison->compressed_makespan_s)});
    for (const report::ComparedTable& t : comparison->tables) {
      summary.push_back({fmt::format("{} {} (mean over its ranks)", t.scope, t.id), ms(t.plain_total_s),
                         ms(t.compressed_total_s), ratio(t.plain_total_s, t.compressed_total_s)});
    }
    doc.table({"", "plain ms", "compressed ms", "speedup"}, std::move(summary), {false, true, true, true});
  } else {
    summary.push_back({"whole trace", ms(breakdown.makespan_s)});
    for (const report::Table& t : breakdown.tables) {
      summary.push_back({fmt::format("{} {} (mean over its ranks)", t.scope, t.id), ms(t.total_s)});
    }
    doc.table({"", "plain ms"}, std::move(summary), {false, true});
    doc.paragraph("No compressor given (--compress NAME[:key=value,...]): the plain run only.");
  }
  doc.paragraph(
      fmt::format("The whole trace: {}. The whole trace is the slowest rank's end; a stage's time is the mean "
                  "over its ranks.",
                  report::format_span(breakdown.makespan_s, breakdown.iterations)));

  doc.heading(2, "Assumptions");
  std::vector<std::string> assumptions;
  assumptions.push_back(fmt::format("trace: {} ({}), {} ranks{}, {} pipeline stage(s)", trace.name, cmd.trace,
                                    breakdown.world_size, report::on_nodes(breakdown.nodes_used),
                                    breakdown.stage_count));
  assumptions.push_back(fmt::format("platform: {}: {}", platform.name, platform.description));
  for (const std::string& setting : cmd.flags.settings) assumptions.push_back(fmt::format("set: {} (--set)", setting));
  for (const std::string& idle : setting_notes(cmd.flags, trace, platform, compressed ? packed : plain, compute)) {
    assumptions.push_back("set: " + idle);
  }
  assumptions.push_back(fmt::format("network: {}", breakdown.network_model));
  if (!plain.compute.empty()) assumptions.push_back(fmt::format("compute: {}", plain.compute));
  if (!breakdown.placement.empty()) assumptions.push_back(fmt::format("placement: {}", breakdown.placement));
  assumptions.push_back(fmt::format("plain collectives: {}", breakdown.algorithm));
  if (comparison) {
    assumptions.push_back(fmt::format("compressed collectives: {}; compression: {}", comparison->compressed_algorithms,
                                      comparison->compression));
    if (std::isfinite(comparison->error_bound_abs)) {
      assumptions.push_back(
          fmt::format("error: worst / expected absolute error of a result (eb = {:.3g})", comparison->error_bound_abs));
    } else if (std::isnan(comparison->error_bound_abs)) {
      assumptions.push_back("error: worst / expected in units of eb, the error bound of one compression");
    } else {
      assumptions.push_back("error: the compressor has no error bound");
    }
    for (const std::string& note : comparison->notes) assumptions.push_back(fmt::format("note: {}", note));
  } else {
    for (const std::string& note : breakdown.notes) assumptions.push_back(fmt::format("note: {}", note));
  }
  assumptions.push_back("times: simulated by SimGrid (contention, overlap, topology), deterministic");
  if (cost) {
    for (const std::string& a : cost->assumptions) {
      if (!a.starts_with("network:") && !a.starts_with("compute:")) assumptions.push_back("cost: " + a);  // said above
    }
  }
  doc.list(std::move(assumptions));

  doc.heading(2, "Time per operator kind");
  add_kind_table(doc, comparison.get(), breakdown);

  doc.heading(2, comparison ? "Breakdown, plain and compressed" : "Breakdown");
  if (comparison) {
    add_compared_tables(doc, *comparison);
  } else {
    add_plain_tables(doc, breakdown);
  }

  doc.heading(2, "Cost");
  if (cost) {
    doc.paragraph(fmt::format("{} ranks on {} node(s), {} iterations.", cost->ranks, cost->nodes,
                              report::format_thousands(cost->iterations, 0)));
    std::vector<std::string> header{"", "plain"};
    std::vector<bool> numeric{false, true};
    if (comparison) {
      header.insert(header.end(), {"compressed", "saving"});
      numeric.insert(numeric.end(), {true, true});
    }
    doc.table(std::move(header), study::cost_rows(*cost), std::move(numeric));
  } else {
    doc.paragraph(
        "Not computed: give --iterations N, or --tokens N with --tokens-per-iteration (and --price, --power).");
  }

  doc.heading(2, "Figures");
  if (figures.images.empty()) {
    doc.paragraph(figures.skipped);
  } else {
    for (const auto& [file, caption] : figures.images) doc.image(file, caption);
  }
  doc.paragraph("The figures' data: report.json (the JSON of replay, compare and cost).");

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
