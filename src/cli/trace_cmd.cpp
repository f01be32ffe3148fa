#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "synth/megatron.hpp"
#include "topology/platform.hpp"
#include "trace/native_writer.hpp"
#include "trace/validate.hpp"

namespace ccsim::cli {
namespace {

struct SynthCommand {
  std::string model;
  synth::Parallelism par;
  std::string schedule = "1f1b";
  std::string platform;
  std::string output = "-";
};

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024)); }

void run_synth(SynthCommand cmd) {
  if (cmd.model.empty()) throw InputError("command line", 0, "--model", "expected a model preset or file, got \"\"");
  if (cmd.platform.empty()) throw InputError("command line", 0, "--platform", "expected a platform NAME|FILE, got \"\"");
  const synth::ModelSpec model = synth::load_model(cmd.model);
  cmd.par.schedule = cmd.schedule == "gpipe" ? synth::PipelineSchedule::kGpipe : synth::PipelineSchedule::k1F1B;
  // The platform must exist and hold the job: the trace names it and the engine times the
  // operators' FLOPs and bytes with its rates.
  const topology::Platform platform = topology::read_platform(topology::find_platform(cmd.platform, platform_dirs()));
  synth::check_parallelism(model, cmd.par);
  const trace::Trace trace = synth::synthesize(model, cmd.par, cmd.platform);
  trace::validate(trace);

  std::ostringstream text;
  trace::write_native(trace, text);
  write_output(cmd.output, text.str());

  const synth::Memory memory = synth::memory_per_accelerator(model, cmd.par);
  const synth::MessageSizes sizes = synth::message_sizes(model, cmd.par);
  std::string report = fmt::format("trace synth: {} ({:.3f} B parameters), {} ranks = TP {} x PP {} x DP {}{} on {}\n",
                                   model.name, model.total_params() / 1e9, trace.world_size, cmd.par.tp, cmd.par.pp,
                                   cmd.par.dp, cmd.par.sp ? " (sequence parallel)" : "", cmd.platform);
  report += fmt::format("  per accelerator (first stage): {:.3f} B parameters; model states {} (mixed-precision Adam, "
                        "ZeRO {}), activations {} ({} micro-batches in flight, no recomputation): {}\n",
                        memory.params_per_rank / 1e9, gib(memory.model_states), cmd.par.zero, gib(memory.activations),
                        cmd.par.schedule == synth::PipelineSchedule::kGpipe ? cmd.par.micro_batches
                                                                            : std::min(cmd.par.pp, cmd.par.micro_batches),
                        gib(memory.total()));
  report += fmt::format("  messages: TP collective {}, pipeline {}, DP gradients {} ({})\n", format_bytes(sizes.tp),
                        format_bytes(sizes.pp), format_bytes(sizes.dp_grads), dtype_name(sizes.grad_dtype));
  report += fmt::format("  {} operators; compute has FLOPs and bytes, no durations: the platform's rates time it\n",
                        trace.op_count());
  if (cmd.output != "-") report += fmt::format("wrote {}\n", cmd.output);
  std::cerr << report;
}

}  // namespace

void setup_trace(CLI::App& app) {
  CLI::App* trace = app.add_subcommand("trace", "Make and inspect traces");
  trace->require_subcommand(1);
  auto cmd = std::make_shared<SynthCommand>();
  CLI::App* synth = trace->add_subcommand(
      "synth", "Write the trace one training iteration of a Megatron-style job would produce (FLOPs, bytes, messages)");
  synth->add_option("--model", cmd->model, "Model preset (gpt3-175b, llama2-7b/13b/70b, llama3-8b/70b, small-gpt) or file")
      ->required();
  synth->add_option("--tp", cmd->par.tp, "Tensor-parallel size")->capture_default_str();
  synth->add_option("--pp", cmd->par.pp, "Pipeline stages")->capture_default_str();
  synth->add_option("--dp", cmd->par.dp, "Data-parallel replicas")->capture_default_str();
  synth->add_flag("--sp", cmd->par.sp, "Sequence parallelism over the TP group");
  synth->add_option("--micro-batches", cmd->par.micro_batches, "Micro-batches per iteration and replica")->capture_default_str();
  synth->add_option("--micro-batch-size", cmd->par.micro_batch_size, "Sequences per micro-batch")->capture_default_str();
  synth->add_option("--seq", cmd->par.seq, "Sequence length (default: the model's)");
  synth->add_option("--schedule", cmd->schedule, "Pipeline schedule")
      ->check(CLI::IsMember({"gpipe", "1f1b"}))
      ->capture_default_str();
  synth->add_option("--zero", cmd->par.zero, "ZeRO stage: 0, 1, 2 or 3")->capture_default_str();
  synth->add_option("--platform", cmd->platform, "Platform the job runs on (NAME|FILE)")->required();
  synth->add_option("-o,--output", cmd->output, "Trace file to write ('-': stdout)")->capture_default_str();
  synth->callback([cmd] { run_synth(*cmd); });
}

}  // namespace ccsim::cli
