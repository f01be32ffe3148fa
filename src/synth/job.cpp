#include "synth/job.hpp"

#include "core/input_error.hpp"
#include "trace/validate.hpp"

namespace ccsim::synth {

Job synthesize_job(const ModelSpec& model, const Parallelism& par, const Machine& machine, const std::string& platform,
                   bool allow_oversize) {
  check_parallelism(model, par);
  if (!machine.cpu_core) check_ranks_fit(par, machine.name, machine.nodes, machine.accelerators_per_node);
  Job job;
  if (machine.memory_bytes > 0) {
    job.memory = check_memory(model, par, machine.memory_bytes, machine.accelerator);
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
