#include <iostream>
#include <memory>
#include <string>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/render.hpp"
#include "cli/simulation_flags.hpp"
#include "engine/result.hpp"
#include "import/kineto_report.hpp"
#include "import/kineto_run.hpp"
#include "report/breakdown.hpp"
#include "study/job_facts.hpp"
#include "study/measured_result.hpp"
#include "study/synth_job.hpp"
#include "synth/job_options.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"
#include "trace/native_writer.hpp"

namespace ccsim::cli {
namespace {

struct SynthCommand {
  study::SynthRequest request;
  std::string output = "-";
  int format_version = trace::kNativeVersion;
};

void run_synth(const SynthCommand& cmd) {
  const study::SynthTrace synthesized = study::synth_trace(cmd.request, data_lookup());
  std::ostringstream text;
  trace::write_native(synthesized.job.trace, text, cmd.format_version);
  write_output(cmd.output, text.str());
  std::cerr << synthesized.report + (cmd.output != "-" ? fmt::format("wrote {}\n", cmd.output) : "");
}

/// Registers the options of synth::job_options() on `synth`, bound to `job`.
void add_job_options(CLI::App* synth, synth::JobOptions& job) {
  for (const synth::JobOption& option : synth::job_options()) {
    const std::string name = fmt::format("--{}", option.name);
    const std::string help(option.help);
    CLI::Option* added = nullptr;
    switch (option.kind) {
      case synth::JobOptionKind::kInteger:
        added = synth->add_option(name, option.integer(job), help);
        if (option.parser_checks_range) added->check(CLI::Range(option.min, option.max));
        break;
      case synth::JobOptionKind::kNumber:
        added = synth->add_option(name, option.number(job), help);
        break;
      case synth::JobOptionKind::kFlag:
        if (option.flag_value) {
          added = synth->add_flag(name, option.flag(job), help);
        } else {
          added = synth->add_flag(
              name, [&option, &job](std::int64_t) { option.flag(job) = option.flag_value; }, help);
        }
        break;
      case synth::JobOptionKind::kChoice:
        added = synth->add_option_function<std::string>(
            name, [&option, &job](const std::string& text) { synth::set_job_option(job, option, text); }, help);
        // Checked before the callback: set_job_option takes the value.
        added->check(one_of({option.choices.begin(), option.choices.end()}));
        added->default_str(std::string(option.chosen(job)));
        break;
    }
    if (option.show_default) added->capture_default_str();
  }
}

struct ImportCommand {
  std::vector<std::string> inputs;
  std::string output = "-";
  std::string name;
  std::string summary;
  int iteration = -1;
  std::string hardware;  ///< PLATFORM|FILE whose accelerator measured the profile; empty: from summary.json
};

void run_import(const ImportCommand& cmd) {
  import::KinetoRequest request{cmd.inputs, cmd.output, cmd.name, cmd.summary, cmd.iteration, {}};
  if (!cmd.hardware.empty()) {
    request.hardware = [&cmd] {
      return study::accelerator_hardware(read_named_platform(cmd.hardware), "--hardware " + cmd.hardware);
    };
  }
  const import::KinetoRun run = import::import_kineto_run(request);
  const import::KinetoImport& imported = run.imported;

  std::ostringstream text;
  trace::write_native(imported.trace, text, 1);  // one program per rank: version 2 would not be smaller
  write_output(cmd.output, text.str());

  const trace::Trace& t = imported.trace;
  std::string report = fmt::format("trace import kineto: {} ranks, {}, {} operators, groups:", t.world_size,
                                   imported.ranks.front().iteration, t.op_count());
  for (const auto& g : t.groups)
    report += fmt::format(" {} ({} {})", g.name, trace::group_kind_name(g.kind), report::format_ranks(g.ranks));
  report += "\n" + import::check_report(run);
  if (cmd.output != "-") report += fmt::format("wrote {}\n", cmd.output);
  std::cerr << report;
}

struct InspectCommand {
  std::string trace;
  std::string format = "text";
  std::string rows = "name";
  bool per_rank = false;
};

void run_inspect(const InspectCommand& cmd) {
  const trace::Trace t = trace::read_native(cmd.trace);
  const engine::Result result = study::measured_result(t);
  report::BreakdownOptions view;
  view.key = report::row_key_of(cmd.rows);
  view.per_rank = cmd.per_rank;
  view.ranks_on_demand = true;  // each rank's table made as it is written: never all in memory
  const report::Breakdown breakdown = report::make_breakdown(result, view);
  write_output("-", rendering(breakdown, cmd.format));
}

}  // namespace

/// Long: every option of trace's subcommands, in the order --help prints them.
void setup_trace(CLI::App& app) {
  CLI::App* trace = app.add_subcommand("trace", "Make and inspect traces");
  trace->require_subcommand(1);
  auto cmd = std::make_shared<SynthCommand>();
  CLI::App* synth = trace->add_subcommand(
      "synth", "Write the trace one training iteration of a Megatron-style job would produce (FLOPs, bytes, messages)");
  synth
      ->add_option("--model", cmd->request.model,
                   "Model preset (gpt3-175b, llama2-7b/13b/70b, llama3-8b/70b, small-gpt) or file")
      ->required();
  add_job_options(synth, cmd->request.job);
  synth->add_option("--platform", cmd->request.platform, "Platform the job runs on (NAME|FILE)")->required();
  synth->add_option("--set", cmd->request.settings,
                    "Change the platform for this job, KEY=VALUE as for replay (repeatable; e.g. nodes=1280 for "
                    "10,240 accelerators on dgx-h100-superpod): the ranks and the memory are checked against it, and "
                    "the replay needs the same settings");
  synth->add_option("-o,--output", cmd->output, "Trace file to write ('-': stdout)")->capture_default_str();
  synth
      ->add_option("--format-version", cmd->format_version,
                   "Native trace version: 2 (one program per class of identical ranks) or 1 (one per rank)")
      ->check(one_of({"1", "2"}))
      ->capture_default_str();
  synth->callback([cmd] { run_synth(*cmd); });

  CLI::App* import_parent = trace->add_subcommand("import", "Convert profiler traces into a native trace");
  import_parent->require_subcommand(1);
  auto imp = std::make_shared<ImportCommand>();
  CLI::App* kineto = import_parent->add_subcommand(
      "kineto",
      "PyTorch profiler (Chrome/Kineto JSON) traces, one rank<N>.json per rank, to a native trace of one iteration; "
      "prints the check against the measured iteration time and summary.json (stderr)");
  kineto->add_option("inputs", imp->inputs, "A directory of rank<N>.json files, or the rank files")->required();
  kineto->add_option("-o,--output", imp->output, "Trace file to write ('-': stdout)")->capture_default_str();
  kineto->add_option("--iteration", imp->iteration, "Import Iteration#K (default: the first profiled iteration)")
      ->check(CLI::NonNegativeNumber);
  kineto->add_option("--name", imp->name, "Trace name (default: the output file's stem)");
  kineto->add_option("--summary", imp->summary,
                     "summary.json to check against (default: the one next to the rank files)");
  kineto->add_option(
      "--hardware", imp->hardware,
      "Platform (NAME|FILE) whose accelerator the profile was measured on: recorded as the trace's "
      "hardware (name, peak FLOP/s, memory bandwidth); default: the CPU that summary.json names, without "
      "peak rates");
  kineto->callback([imp] { run_import(*imp); });

  auto ins = std::make_shared<InspectCommand>();
  CLI::App* inspect = trace->add_subcommand(
      "inspect", "Per-operator breakdown of a native trace's own measured durations, in the table form of replay");
  inspect->add_option("trace", ins->trace, "Trace file in the native format")->required();
  inspect->add_option("-f,--format", ins->format, "Output format: text table, csv or json")
      ->check(one_of({"text", "csv", "json"}))
      ->capture_default_str();
  inspect
      ->add_option("--rows", ins->rows,
                   "'name': one row per operator name and label, summed; 'operator': program order")
      ->check(one_of({"operator", "name"}))
      ->capture_default_str();
  inspect->add_flag("--per-rank", ins->per_rank, "Also print one table per rank");
  inspect->callback([ins] { run_inspect(*ins); });
}

}  // namespace ccsim::cli
