#include "synth/job.hpp"

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "trace/validate.hpp"

namespace ccsim::synth {
namespace {

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024)); }

}  // namespace

std::optional<MemoryFit> check_job(const ModelSpec& model, const Parallelism& par, const Machine& machine) {
  check_parallelism(model, par);
  if (!machine.cpu_core) check_ranks_fit(par, machine.name, machine.nodes, machine.accelerators_per_node);
  if (machine.memory_bytes <= 0) return std::nullopt;
  return check_memory(model, par, machine.memory_bytes, machine.accelerator);
}

Job synthesize_job(const ModelSpec& model, const Parallelism& par, const Machine& machine, const std::string& platform,
                   bool allow_oversize) {
  Job job;
  job.memory = check_job(model, par, machine);
  if (job.memory) {
    if (!job.memory->fits && !allow_oversize) {
      throw InputError("command line", 0, "--allow-oversize",
                       job.memory->message + " (--allow-oversize writes the trace anyway)");
    }
  }
  job.trace = synthesize(model, par, platform);
  trace::validate(job.trace);
  return job;
}

std::string describe_job(const ModelSpec& model, const Parallelism& par, const Job& job, const std::string& platform) {
  const Memory memory = memory_per_accelerator(model, par);
  const MessageSizes sizes = message_sizes(model, par);
  std::string out = fmt::format("trace synth: {} ({:.3f} B parameters), {} ranks = TP {} x PP {} x DP {}{} on {}\n",
                                model.name, model.total_params() / 1e9, job.trace.world_size, par.tp, par.pp, par.dp,
                                par.sp ? " (sequence parallel)" : "", platform);
  const std::vector<int> layers = stage_layers(model, par);
  if (model.layers % par.pp != 0 || par.first_stage_layers > 0 || par.last_stage_layers > 0) {
    out += fmt::format("  layers per stage: {}\n", format_stage_layers(layers));
  }
  out += fmt::format(
      "  per accelerator (stage {} of {} layers, the fullest): {:.3f} B parameters; model states {} "
      "(mixed-precision Adam, ZeRO {}), activations {} ({:.4g} micro-batches in flight, {}): {}\n",
      memory.stage, memory.layers, memory.params_per_rank / 1e9, gib(memory.model_states), par.zero,
      gib(memory.activations), micro_batches_in_flight(par, memory.stage),
      par.recompute == Recompute::kNone ? std::string("no recomputation")
                                        : fmt::format("{} recomputation", recompute_name(par.recompute)),
      gib(memory.total()));
  out += fmt::format("  messages: TP collective {}, pipeline {}, DP gradients {} ({}){}\n", format_bytes(sizes.tp),
                     format_bytes(sizes.pp), format_bytes(sizes.dp_grads), dtype_name(sizes.grad_dtype),
                     par.overlap_grad_reduce && par.dp > 1
                         ? fmt::format(" in buckets of {:.4g} M parameters on stream 1, overlapping the last backward",
                                       par.bucket() / 1e6)
                         : "");
  out += fmt::format(
      "  {} operators ({} in {} programs shared by identical ranks); compute has FLOPs and bytes, no "
      "durations: the platform's rates time it\n",
      job.trace.op_count(), job.trace.program_op_count(), job.trace.programs.size());
  return out;
}

std::string memory_note(const Job& job, const Machine& machine) {
  if (!job.memory) {
    return fmt::format(
        "  note: platform \"{}\" gives no accelerator memory (memory_bytes): the memory check is skipped\n",
        machine.name);
  }
  if (!job.memory->fits) return "  warning: " + job.memory->message + "; written anyway (--allow-oversize)\n";
  return fmt::format("  fits the accelerator: {} of {} ({})\n", gib(job.memory->memory.total()),
                     gib(machine.memory_bytes), machine.accelerator);
}

}  // namespace ccsim::synth
