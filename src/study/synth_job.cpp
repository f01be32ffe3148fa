#include "study/synth_job.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/spelling.hpp"
#include "synth/job.hpp"
#include "study/what_if.hpp"
#include "synth/job_options.hpp"

namespace ccsim::study {
namespace {

[[noreturn]] void fail(std::string_view key, const std::string& detail) {
  throw InputError("synth", 0, std::string(key), detail);
}

/// The keys that derive dp and micro-batches (the sweep's own, as `model` is), 1..2^24.
bool derives(std::string_view key) { return key == "gpus" || key == "global-batch"; }
constexpr int kMaxDeriving = 1 << 24;

/// Applies one setting of the form check_synth_setting accepts.
void apply(SynthJobSpec& spec, synth::JobOptions& job, std::string_view key, std::string_view value) {
  if (key == "model") {
    spec.model = std::string(value);
  } else if (derives(key)) {
    const int n = static_cast<int>(*parse_int(value));  // checked: 1..kMaxDeriving
    (key == "gpus" ? spec.gpus : spec.global_batch) = n;
  } else {
    synth::set_job_option(job, *synth::find_job_option(key), value);  // checked: "" returned
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
  } else if (derives(key)) {
    const std::optional<std::int64_t> n = parse_int(value);
    if (!n || *n < 1 || *n > kMaxDeriving)
      fail(key, fmt::format("expected a whole number 1..{}, got \"{}\"", kMaxDeriving, value));
  } else {  // trace synth's job option: its values and range

    synth::JobOptions scratch;
    const std::string error = synth::set_job_option(scratch, *synth::find_job_option(key), value);
    if (!error.empty()) fail(key, error);
  }
}

SynthJobSpec parse_synth_job(std::span<const std::string> settings) {
  SynthJobSpec spec;
  synth::JobOptions job;
  std::vector<std::string> seen;
  for (const std::string& setting : settings) {
    const std::size_t eq = setting.find('=');
    if (eq == std::string::npos) fail(setting, "expected KEY=VALUE");
    const std::string key = setting.substr(0, eq);
    const std::string value = setting.substr(eq + 1);
    check_synth_setting(key, value);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) fail(key, "given twice");
    seen.push_back(key);
    apply(spec, job, key, value);
  }
  auto given = [&](std::string_view key) { return std::find(seen.begin(), seen.end(), key) != seen.end(); };
  if (!given("model")) fail("model", "missing: the model preset or file of the synthesized job");
  if (given("gpus") && given("dp")) fail("gpus", "derives dp (gpus / (tp x pp)): give gpus or dp, not both");
  if (given("global-batch") && given("micro-batches")) {
    fail("global-batch", "derives micro-batches (global-batch / (dp x micro-batch-size)): give one of the two");
  }
  // As trace synth: 2 chunks with the interleaved schedule unless given; the distributed
  // optimizer is ZeRO stage 1.
  spec.par = synth::job_parallelism(job, synth::JobOptionSyntax::kSettings);
  return spec;
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

SynthTrace synth_trace(const SynthRequest& request, const DataLookup& lookup) {
  if (request.model.empty())
    throw InputError("command line", 0, "--model", "expected a model preset or file, got \"\"");
  if (request.platform.empty())
    throw InputError("command line", 0, "--platform", "expected a platform NAME|FILE, got \"\"");
  const synth::ModelSpec model = synth::load_model(request.model);
  const synth::Parallelism par = synth::job_parallelism(request.job, synth::JobOptionSyntax::kCommandLine);
  // The platform must exist and hold the job: the trace names it and the engine times the
  // operators' FLOPs and bytes with its rates.
  const WhatIf what_if = parse_what_if(request.settings);
  if (what_if.compute_scale != 1 || what_if.compress || what_if.compress_min_bytes || what_if.algorithm) {
    throw InputError("command line", 0, "--set",
                     "trace synth takes only the platform's settings (nodes, links, accelerator); compute, "
                     "compression and algorithm settings belong to the replay");
  }
  const topology::Platform platform = lookup.platform(request.platform, what_if.platform);
  const synth::Machine machine = machine_of(platform);
  SynthTrace out{synth::synthesize_job(model, par, machine, request.platform, request.job.allow_oversize), ""};
  out.report = synth::describe_job(model, par, out.job, request.platform);
  if (!what_if.empty()) {
    out.report += fmt::format("  platform {} with --set {}: replay the trace with the same settings\n", platform.name,
                              fmt::join(what_if.settings, " --set "));
  }
  out.report += synth::memory_note(out.job, machine);
  return out;
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
