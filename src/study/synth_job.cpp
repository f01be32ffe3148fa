#include "study/synth_job.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/spelling.hpp"
#include "synth/job.hpp"

namespace ccsim::study {
namespace {

[[noreturn]] void fail(std::string_view key, const std::string& detail) {
  throw InputError("synth", 0, std::string(key), detail);
}

bool is_flag(std::string_view key) {
  return key == "sp" || key == "overlap-p2p" || key == "distributed-optimizer" || key == "overlap-grad-reduce";
}

/// The smallest and largest value of an integer key.
std::pair<std::int64_t, std::int64_t> int_range(std::string_view key) {
  if (key == "zero") return {0, 3};
  if (key == "seq") return {1, 1 << 24};
  if (key == "gpus" || key == "global-batch") return {1, 1 << 24};
  return {1, 1 << 20};
}

template <typename Enum>
std::optional<Enum> enum_value(std::string_view text, std::initializer_list<Enum> values,
                               std::string_view (*name)(Enum)) {
  for (Enum v : values) {
    if (name(v) == text) return v;
  }
  return std::nullopt;
}

std::optional<synth::PipelineSchedule> schedule_of(std::string_view text) {
  using synth::PipelineSchedule;
  return enum_value(text, {PipelineSchedule::kGpipe, PipelineSchedule::k1F1B, PipelineSchedule::kInterleaved},
                    &synth::schedule_name);
}

std::optional<synth::Recompute> recompute_of(std::string_view text) {
  using synth::Recompute;
  return enum_value(text, {Recompute::kNone, Recompute::kSelective, Recompute::kFull}, &synth::recompute_name);
}

void expect_choice(std::string_view key, std::string_view value, const std::vector<std::string>& valid) {
  fail(key, fmt::format("expected one of {}, got \"{}\"{}", fmt::join(valid, ", "), value, did_you_mean(value, valid)));
}

/// Applies one checked setting to `job`.
void apply(SynthJobSpec& job, bool& distributed_optimizer, std::string_view key, std::string_view value) {
  synth::Parallelism& par = job.par;
  if (key == "model") {
    job.model = std::string(value);
  } else if (is_flag(key)) {
    const bool on = value == "true";
    if (key == "sp") par.sp = on;
    if (key == "overlap-p2p") par.overlap_p2p = on;
    if (key == "overlap-grad-reduce") par.overlap_grad_reduce = on;
    if (key == "distributed-optimizer") distributed_optimizer = on;
  } else if (key == "schedule") {
    par.schedule = *schedule_of(value);
  } else if (key == "recompute") {
    par.recompute = *recompute_of(value);
  } else {
    const int n = static_cast<int>(*parse_int(value));  // checked: in int_range(key)
    if (key == "gpus") job.gpus = n;
    if (key == "global-batch") job.global_batch = n;
    if (key == "tp") par.tp = n;
    if (key == "pp") par.pp = n;
    if (key == "dp") par.dp = n;
    if (key == "micro-batches") par.micro_batches = n;
    if (key == "micro-batch-size") par.micro_batch_size = n;
    if (key == "seq") par.seq = n;
    if (key == "virtual-stages") par.virtual_stages = n;
    if (key == "zero") par.zero = n;
    if (key == "first-stage-layers") par.first_stage_layers = n;
    if (key == "last-stage-layers") par.last_stage_layers = n;
  }
}

}  // namespace

void check_synth_setting(std::string_view key, std::string_view value) {
  const std::vector<std::string> keys(std::begin(kSynthKeys), std::end(kSynthKeys));
  if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
    fail(key, fmt::format("unknown key; {}valid keys: {}", did_you_mean(key, keys, "", " "), fmt::join(keys, ", ")));
  }
  if (key == "model") {
    if (value.empty()) fail(key, "expected a model preset or file, got \"\"");
  } else if (is_flag(key)) {
    if (value != "true" && value != "false") expect_choice(key, value, {"true", "false"});
  } else if (key == "schedule") {
    if (!schedule_of(value)) expect_choice(key, value, {"gpipe", "1f1b", "interleaved"});
  } else if (key == "recompute") {
    if (!recompute_of(value)) expect_choice(key, value, {"none", "selective", "full"});
  } else {
    const auto [low, high] = int_range(key);
    const std::optional<std::int64_t> n = parse_int(value);
    if (!n || *n < low || *n > high)
      fail(key, fmt::format("expected a whole number {}..{}, got \"{}\"", low, high, value));
  }
}

SynthJobSpec parse_synth_job(std::span<const std::string> settings) {
  SynthJobSpec job;
  job.par.virtual_stages = 0;  // as trace synth: 2 with the interleaved schedule unless given
  bool distributed_optimizer = false;
  std::vector<std::string> seen;
  for (const std::string& setting : settings) {
    const std::size_t eq = setting.find('=');
    if (eq == std::string::npos) fail(setting, "expected KEY=VALUE");
    const std::string key = setting.substr(0, eq);
    const std::string value = setting.substr(eq + 1);
    check_synth_setting(key, value);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) fail(key, "given twice");
    seen.push_back(key);
    apply(job, distributed_optimizer, key, value);
  }
  auto given = [&](std::string_view key) { return std::find(seen.begin(), seen.end(), key) != seen.end(); };
  if (!given("model")) fail("model", "missing: the model preset or file of the synthesized job");
  if (given("gpus") && given("dp")) fail("gpus", "derives dp (gpus / (tp x pp)): give gpus or dp, not both");
  if (given("global-batch") && given("micro-batches")) {
    fail("global-batch", "derives micro-batches (global-batch / (dp x micro-batch-size)): give one of the two");
  }
  if (job.par.virtual_stages == 0)
    job.par.virtual_stages = job.par.schedule == synth::PipelineSchedule::kInterleaved ? 2 : 1;
  if (distributed_optimizer) {
    // Megatron's name for ZeRO stage 1, as `trace synth --distributed-optimizer`.
    if (job.par.zero > 1) {
      fail("distributed-optimizer", fmt::format("is ZeRO stage 1; zero = {} asks for another stage", job.par.zero));
    }
    job.par.zero = 1;
  }
  return job;
}

synth::Machine machine_of(const topology::Platform& platform) {
  const topology::AcceleratorSpec& acc = platform.network.accelerator();
  return {platform.name,
          platform.network.node_count(),
          platform.network.accelerators_per_node(),
          acc.cpu_core,
          acc.memory_bytes,
          acc.model};
}

SynthJobFit resolve_synth_job(const SynthJobSpec& job, const synth::ModelSpec& model,
                              const topology::Platform& platform) {
  SynthJobFit out;
  synth::Parallelism& par = out.par;
  par = job.par;
  if (job.gpus) {
    const int split = par.tp * par.pp;
    if (*job.gpus % split != 0) {
      par.dp = 0;  // unknown: none divides
      if (job.global_batch) par.micro_batches = 0;
      out.refusal = fmt::format("gpus {} is not a multiple of tp x pp = {}", *job.gpus, split);
      return out;
    }
    par.dp = *job.gpus / split;
  }
  if (job.global_batch) {
    par.micro_batches = 0;  // unknown until it divides
    const std::int64_t per_step = static_cast<std::int64_t>(par.dp) * par.micro_batch_size;
    if (*job.global_batch % per_step != 0) {
      out.refusal =
          fmt::format("global-batch {} is not a multiple of dp x micro-batch-size = {}", *job.global_batch, per_step);
      return out;
    }
    par.micro_batches = static_cast<int>(*job.global_batch / per_step);
  }
  const synth::Machine machine = machine_of(platform);
  std::optional<synth::MemoryFit> fit;
  try {
    synth::check_parallelism(model, par);  // the memory is known (and shown) once the split is valid
    out.memory = synth::memory_per_accelerator(model, par);
    fit = synth::check_job(model, par, machine);
  } catch (const InputError& e) {
    // trace synth's errors name its option ("--pp"); the sweep's key is the same without dashes.
    const std::string_view key = std::string_view(e.field()).substr(e.field().rfind("--", 0) == 0 ? 2 : 0);
    out.refusal = key.empty() ? e.detail() : fmt::format("{}: {}", key, e.detail());
    return out;
  }
  if (fit && !fit->fits) {
    out.refusal = fit->message;
    return out;
  }
  out.runs = true;
  return out;
}

}  // namespace ccsim::study
