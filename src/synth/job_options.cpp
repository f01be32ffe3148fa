#include "synth/job_options.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/spelling.hpp"

namespace ccsim::synth {
namespace {

using Kind = JobOptionKind;

constexpr int kMaxSize = 1 << 20;      // tp, pp, dp, micro-batches, layers, ...
constexpr int kMaxSequence = 1 << 24;  // tokens

constexpr std::string_view kSchedules[] = {"gpipe", "1f1b", "interleaved"};
constexpr PipelineSchedule kScheduleValues[] = {PipelineSchedule::kGpipe, PipelineSchedule::k1F1B,
                                                PipelineSchedule::kInterleaved};
constexpr std::string_view kRecomputes[] = {"none", "selective", "full"};
constexpr Recompute kRecomputeValues[] = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};

/// The table. Its help texts are trace synth's, and its ranges the sweep's (sweeps/README.md).
constexpr JobOption kOptions[] = {
    {.name = "tp",
     .kind = Kind::kInteger,
     .help = "Tensor-parallel size",
     .integer = [](JobOptions& j) -> int& { return j.par.tp; },
     .min = 1,
     .max = kMaxSize,
     .show_default = true},
    {.name = "pp",
     .kind = Kind::kInteger,
     .help = "Pipeline stages",
     .integer = [](JobOptions& j) -> int& { return j.par.pp; },
     .min = 1,
     .max = kMaxSize,
     .show_default = true},
    {.name = "dp",
     .kind = Kind::kInteger,
     .help = "Data-parallel replicas",
     .integer = [](JobOptions& j) -> int& { return j.par.dp; },
     .min = 1,
     .max = kMaxSize,
     .show_default = true},
    {.name = "sp",
     .kind = Kind::kFlag,
     .help = "Sequence parallelism over the TP group",
     .flag = [](JobOptions& j) -> bool& { return j.par.sp; }},
    {.name = "micro-batches",
     .kind = Kind::kInteger,
     .help = "Micro-batches per iteration and replica",
     .integer = [](JobOptions& j) -> int& { return j.par.micro_batches; },
     .min = 1,
     .max = kMaxSize,
     .show_default = true},
    {.name = "micro-batch-size",
     .kind = Kind::kInteger,
     .help = "Sequences per micro-batch",
     .integer = [](JobOptions& j) -> int& { return j.par.micro_batch_size; },
     .min = 1,
     .max = kMaxSize,
     .show_default = true},
    {.name = "seq",
     .kind = Kind::kInteger,
     .help = "Sequence length (default: the model's)",
     .integer = [](JobOptions& j) -> int& { return j.par.seq; },
     .min = 1,
     .max = kMaxSequence,
     .parser_checks_range = true},
    {.name = "schedule",
     .kind = Kind::kChoice,
     .help = "Pipeline schedule: gpipe, 1f1b (Megatron's default) or interleaved (Megatron's virtual pipeline "
             "stages: each rank holds --virtual-stages model chunks)",
     .choices = kSchedules,
     .choose = [](JobOptions& j, std::size_t i) { j.par.schedule = kScheduleValues[i]; },
     .chosen = [](const JobOptions& j) { return schedule_name(j.par.schedule); },
     .show_default = true},
    {.name = "virtual-stages",
     .kind = Kind::kInteger,
     .help = "Model chunks per rank with --schedule interleaved (default 2; the layers must divide into pp x V "
             "chunks, the micro-batches into groups of pp)",
     .integer = [](JobOptions& j) -> int& { return j.par.virtual_stages; },
     .min = 1,
     .max = kMaxSize},
    {.name = "overlap-p2p",
     .kind = Kind::kFlag,
     .help = "With --schedule interleaved: sends overlap the computations after them and a receive waits only "
             "before the computation that needs it (Megatron's --overlap-p2p-communication); by default each "
             "step's sends and receives are posted together and the next computation waits for all of them",
     .flag = [](JobOptions& j) -> bool& { return j.par.overlap_p2p; }},
    {.name = "zero",
     .kind = Kind::kInteger,
     .help = "ZeRO stage: 0, 1, 2 or 3",
     .integer = [](JobOptions& j) -> int& { return j.par.zero; },
     .min = 0,
     .max = 3,
     .show_default = true},
    {.name = "distributed-optimizer",
     .kind = Kind::kFlag,
     .help = "Megatron's distributed optimizer (--use-distributed-optimizer), the same as --zero 1: gradients "
             "reduce-scattered over the DP group (in buckets with --overlap-grad-reduce), parameters all-gathered "
             "after the update",
     .flag = [](JobOptions& j) -> bool& { return j.distributed_optimizer; }},
    {.name = "recompute",
     .kind = Kind::kChoice,
     .help = "Activation recomputation: none, selective (the attention core, when the backward reaches it) or "
             "full (each layer's forward again before its backward), as Megatron's --recompute-granularity",
     .choices = kRecomputes,
     .choose = [](JobOptions& j, std::size_t i) { j.par.recompute = kRecomputeValues[i]; },
     .chosen = [](const JobOptions& j) { return recompute_name(j.par.recompute); },
     .show_default = true},
    {.name = "first-stage-layers",
     .kind = Kind::kInteger,
     .help = "Layers of the first pipeline stage (Megatron's --decoder-first-pipeline-num-layers); default: when "
             "--pp does not divide the layers, the first and last stages take fewer (floor(L/pp), the rest one "
             "each to the middle stages)",
     .integer = [](JobOptions& j) -> int& { return j.par.first_stage_layers; },
     .min = 1,
     .max = kMaxSize,
     .parser_checks_range = true},
    {.name = "last-stage-layers",
     .kind = Kind::kInteger,
     .help = "Layers of the last pipeline stage (Megatron's --decoder-last-pipeline-num-layers)",
     .integer = [](JobOptions& j) -> int& { return j.par.last_stage_layers; },
     .min = 1,
     .max = kMaxSize,
     .parser_checks_range = true},
    {.name = "no-masked-softmax-fusion",
     .kind = Kind::kFlag,
     .help = "The causal mask and the softmax as two kernels (Megatron's flag); fused by default",
     .flag = [](JobOptions& j) -> bool& { return j.par.masked_softmax_fusion; },
     .flag_value = false},
    {.name = "no-bias-gelu-fusion",
     .kind = Kind::kFlag,
     .help = "The MLP's bias add and its activation as two kernels (Megatron's flag); fused by default",
     .flag = [](JobOptions& j) -> bool& { return j.par.bias_activation_fusion; },
     .flag_value = false},
    {.name = "no-bias-dropout-fusion",
     .kind = Kind::kFlag,
     .help = "Bias, dropout and residual add as three kernels (Megatron's flag); fused by default",
     .flag = [](JobOptions& j) -> bool& { return j.par.bias_dropout_fusion; },
     .flag_value = false},
    {.name = "allow-oversize",
     .kind = Kind::kFlag,
     .help = "Write the trace even when model states and activations exceed the accelerator's memory (a warning "
             "instead of the refusal)",
     .flag = [](JobOptions& j) -> bool& { return j.allow_oversize; }},
    {.name = "overlap-grad-reduce",
     .kind = Kind::kFlag,
     .help = "Reduce the gradients in buckets on a stream of their own during the last backward (Megatron's "
             "--overlap-grad-reduce; PyTorch DDP does this always)",
     .flag = [](JobOptions& j) -> bool& { return j.par.overlap_grad_reduce; }},
    {.name = "bucket-size",
     .kind = Kind::kNumber,
     .help = "Parameters per gradient bucket with --overlap-grad-reduce (default: Megatron's max(40M, 1M x dp))",
     .number = [](JobOptions& j) -> double& { return j.par.bucket_params; }},
};

std::string expected_one_of(std::span<const std::string_view> choices, std::string_view text) {
  const std::vector<std::string> valid(choices.begin(), choices.end());
  return fmt::format("expected one of {}, got \"{}\"{}", fmt::join(valid, ", "), text, did_you_mean(text, valid));
}

}  // namespace

std::span<const JobOption> job_options() { return kOptions; }

const JobOption* find_job_option(std::string_view name) {
  const auto* it = std::find_if(std::begin(kOptions), std::end(kOptions),
                                [name](const JobOption& option) { return option.name == name; });
  return it != std::end(kOptions) ? it : nullptr;
}

std::string set_job_option(JobOptions& job, const JobOption& option, std::string_view text) {
  switch (option.kind) {
    case Kind::kInteger: {
      const std::optional<std::int64_t> n = parse_int(text);
      if (!n || *n < option.min || *n > option.max)
        return fmt::format("expected a whole number {}..{}, got \"{}\"", option.min, option.max, text);
      option.integer(job) = static_cast<int>(*n);
      return "";
    }
    case Kind::kNumber: {
      const std::optional<double> x = parse_double(text);
      if (!x || !std::isfinite(*x) || *x < 0) return fmt::format("expected a number 0 or more, got \"{}\"", text);
      option.number(job) = *x;
      return "";
    }
    case Kind::kFlag: {
      constexpr std::string_view kBooleans[] = {"true", "false"};
      if (text != "true" && text != "false") return expected_one_of(kBooleans, text);
      option.flag(job) = text == "true" ? option.flag_value : !option.flag_value;
      return "";
    }
    case Kind::kChoice: {
      const auto it = std::find(option.choices.begin(), option.choices.end(), text);
      if (it == option.choices.end()) return expected_one_of(option.choices, text);
      option.choose(job, static_cast<std::size_t>(it - option.choices.begin()));
      return "";
    }
  }
  return "";
}

Parallelism job_parallelism(const JobOptions& job, JobOptionSyntax syntax) {
  Parallelism par = job.par;
  // Megatron's interleaved schedule is for 2 or more chunks: 2 unless told.
  if (par.virtual_stages == 0) par.virtual_stages = par.schedule == PipelineSchedule::kInterleaved ? 2 : 1;
  if (job.distributed_optimizer) {
    // Megatron's name for ZeRO stage 1: one implementation, two names.
    if (par.zero > 1) {
      if (syntax == JobOptionSyntax::kSettings) {
        throw InputError("synth", 0, "distributed-optimizer",
                         fmt::format("is ZeRO stage 1; zero = {} asks for another stage", par.zero));
      }
      throw InputError("command line", 0, "--distributed-optimizer",
                       fmt::format("is ZeRO stage 1 (optimizer states sharded over the DP group); --zero {} asks for "
                                   "another stage",
                                   par.zero));
    }
    par.zero = 1;
  }
  return par;
}

}  // namespace ccsim::synth
