#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "study/data_lookup.hpp"
#include "synth/job.hpp"
#include "synth/job_options.hpp"
#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"
#include "topology/platform.hpp"

namespace ccsim::study {

/// The keys of a synthesized job in a sweep's synth mode (sweeps/README.md), in the order its
/// messages list them: `model`, `trace synth`'s job options by their names without dashes
/// (synth::job_options(), whose values and ranges they take), and two that the sweep derives
/// others from: `gpus` (dp = gpus / (tp x pp)) and `global-batch` (micro-batches = global-batch
/// / (dp x micro-batch-size)). Flags (sp, overlap-p2p, ...) take true or false.
inline constexpr std::string_view kSynthKeys[] = {"model",
                                                  "gpus",
                                                  "tp",
                                                  "pp",
                                                  "dp",
                                                  "sp",
                                                  "global-batch",
                                                  "micro-batches",
                                                  "micro-batch-size",
                                                  "seq",
                                                  "schedule",
                                                  "virtual-stages",
                                                  "overlap-p2p",
                                                  "zero",
                                                  "distributed-optimizer",
                                                  "overlap-grad-reduce",
                                                  "recompute",
                                                  "first-stage-layers",
                                                  "last-stage-layers"};

/// A job as its settings give it, before dp and micro-batches are derived.
struct SynthJobSpec {
  std::string model;  ///< a model preset or file (synth::load_model)
  synth::Parallelism par;
  std::optional<int> gpus;          ///< dp = gpus / (tp x pp); exclusive with dp
  std::optional<int> global_batch;  ///< micro-batches = global-batch / (dp x b); exclusive with micro-batches
};

/// Checks the form of one setting KEY=VALUE: InputError(file "synth", field KEY) naming the
/// valid keys or values.
void check_synth_setting(std::string_view key, std::string_view value);

/// The job of "KEY=VALUE" settings (each of the form check_synth_setting accepts); `model` is
/// required. A key given twice, or dp with gpus, micro-batches with global-batch, is an
/// InputError naming the key.
SynthJobSpec parse_synth_job(std::span<const std::string> settings);

/// The machine `platform` gives a synthesized job (synth::check_job): its name, nodes,
/// accelerators per node, and one accelerator's kind, memory and model.
synth::Machine machine_of(const topology::Platform& platform);

/// What `trace synth` is asked for: a model, a job and the platform it runs on.
struct SynthRequest {
  std::string model;  ///< --model: a preset or file (synth::load_model)
  synth::JobOptions job;
  std::string platform;               ///< --platform NAME|FILE
  std::vector<std::string> settings;  ///< --set KEY=VALUE of the platform (e.g. nodes=1280)
};

/// The job `trace synth` writes the trace of, and what it says of it.
struct SynthTrace {
  synth::Job job;
  /// synth::describe_job, a line saying that the replay needs the same --set settings (when
  /// there are any), then synth::memory_note.
  std::string report;
};

/// `trace synth`: the model loaded, the job's parallelism finished (synth::job_parallelism), the
/// platform (through `lookup`) with the --set settings, which may change only the platform,
/// and the job checked against it and synthesized (synth::synthesize_job). Errors are
/// InputErrors naming the option.
SynthTrace synth_trace(const SynthRequest& request, const DataLookup& lookup);

/// A job resolved against its model and a platform: the parallelism that runs, or why `trace
/// synth` would refuse it (a derived size that does not divide, a split that does not fit the
/// model, more ranks than accelerators, more memory than an accelerator holds).
struct SynthJobFit {
  synth::Parallelism par;  ///< with dp and micro-batches derived (0 where they could not be)
  bool runs = false;       ///< false: refused
  std::string refusal;     ///< why, when refused
  synth::Memory memory;    ///< of the fullest stage, when the split fits the model
};
SynthJobFit resolve_synth_job(const SynthJobSpec& job, const synth::ModelSpec& model,
                              const topology::Platform& platform);

}  // namespace ccsim::study
