#include "synth/job.hpp"

#include "core/input_error.hpp"
#include "trace/validate.hpp"

namespace ccsim::synth {

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

}  // namespace ccsim::synth
