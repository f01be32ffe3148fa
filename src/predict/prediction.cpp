#include "predict/prediction.hpp"

#include <algorithm>
#include <memory>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/input_error.hpp"
#include "core/output_file.hpp"
#include "engine/replay.hpp"
#include "predict/runs.hpp"
#include "predict/target.hpp"
#include "synth/torch_program.hpp"
#include "trace/native_reader.hpp"
#include "trace/validate.hpp"

namespace ccsim::predict {
namespace {

void check_options(const PredictOptions& options) {
  if (options.runs.empty()) throw InputError("command line", 0, "runs", "expected at least one traced run to fit on");
  if (options.measured_ms) {
    const double ms = *options.measured_ms;
    if (!(ms > 0 && ms <= trace::kMaxDurationMs)) {  // NaN too
      throw InputError(
          "command line", 0, "--measured-ms",
          fmt::format("expected a positive time in ms, at most {:g} (a year), got \"{}\"", trace::kMaxDurationMs, ms));
    }
  }
}

/// The checks a file write makes, before the long work: no input of this process, a folder
/// that exists; and no two outputs one file.
void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (const auto& [option, path] : outputs) {
    if (!path.empty() && path != "-") check_output_file(path);
  }
  check_distinct_outputs(outputs);
}

std::vector<LoadedRun> load_runs(const PredictOptions& options, const topology::Platform& platform) {
  std::vector<LoadedRun> runs;
  for (const std::string& path : options.runs) {
    if (options.progress) options.progress(fmt::format("predict: reading {}", path));
    runs.push_back(load_run(path, platform, options.keep_profiler));
  }
  return runs;
}

/// The machine's speed drifts between sessions. When the target's summaries and a run's record
/// the generator's GEMM probe, the run's measured times (compute and traced calls alike: the
/// loopback backend runs on the same CPUs) are brought to the target's machine state by the
/// ratio of the probes. Returns what was scaled, in words.
std::vector<std::string> scale_machine_speed(std::vector<LoadedRun>& runs, const import::RunSummary& target) {
  std::vector<std::string> notes;
  for (LoadedRun& loaded : runs) {
    FittedRun& run = loaded.run;
    if (!run.summary || !(run.summary->gemm_probe_gflops > 0)) continue;
    const double factor = run.summary->gemm_probe_gflops / target.gemm_probe_gflops;
    scale_measured(loaded.trace, factor, true);
    run.speed_factor = factor;
    notes.push_back(fmt::format("{}: GEMM probe {:.2f} GFLOP/s, the target's {:.2f}: its times x{:.4f}", run.path,
                                run.summary->gemm_probe_gflops, target.gemm_probe_gflops, factor));
  }
  return notes;
}

/// The traces compute and the backend are fitted on, for the sharing of cores the target needs.
struct FitSet {
  std::vector<trace::Trace> traces;
  std::vector<std::string> left_out;  ///< paths of the runs left out of the fit
  std::string sharing_note;
  bool dedicated = true;  ///< fitted on ranks with a core each
};

/// Compute measured on ranks that shared cores (more ranks than the platform's cores) is slower
/// by that sharing. A synthesised target is timed by compute fitted on runs whose ranks had a
/// core each, when there are any, and the replay time-shares it on the target's cores
/// (ReplayOptions::dedicated_durations); a run replayed as traced keeps its own sharing, and
/// its fit takes the runs that share as it does.
FitSet choose_fit_set(const PredictOptions& options, const topology::Platform& platform,
                      const std::vector<LoadedRun>& runs, const std::optional<import::RunSummary>& target) {
  const int cores = platform.network.accelerator_count();
  const int target_world = options.traced ? runs.front().trace.world_size
                                          : target_parallelism(options, target ? target->config : std::nullopt).world();
  const bool target_shared = target_world > cores;
  const bool want_shared = options.traced && target_shared;
  FitSet set;
  for (const LoadedRun& r : runs) {
    if ((r.trace.world_size > cores) == want_shared)
      set.traces.push_back(r.trace);
    else
      set.left_out.push_back(r.run.path);
  }
  set.dedicated = !want_shared;
  if (set.traces.empty()) {
    for (const LoadedRun& r : runs) set.traces.push_back(r.trace);
    set.dedicated = false;
    set.sharing_note = fmt::format(
        "no fitted run {} cores as the target needs ({} ranks on {} cores of {}): fitted on all, "
        "whose compute durations carry {} sharing and are not time-shared again",
        want_shared ? "shares" : "leaves unshared", target_world, cores, platform.name, want_shared ? "no" : "their");
    set.left_out.clear();
  } else if (!set.left_out.empty()) {
    set.sharing_note = fmt::format("left out of the fit: {} ({} than {} cores of {})", fmt::join(set.left_out, ", "),
                                   want_shared ? "no more ranks" : "more ranks", cores, platform.name);
  }
  if (set.dedicated && target_shared) {
    set.sharing_note += fmt::format(
        "{}{} ranks on {} cores: the fitted compute (of ranks with a core each) time-shares the "
        "cores in the replay",
        set.sharing_note.empty() ? "" : "; ", target_world, cores);
  }
  return set;
}

/// The traced backend's calls fitted as one tier. With calls of one size, the bandwidth is the
/// platform's message bandwidth: its calibrated network model's for the largest messages, else
/// its intra-node link's.
calibrate::BackendFit fit_backend(const calibrate::ComputeFit& fit, const PredictOptions& options,
                                  const topology::Platform& platform, const study::DataLookup& lookup) {
  double platform_Bps = platform.network.link(platform.network.intra_link(0)).bandwidth_Bps;
  if (auto net = lookup.network_model(platform); net && net->has_intra && !net->intra.segments.empty()) {
    platform_Bps = net->intra.segments.back().bandwidth_Bps;
  }
  return calibrate::fit_backend(
      fit.call_samples, 1.0 / platform.network.accelerator().reduce_Bps, platform_Bps, fit.model.hardware.name,
      fmt::format("ccsim predict: the traced calls of {}", fmt::join(options.runs, ", ")), options.runs.front());
}

/// The trace to replay, into `out`: the first run as traced (its own measured compute), or the
/// target configuration synthesised and timed by the fitted compute model. Returns what the
/// options change of --config's configuration ("" when nothing).
std::string make_target(const PredictOptions& options, const LoadedRun& first,
                        const std::optional<import::RunSummary>& target, const topology::Platform& platform,
                        Prediction& out) {
  if (options.traced) {
    out.trace = first.trace;
    out.target =
        fmt::format("{} as traced ({} ranks, its measured compute durations)", first.run.path, out.trace.world_size);
    out.compute_note =
        first.run.profiler_factor != 1
            ? fmt::format("compute as measured, x{:.4f} for the profiler's overhead", first.run.profiler_factor)
            : std::string("compute as measured");
    return "";
  }
  const std::optional<import::RunConfig> config = target ? target->config : std::nullopt;
  const synth::ModelSpec model = target_model(options, config);
  const synth::Parallelism par = target_parallelism(options, config);
  std::string changed = config ? configuration_changes(*config, model, par) : std::string();
  out.trace = synth::synthesize_torch(model, par, platform.name);
  trace::validate(out.trace);
  out.target = fmt::format(
      "{} (hidden {}, {} layers, {} heads, sequence {}, vocabulary {}, {}), TP {} x PP {} x DP {}, {} "
      "micro-batches of {}, GPipe",
      model.name, model.hidden, model.layers, model.heads, par.seq > 0 ? par.seq : model.seq, model.vocab,
      synth::activation_name(model.activation), par.tp, par.pp, par.dp, par.micro_batches, par.micro_batch_size);
  calibrate::adjust_compute(out.trace, platform.network.accelerator(), platform.name, calibrate::ComputeMode::kModel,
                            &out.compute_model);
  out.compute_note = fmt::format(
      "every operator timed by the compute model fitted here ({} kinds; the synthesised trace has "
      "no durations of its own)",
      out.compute_model.kinds.size());
  return changed;
}

engine::ReplayOptions replay_options(const Prediction& out, bool dedicated, bool traced) {
  engine::ReplayOptions options;
  options.network.calibrated = std::make_shared<const topology::NetworkModel>(out.backend.model);
  options.network.source = "the traced backend";
  options.all_reduce_algorithm = out.backend.algorithm;
  options.oversubscribe = true;
  options.dedicated_durations = dedicated && !traced;
  // The backend is fitted on the same runs: of ranks with a core each, or sharing as the target.
  options.network.per_core = dedicated;
  options.compute = out.compute_note;
  return options;
}

/// Ranks of identical work wait for each other at their collectives when their measured
/// compute differs (a shared machine runs its cores at different speeds from one second to
/// the next); synthesised ranks are identical and never do. Each fitted run of several ranks
/// with collectives is replayed as traced, to say how much of that a prediction leaves out.
void replay_fitted_runs(std::vector<LoadedRun>& runs, const std::vector<std::string>& left_out,
                        const topology::Platform& platform, const engine::ReplayOptions& options) {
  engine::ReplayOptions as_traced = options;
  as_traced.dedicated_durations = false;
  as_traced.compute = "compute as measured";
  for (LoadedRun& r : runs) {
    const bool fitted = std::find(left_out.begin(), left_out.end(), r.run.path) == left_out.end();
    const bool collectives = std::any_of(r.trace.programs.begin(), r.trace.programs.end(), [](const trace::Program& p) {
      return std::any_of(p.ops.begin(), p.ops.end(), [](const trace::Op& op) { return trace::is_collective(op.kind); });
    });
    if (r.trace.world_size < 2 || !fitted || !collectives) continue;
    const engine::Result traced = engine::replay(r.trace, platform, as_traced);
    std::tie(r.run.collective_wait_ms, r.run.compute_ms) = collective_wait_and_compute_ms(r.trace, traced);
  }
}

/// The measurement to compare with, into `out`: --measured-ms, else the --config runs' median
/// (unless the options changed their configuration: then `out.config_note` says why not), else
/// the traced run's own summary.
void choose_measurement(const PredictOptions& options, const TargetRuns& targets, const std::string& changed_config,
                        const FittedRun& first, Prediction& out) {
  out.measured_ms = options.measured_ms.value_or(-1);
  out.measured_from = "--measured-ms";
  if (out.measured_ms < 0 && targets.measured_ms > 0 && !changed_config.empty()) {
    out.config_note = fmt::format(
        "the command line changes the configuration of {} ({}): its measured time is not "
        "compared (--measured-ms gives one)",
        targets.first->file, changed_config);
  } else if (out.measured_ms < 0 && targets.measured_ms > 0) {
    out.measured_ms = targets.measured_ms;
    out.measured_from = targets.measured_from;
    out.measured_steps_ms = targets.steps_ms;
    out.measured_step_runs = targets.runs_with_steps;
  } else if (out.measured_ms < 0 && options.traced && first.summary && first.summary->unprofiled_ms > 0) {
    out.measured_ms = first.summary->unprofiled_ms;
    out.measured_from = fmt::format("{}: median iteration without the profiler, max over ranks", first.summary->file);
    out.measured_steps_ms = first.summary->unprofiled_step_ms;
    out.measured_step_runs = 1;
  }
  // The target's runs count as measured (their summaries and probes) unless they are not the
  // measurement: --measured-ms given, or their configuration changed.
  if (!options.measured_ms && changed_config.empty()) out.measured_runs = targets.all;
}

}  // namespace

Prediction predict(const PredictOptions& options, const study::DataLookup& lookup) {
  check_options(options);
  const topology::Platform platform = lookup.platform(options.platform, {});
  const TargetRuns targets = read_targets(options.config);
  const std::optional<import::RunSummary>& target = targets.first;
  check_outputs(options.outputs);
  std::vector<LoadedRun> runs = load_runs(options, platform);
  Prediction out;
  out.platform = platform.name;
  // Not the default: a probe of a few GEMMs scatters within one session more than runs of
  // one session differ.
  if (target && target->gemm_probe_gflops > 0 && options.scale_speed)
    out.speed_notes = scale_machine_speed(runs, *target);
  const FitSet fit_set = choose_fit_set(options, platform, runs, target);
  out.sharing_note = fit_set.sharing_note;
  calibrate::ComputeFit fit =
      calibrate::fit_compute(fit_set.traces, calibrate::FitObjective::kTotal, options.flop_exponent);
  fit.model.name = "predict";
  fit.model.description = "fitted by ccsim predict (least squares on absolute residuals: each kind's total time kept)";
  out.backend = fit_backend(fit, options, platform, lookup);
  out.compute_model = std::move(fit.model);
  out.compute_ops = fit.compute_ops;
  const std::string changed_config = make_target(options, runs.front(), target, platform, out);
  const engine::ReplayOptions replay = replay_options(out, fit_set.dedicated, options.traced);
  out.result = engine::replay(out.trace, platform, replay);
  out.predicted_ms = out.result.makespan_s * 1e3;
  if (!options.traced) replay_fitted_runs(runs, fit_set.left_out, platform, replay);
  choose_measurement(options, targets, changed_config, runs.front().run, out);
  std::vector<double> probes;
  for (const LoadedRun& r : runs) probes.push_back(r.run.summary ? r.run.summary->gemm_probe_gflops : 0);
  for (const import::RunSummary& t : out.measured_runs) probes.push_back(t.gemm_probe_gflops);
  out.probes = probe_span(probes);
  out.target_probe_gflops = target && target->gemm_probe_gflops > 0 ? target->gemm_probe_gflops : 0;
  out.compute_model.command = fmt::format("ccsim predict {}", fmt::join(options.runs, " "));
  for (const std::string& r : options.runs) out.compute_model.traces.push_back(r);
  for (LoadedRun& r : runs) out.runs.push_back(std::move(r.run));
  return out;
}

}  // namespace ccsim::predict
