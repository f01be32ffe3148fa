#pragma once

#include <optional>
#include <string>

#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"
#include "trace/trace.hpp"

namespace ccsim::synth {

/// The machine a job is synthesised for, as numbers (synth reads no platform file).
struct Machine {
  std::string name;  ///< the platform's name, in messages
  int nodes = 0;
  int accelerators_per_node = 0;
  bool cpu_core = false;    ///< ranks are CPU cores, which ranks may share: the rank count is not checked
  double memory_bytes = 0;  ///< one accelerator's memory; <= 0: not known, the memory is not checked
  std::string accelerator;  ///< its model, in messages
};

/// A synthesised job and what it was checked against.
struct Job {
  trace::Trace trace;  ///< validated
  /// The job's memory against one accelerator's; none when the machine gives no memory.
  std::optional<MemoryFit> memory;
};

/// `trace synth`'s checks of a job, before its trace: the split against the model
/// (check_parallelism) and the ranks against `machine`'s accelerators, one each
/// (check_ranks_fit, unless its ranks are CPU cores), each an InputError naming its option;
/// then the memory against one accelerator's (check_memory), returned for the caller to
/// decide on; none when the machine gives no memory.
std::optional<MemoryFit> check_job(const ModelSpec& model, const Parallelism& par, const Machine& machine);

/// `trace synth`'s checks and trace: check_job (a job whose memory does not fit is an
/// InputError naming --allow-oversize unless `allow_oversize`), then the trace of one
/// iteration (synthesize, recording `platform` as given) and trace::validate.
Job synthesize_job(const ModelSpec& model, const Parallelism& par, const Machine& machine, const std::string& platform,
                   bool allow_oversize);

/// What `trace synth` says of a job it wrote for `platform` (as named): the model, the split
/// and the ranks; the layers per stage where the stages are uneven; the fullest stage's
/// parameters and memory per accelerator; the message sizes; the operators.
std::string describe_job(const ModelSpec& model, const Parallelism& par, const Job& job, const std::string& platform);

/// How `job`'s memory fits one accelerator of `machine`: a note when the machine gives no
/// memory, a warning when the job was allowed not to fit, else the memory against the
/// accelerator's.
std::string memory_note(const Job& job, const Machine& machine);

}  // namespace ccsim::synth
