#include <algorithm>
#include <cmath>
#include <limits>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibrate/compute_backend.hpp"
#include "calibrate/compute_fit.hpp"
#include "calibrate/compute_model.hpp"
#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/render.hpp"
#include "cli/simulation_flags.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "engine/replay.hpp"
#include "import/kineto.hpp"
#include "report/breakdown.hpp"
#include "synth/model_spec.hpp"
#include "synth/torch_program.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"
#include "trace/native_writer.hpp"
#include "trace/validate.hpp"

namespace ccsim::cli {
namespace {

/// `ccsim predict`: fit on traced runs, synthesise a configuration, replay it.
struct PredictCommand {
  std::vector<std::string> runs;
  /// summary.json of the run to predict: its configuration and measured time; several are
  /// repeats of one configuration, measured as the median of their times.
  std::vector<std::string> config;
  std::string model = "small-gpt";
  int layers = 0, hidden = 0, heads = 0, seq = 0, vocab = 0;
  std::string act;
  synth::Parallelism par;
  double measured_ms = 0;  ///< --measured-ms, when measured_given()
  bool measured_set = false;
  bool measured_given() const { return measured_set; }
  std::string platform = "local";
  std::string format = "text";
  std::string trace_out;
  std::string model_out;
  bool keep_profiler = false;
  bool scale_speed = false;  ///< --scale-machine-speed: runs scaled by the GEMM probes
  bool traced = false;       ///< replay the first run as traced instead of a synthesised trace
  bool breakdown = false;
  std::string flop_exponent = "fit";  ///< --flop-exponent: fit | 1
  // Which configuration flags the command line gave (they override --config).
  bool given_tp = false, given_pp = false, given_dp = false, given_mb = false, given_mbs = false;
};

/// One run to fit on, imported (a directory of rank files) or read (a native trace).
struct FitRun {
  std::string path;
  trace::Trace trace;
  std::optional<import::RunSummary> summary;
  double iteration_ms = -1;    ///< the imported Iteration#k, max over ranks (-1: a native trace)
  double profiler_factor = 1;  ///< compute durations were multiplied by this
  double speed_factor = 1;     ///< --scale-machine-speed: measured times were multiplied by this
  /// Replayed as traced (a synthesised target only): per rank, mean over the ranks, the time
  /// its collectives spent waiting for peers, and its compute; -1 when not replayed.
  double collective_wait_ms = -1;
  double compute_ms = -1;
};

/// Per rank, mean over the ranks: the time `result`'s collectives spent waiting for their
/// peers (OpRecord::wait_s) and the rank's compute time, in ms.
std::pair<double, double> collective_wait_and_compute_ms(const trace::Trace& trace, const engine::Result& result) {
  double wait = 0, compute = 0;
  for (int rank = 0; rank < trace.world_size; ++rank) {
    const auto& ops = trace.program_ops(rank);
    const auto& records = result.ops[static_cast<std::size_t>(rank)];
    for (std::size_t i = 0; i < ops.size() && i < records.size(); ++i) {
      if (trace::is_collective(ops[i].kind))
        wait += records[i].wait_s;
      else if (ops[i].kind == trace::OpKind::kCompute)
        compute += records[i].end_s - records[i].start_s;
    }
  }
  const double n = std::max(1, trace.world_size);
  return {wait / n * 1e3, compute / n * 1e3};
}

std::string run_name(const std::string& path) {
  const std::filesystem::path p = std::filesystem::path(path).lexically_normal();
  const std::string stem = p.has_filename() ? p.filename().string() : p.parent_path().filename().string();
  return stem.empty() ? path : stem;
}

/// Multiplies the measured compute durations of `trace` by `factor`, and with `calls` the
/// measured times of its collectives and transfers too.
void scale_measured(trace::Trace& trace, double factor, bool calls) {
  for (trace::Program& program : trace.programs) {
    for (trace::Op& op : program.ops) {
      if (op.kind == trace::OpKind::kCompute && op.duration_s > 0) op.duration_s *= factor;
      if (calls && op.kind != trace::OpKind::kCompute && op.measured_s > 0) op.measured_s *= factor;
    }
  }
}

FitRun load_run(const std::string& path, const topology::Platform& platform, bool keep_profiler) {
  namespace fs = std::filesystem;
  FitRun run;
  run.path = path;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!fs::exists(path, ec)) {
      throw InputError(path, 0, "", "no such run: expected a directory of rank<N>.json profiles or a native trace");
    }
    run.trace = trace::read_native(path);
    // An imported trace holds every microsecond of its iteration (operators and calls).
    for (int rank = 0; rank < run.trace.world_size; ++rank) {
      double ms = 0;
      for (const trace::Op& op : run.trace.program_ops(rank))
        ms += 1e3 * std::max(0.0, op.kind == trace::OpKind::kCompute ? op.duration_s : op.measured_s);
      run.iteration_ms = std::max(run.iteration_ms, ms);
    }
    fs::path summary = fs::path(path);
    summary.replace_extension(".summary.json");
    if (fs::is_regular_file(summary, ec)) run.summary = import::read_run_summary(summary.string());
  } else {
    std::vector<import::RankProfile> profiles;
    import::KinetoOptions options;
    for (const std::string& f : import::kineto_rank_files({path})) {
      profiles.push_back(import::read_rank_profile_file(f, import::ProfileWindow::iteration(options.iteration)));
    }
    options.name = run_name(path);
    options.source = path;
    const topology::AcceleratorSpec& acc = platform.network.accelerator();
    options.hardware = trace::Hardware{acc.model, acc.flops, acc.memory_Bps,
                                       fmt::format("ccsim predict: the accelerator of platform {}", platform.name)};
    import::KinetoImport imported = import::import_kineto(profiles, options);
    trace::validate(imported.trace);
    run.trace = std::move(imported.trace);
    for (const import::RankImport& r : imported.ranks) run.iteration_ms = std::max(run.iteration_ms, r.iteration_ms);
    const fs::path summary = fs::path(path) / "summary.json";
    if (fs::is_regular_file(summary, ec)) run.summary = import::read_run_summary(summary.string());
  }
  // The profiler slows the program down (the shared runs: 1 to 11 %): its time is in the
  // measured operators. Compute is brought to the iteration time measured without it.
  if (!keep_profiler && run.summary && run.summary->unprofiled_ms > 0 && run.iteration_ms > 0) {
    run.profiler_factor = run.summary->unprofiled_ms / run.iteration_ms;
    scale_measured(run.trace, run.profiler_factor, false);
  }
  return run;
}

/// The runs of the configuration to predict (--config, each a summary.json): one run, or repeats
/// of one configuration, whose measurement is the median of their iteration times.
struct TargetRuns {
  std::optional<import::RunSummary> first;  ///< the configuration (the first summary), its probe the runs' mean
  std::vector<import::RunSummary> all;
  double measured_ms = -1;  ///< median over the runs that measured one, max over ranks
  std::string measured_from;
  std::vector<double> steps_ms;  ///< every timed step of the runs (max over ranks)
  int runs_with_steps = 0;
};

/// How much the measurement itself scatters: its timed steps (max over ranks) about their
/// median, and the prediction against the slowest and the fastest; "" with fewer than 2 steps.
std::string spread_line(const std::vector<double>& steps_ms, int runs, double predicted_ms) {
  if (steps_ms.size() < 2) return "";
  std::vector<double> sorted = steps_ms;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  const double lo = sorted.front(), hi = sorted.back();
  return fmt::format(
      "measurement spread: {} timed steps{} (each max over ranks) span {:.3f} to {:.3f} ms, {:+.1f} to "
      "{:+.1f} % about their median {:.3f} ms; against one step the prediction errs {:+.2f} % (the "
      "slowest) to {:+.2f} % (the fastest)\n",
      n, runs > 1 ? fmt::format(" of {} runs", runs) : std::string(), lo, hi, 100 * (lo / median - 1),
      100 * (hi / median - 1), median, 100 * (predicted_ms / hi - 1), 100 * (predicted_ms / lo - 1));
}

/// How far apart in speed the runs were made: the GEMM probes (summary.json) of the fitted runs
/// and of the target's runs, those that have one.
struct ProbeSpan {
  int runs = 0;
  double min = 0, max = 0;
};

ProbeSpan probe_span(const std::vector<double>& probes) {
  ProbeSpan s;
  for (double p : probes) {
    if (!(p > 0)) continue;
    s.min = s.runs == 0 ? p : std::min(s.min, p);
    s.max = s.runs == 0 ? p : std::max(s.max, p);
    ++s.runs;
  }
  return s;
}

std::string probe_line(const ProbeSpan& s) {
  if (s.runs < 2) return "";
  return fmt::format(
      "machine speed: the GEMM probes of {} runs (summary.json: the mean of the generator's probe before "
      "and after each) span {:.2f} to {:.2f} GFLOP/s (x{:.2f}): the machine's speed changed that much "
      "between the runs, and a prediction from some of them for another carries it "
      "(--scale-machine-speed scales each run by its probe)\n",
      s.runs, s.min, s.max, s.max / s.min);
}

bool same_configuration(const import::RunConfig& a, const import::RunConfig& b, std::string& field) {
  const std::pair<const char*, bool> checks[] = {{"config.tp", a.tp == b.tp},
                                                 {"config.pp", a.pp == b.pp},
                                                 {"config.dp", a.dp == b.dp},
                                                 {"config.layers", a.layers == b.layers},
                                                 {"config.hidden", a.hidden == b.hidden},
                                                 {"config.heads", a.heads == b.heads},
                                                 {"config.seq", a.seq == b.seq},
                                                 {"config.vocab", a.vocab == b.vocab},
                                                 {"config.micro_batch", a.micro_batch == b.micro_batch},
                                                 {"config.num_micro_batches", a.micro_batches == b.micro_batches},
                                                 {"config.act", a.act == b.act}};
  for (const auto& [name, same] : checks) {
    if (!same) {
      field = name;
      return false;
    }
  }
  return true;
}

TargetRuns read_targets(const std::vector<std::string>& files) {
  TargetRuns out;
  std::vector<double> times;
  double probe_sum = 0;
  int probes = 0;
  for (const std::string& file : files) {
    import::RunSummary s = import::read_run_summary(file);
    if (!s.config) throw InputError(file, 0, "config", "missing: the summary names no configuration to predict");
    if (!out.all.empty()) {
      std::string field;
      if (!same_configuration(*out.all.front().config, *s.config, field)) {
        throw InputError(file, 0, field,
                         fmt::format("differs from {}: repeated --config summaries must be runs of one configuration",
                                     out.all.front().file));
      }
    }
    if (s.unprofiled_ms > 0) times.push_back(s.unprofiled_ms);
    if (!s.unprofiled_step_ms.empty()) {
      out.steps_ms.insert(out.steps_ms.end(), s.unprofiled_step_ms.begin(), s.unprofiled_step_ms.end());
      ++out.runs_with_steps;
    }
    if (s.gemm_probe_gflops > 0) {
      probe_sum += s.gemm_probe_gflops;
      ++probes;
    }
    out.all.push_back(std::move(s));
  }
  if (out.all.empty()) return out;
  out.first = out.all.front();
  out.first->gemm_probe_gflops = probes > 0 ? probe_sum / probes : 0;
  if (times.empty()) return out;
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  out.measured_ms = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  if (out.all.size() == 1) {
    out.measured_from = fmt::format("{}: median iteration without the profiler, max over ranks", out.all.front().file);
  } else {
    std::vector<std::string> each;
    for (const import::RunSummary& t : out.all) {
      each.push_back(t.unprofiled_ms > 0 ? fmt::format("{} {:.3f}", t.file, t.unprofiled_ms)
                                         : fmt::format("{} (no time without the profiler)", t.file));
    }
    out.measured_from = fmt::format(
        "median of {} runs of the configuration, {:.3f} to {:.3f} ms (each its median "
        "iteration without the profiler, max over ranks): {}",
        n, sorted.front(), sorted.back(), fmt::join(each, ", "));
  }
  return out;
}

/// The model to synthesise: the preset or file, with the configuration's and the flags' sizes.
synth::ModelSpec target_model(const PredictCommand& cmd, const std::optional<import::RunConfig>& config) {
  synth::ModelSpec m = synth::load_model(cmd.model);
  auto pick = [](int flag, int from_config) { return flag > 0 ? flag : from_config; };
  const int layers = pick(cmd.layers, config ? config->layers : 0);
  const int hidden = pick(cmd.hidden, config ? config->hidden : 0);
  const int heads = pick(cmd.heads, config ? config->heads : 0);
  const int seq = pick(cmd.seq, config ? config->seq : 0);
  const int vocab = pick(cmd.vocab, config ? config->vocab : 0);
  if (layers > 0) m.layers = layers;
  if (hidden > 0) {
    m.ffn = m.ffn / m.hidden * hidden;  // keep the model's FFN ratio (4 for GPT)
    m.hidden = hidden;
  }
  if (heads > 0) m.heads = m.kv_heads = heads;
  if (seq > 0) m.seq = seq;
  if (vocab > 0) m.vocab = vocab;
  const std::string act = !cmd.act.empty() ? cmd.act : config ? config->act : std::string();
  if (act == "relu")
    m.activation = synth::Activation::kRelu;
  else if (act == "gelu")
    m.activation = synth::Activation::kGelu;
  else if (!act.empty()) {
    throw InputError(cmd.config.empty() ? "command line" : cmd.config.front(), 0,
                     cmd.act.empty() ? "config.act" : "--act", fmt::format("expected relu or gelu, got \"{}\"", act));
  }
  if (m.hidden % m.heads != 0) {
    throw InputError("command line", 0, "--heads",
                     fmt::format("expected a divisor of hidden {}, got \"{}\"", m.hidden, m.heads));
  }
  return m;
}

synth::Parallelism target_parallelism(const PredictCommand& cmd, const std::optional<import::RunConfig>& config) {
  synth::Parallelism par = cmd.par;
  par.schedule = synth::PipelineSchedule::kGpipe;
  if (config) {
    if (!cmd.given_tp && config->tp > 0) par.tp = config->tp;
    if (!cmd.given_pp && config->pp > 0) par.pp = config->pp;
    if (!cmd.given_dp && config->dp > 0) par.dp = config->dp;
    if (!cmd.given_mb && config->micro_batches > 0) par.micro_batches = config->micro_batches;
    if (!cmd.given_mbs && config->micro_batch > 0) par.micro_batch_size = config->micro_batch;
  }
  return par;
}

std::string kinds_line(const calibrate::ComputeModel& model) {
  std::string out;
  for (const calibrate::KindModel& k : model.kinds) {
    std::string terms;
    if (k.overhead_s > 0) terms += fmt::format("{:.1f} us", k.overhead_s * 1e6);
    if (k.flop_rate > 0 && k.flop_exponent != 1) {
      terms += fmt::format("{}flops / ({:.3g} GFLOP/s x (flops / {:.4g})^{:.2f})", terms.empty() ? "" : " + ",
                           k.flop_rate / 1e9, k.flop_reference, 1 - k.flop_exponent);
    } else if (k.flop_rate > 0) {
      terms += fmt::format("{}flops / {:.3g} GFLOP/s", terms.empty() ? "" : " + ", k.flop_rate / 1e9);
    }
    if (k.byte_rate > 0) terms += fmt::format("{}bytes / {:.3g} GB/s", terms.empty() ? "" : " + ", k.byte_rate / 1e9);
    if (terms.empty()) terms = "0";
    out += fmt::format("    {:<16} {} ({} operators)\n", k.kind, terms, k.points);
  }
  return out;
}

/// What the synthesised `model` and `par` change of `config` ("layers 2 -> 8, dp 2 -> 1"),
/// empty when they are its configuration.
std::string configuration_changes(const import::RunConfig& config, const synth::ModelSpec& model,
                                  const synth::Parallelism& par) {
  std::vector<std::string> changes;
  auto compare = [&](std::string_view what, long long was, long long now) {
    if (was > 0 && was != now) changes.push_back(fmt::format("{} {} -> {}", what, was, now));
  };
  compare("tp", config.tp, par.tp);
  compare("pp", config.pp, par.pp);
  compare("dp", config.dp, par.dp);
  compare("layers", config.layers, model.layers);
  compare("hidden", config.hidden, model.hidden);
  compare("heads", config.heads, model.heads);
  compare("seq", config.seq, par.seq > 0 ? par.seq : model.seq);
  compare("vocab", config.vocab, model.vocab);
  compare("micro-batch size", config.micro_batch, par.micro_batch_size);
  compare("micro-batches", config.micro_batches, par.micro_batches);
  const std::string act(synth::activation_name(model.activation));
  if (!config.act.empty() && config.act != act) changes.push_back(fmt::format("act {} -> {}", config.act, act));
  return fmt::format("{}", fmt::join(changes, ", "));
}

void run_predict(const PredictCommand& cmd) {
  if (cmd.runs.empty()) throw InputError("command line", 0, "runs", "expected at least one traced run to fit on");
  if (cmd.measured_given() && !(cmd.measured_ms > 0 && cmd.measured_ms <= trace::kMaxDurationMs)) {  // NaN too
    throw InputError("command line", 0, "--measured-ms",
                     fmt::format("expected a positive time in ms, at most {:g} (a year), got \"{}\"",
                                 trace::kMaxDurationMs, cmd.measured_ms));
  }
  const topology::Platform platform = read_named_platform(cmd.platform);
  const TargetRuns targets = read_targets(cmd.config);
  const std::optional<import::RunSummary>& target = targets.first;
  if (!cmd.trace_out.empty()) check_output_path(cmd.trace_out);
  if (!cmd.model_out.empty()) check_output_path(cmd.model_out);
  check_distinct_outputs({{"--write-trace", cmd.trace_out}, {"--write-model", cmd.model_out}});

  std::vector<FitRun> runs;
  for (const std::string& path : cmd.runs) {
    std::cerr << fmt::format("predict: reading {}\n", path);
    runs.push_back(load_run(path, platform, cmd.keep_profiler));
  }
  // The machine's speed drifts (a shared VM ran 2.3x slower one evening than another). With
  // --scale-machine-speed, when the target's summary and a run's record the generator's GEMM
  // probe, the run's measured times (compute and traced calls alike: the loopback backend runs
  // on the same CPUs) are brought to the target's machine state by the ratio of the probes.
  // Not the default: a probe of a few GEMMs scatters by 10-20 % within one session, which
  // made predictions among runs of one session worse (tp2_pp2 left out: -4.5 -> -13.1 %).
  std::vector<std::string> speed_notes;
  if (target && target->gemm_probe_gflops > 0 && cmd.scale_speed) {
    for (FitRun& run : runs) {
      if (!run.summary || !(run.summary->gemm_probe_gflops > 0)) continue;
      const double factor = run.summary->gemm_probe_gflops / target->gemm_probe_gflops;
      scale_measured(run.trace, factor, true);
      run.speed_factor = factor;
      speed_notes.push_back(fmt::format("{}: GEMM probe {:.2f} GFLOP/s, the target's {:.2f}: its times x{:.4f}",
                                        run.path, run.summary->gemm_probe_gflops, target->gemm_probe_gflops, factor));
    }
  }
  // Compute measured on ranks that shared cores (more ranks than the platform's cores) is
  // slower by that sharing. A synthesised target is timed by compute fitted on runs whose
  // ranks had a core each, when there are any, and the replay time-shares it on the target's
  // cores (ReplayOptions::dedicated_durations); a run replayed as traced keeps its own
  // sharing, and its fit takes the runs that share as it does.
  const int cores = platform.network.accelerator_count();
  const int target_world = cmd.traced ? runs.front().trace.world_size
                                      : target_parallelism(cmd, target ? target->config : std::nullopt).world();
  const bool target_shared = target_world > cores;
  const bool want_shared = cmd.traced && target_shared;
  std::vector<trace::Trace> traces;
  std::vector<std::string> left_out;
  for (const FitRun& r : runs) {
    if ((r.trace.world_size > cores) == want_shared)
      traces.push_back(r.trace);
    else
      left_out.push_back(r.path);
  }
  std::string sharing_note;
  bool dedicated = !want_shared;
  if (traces.empty()) {
    for (const FitRun& r : runs) traces.push_back(r.trace);
    dedicated = false;
    sharing_note = fmt::format(
        "no fitted run {} cores as the target needs ({} ranks on {} cores of {}): fitted on all, "
        "whose compute durations carry {} sharing and are not time-shared again",
        want_shared ? "shares" : "leaves unshared", target_world, cores, platform.name, want_shared ? "no" : "their");
    left_out.clear();
  } else if (!left_out.empty()) {
    sharing_note = fmt::format("left out of the fit: {} ({} than {} cores of {})", fmt::join(left_out, ", "),
                               want_shared ? "no more ranks" : "more ranks", cores, platform.name);
  }
  if (dedicated && target_shared) {
    sharing_note += fmt::format(
        "{}{} ranks on {} cores: the fitted compute (of ranks with a core each) time-shares the "
        "cores in the replay",
        sharing_note.empty() ? "" : "; ", target_world, cores);
  }
  calibrate::ComputeFit fit =
      calibrate::fit_compute(traces, calibrate::FitObjective::kTotal, flop_exponent_choice(cmd.flop_exponent));
  fit.model.name = "predict";
  fit.model.description = "fitted by ccsim predict (least squares on absolute residuals: each kind's total time kept)";
  const topology::AcceleratorSpec& acc = platform.network.accelerator();
  // The platform's message bandwidth (its calibrated network model's largest messages, or its
  // intra-node link) for a backend fit whose calls have one size.
  double platform_Bps = platform.network.link(platform.network.intra_link(0)).bandwidth_Bps;
  if (auto net = load_platform_network_model(platform); net && net->has_intra && !net->intra.segments.empty()) {
    platform_Bps = net->intra.segments.back().bandwidth_Bps;
  }
  calibrate::BackendFit backend = calibrate::fit_backend(
      fit.call_samples, 1.0 / acc.reduce_Bps, platform_Bps, fit.model.hardware.name,
      fmt::format("ccsim predict: the traced calls of {}", fmt::join(cmd.runs, ", ")), cmd.runs.front());

  // The trace to replay: the first run as traced (its own measured compute), or the target
  // configuration synthesised and timed by the compute model.
  trace::Trace trace;
  std::string what;
  std::string compute_note;
  std::string changed_config;  // what the command line changed of --config's configuration, e.g. "layers 2 -> 8"
  std::string config_note;
  if (cmd.traced) {
    trace = runs.front().trace;
    what = fmt::format("{} as traced ({} ranks, its measured compute durations)", runs.front().path, trace.world_size);
    compute_note =
        runs.front().profiler_factor != 1
            ? fmt::format("compute as measured, x{:.4f} for the profiler's overhead", runs.front().profiler_factor)
            : std::string("compute as measured");
  } else {
    const std::optional<import::RunConfig> config = target ? target->config : std::nullopt;
    const synth::ModelSpec model = target_model(cmd, config);
    const synth::Parallelism par = target_parallelism(cmd, config);
    if (config) changed_config = configuration_changes(*config, model, par);
    trace = synth::synthesize_torch(model, par, platform.name);
    trace::validate(trace);
    what = fmt::format(
        "{} (hidden {}, {} layers, {} heads, sequence {}, vocabulary {}, {}), TP {} x PP {} x DP {}, {} "
        "micro-batches of {}, GPipe",
        model.name, model.hidden, model.layers, model.heads, par.seq > 0 ? par.seq : model.seq, model.vocab,
        synth::activation_name(model.activation), par.tp, par.pp, par.dp, par.micro_batches, par.micro_batch_size);
    calibrate::adjust_compute(trace, acc, platform.name, calibrate::ComputeMode::kModel, &fit.model);
    compute_note = fmt::format(
        "every operator timed by the compute model fitted here ({} kinds; the synthesised trace has "
        "no durations of its own)",
        fit.model.kinds.size());
  }
  engine::ReplayOptions options;
  options.network.calibrated = std::make_shared<const topology::NetworkModel>(backend.model);
  options.network.source = "the traced backend";
  options.all_reduce_algorithm = backend.algorithm;
  options.oversubscribe = true;
  options.dedicated_durations = dedicated && !cmd.traced;
  // The backend is fitted on the same runs: of ranks with a core each, or sharing as the target.
  options.network.per_core = dedicated;
  options.compute = compute_note;
  engine::Result result = engine::replay(trace, platform, options);
  const double predicted_ms = result.makespan_s * 1e3;
  // Ranks of identical work wait for each other at their collectives when their measured
  // compute differs (a shared machine runs its cores at different speeds from one second to
  // the next); the synthesised ranks are identical and never do. Each fitted run replayed as
  // traced says how much of that the prediction leaves out (docs/calibration.md, "Predicting untraced
  // configurations").
  if (!cmd.traced) {
    engine::ReplayOptions as_traced = options;
    as_traced.dedicated_durations = false;
    as_traced.compute = "compute as measured";
    for (FitRun& r : runs) {
      const bool fitted = std::find(left_out.begin(), left_out.end(), r.path) == left_out.end();
      const bool collectives =
          std::any_of(r.trace.programs.begin(), r.trace.programs.end(), [](const trace::Program& p) {
            return std::any_of(p.ops.begin(), p.ops.end(),
                               [](const trace::Op& op) { return trace::is_collective(op.kind); });
          });
      if (r.trace.world_size < 2 || !fitted || !collectives) continue;
      const engine::Result traced = engine::replay(r.trace, platform, as_traced);
      std::tie(r.collective_wait_ms, r.compute_ms) = collective_wait_and_compute_ms(r.trace, traced);
    }
  }

  double measured_ms = cmd.measured_given() ? cmd.measured_ms : -1;
  std::string measured_from = "--measured-ms";
  std::vector<double> steps_ms;  // the measurement's timed steps, when it comes from summaries
  int step_runs = 0;
  if (measured_ms < 0 && targets.measured_ms > 0 && !changed_config.empty()) {
    config_note = fmt::format(
        "the command line changes the configuration of {} ({}): its measured time is not "
        "compared (--measured-ms gives one)",
        targets.first->file, changed_config);
  } else if (measured_ms < 0 && targets.measured_ms > 0) {
    measured_ms = targets.measured_ms;
    measured_from = targets.measured_from;
    steps_ms = targets.steps_ms;
    step_runs = targets.runs_with_steps;
  } else if (measured_ms < 0 && cmd.traced && runs.front().summary && runs.front().summary->unprofiled_ms > 0) {
    measured_ms = runs.front().summary->unprofiled_ms;
    measured_from =
        fmt::format("{}: median iteration without the profiler, max over ranks", runs.front().summary->file);
    steps_ms = runs.front().summary->unprofiled_step_ms;
    step_runs = 1;
  }

  std::vector<double> probes;
  for (const FitRun& r : runs) probes.push_back(r.summary ? r.summary->gemm_probe_gflops : 0);
  if (!cmd.measured_given() && changed_config.empty()) {
    for (const import::RunSummary& t : targets.all) probes.push_back(t.gemm_probe_gflops);
  }
  const ProbeSpan span = probe_span(probes);

  if (!cmd.trace_out.empty()) {
    std::ostringstream text;
    trace::write_native(trace, text, 1);  // one program per rank (synth::torch_program)
    write_output(cmd.trace_out, text.str());
  }
  if (!cmd.model_out.empty()) {
    fit.model.command = fmt::format("ccsim predict {}", fmt::join(cmd.runs, " "));
    for (const std::string& r : cmd.runs) fit.model.traces.push_back(r);
    write_output(cmd.model_out, calibrate::write_compute_model(fit.model));
  }

  if (cmd.format == "json") {
    nlohmann::ordered_json j;
    j["target"] = what;
    j["platform"] = platform.name;
    j["placement"] = result.placement;
    j["notes"] = result.notes;
    j["predicted_ms"] = predicted_ms;
    j["measured_ms"] = measured_ms > 0 ? nlohmann::ordered_json(measured_ms) : nlohmann::ordered_json();
    j["target_gemm_probe_gflops"] = target && target->gemm_probe_gflops > 0
                                        ? nlohmann::ordered_json(target->gemm_probe_gflops)
                                        : nlohmann::ordered_json();
    j["error"] = measured_ms > 0 ? nlohmann::ordered_json(predicted_ms / measured_ms - 1) : nlohmann::ordered_json();
    j["measured_steps_ms"] = steps_ms.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(steps_ms);
    j["gemm_probe_span"] =
        span.runs >= 2 ? nlohmann::ordered_json{{"runs", span.runs}, {"min_gflops", span.min}, {"max_gflops", span.max}}
                       : nlohmann::ordered_json();
    if (!config_note.empty()) j["notes"].push_back(config_note);
    if (!cmd.measured_given() && changed_config.empty()) {
      for (const import::RunSummary& t : targets.all) {
        j["measured_runs"].push_back({{"summary", t.file},
                                      {"unprofiled_ms", t.unprofiled_ms > 0 ? nlohmann::ordered_json(t.unprofiled_ms)
                                                                            : nlohmann::ordered_json()}});
      }
    }
    for (const FitRun& r : runs) {
      const bool probed = r.summary && r.summary->gemm_probe_gflops > 0;
      j["fitted_on"].push_back(
          {{"run", r.path},
           {"ranks", r.trace.world_size},
           {"profiler_factor", r.profiler_factor},
           {"gemm_probe_gflops",
            probed ? nlohmann::ordered_json(r.summary->gemm_probe_gflops) : nlohmann::ordered_json()},
           {"machine_speed_factor", r.speed_factor},
           {"collective_wait_ms",
            r.collective_wait_ms >= 0 ? nlohmann::ordered_json(r.collective_wait_ms) : nlohmann::ordered_json()},
           {"compute_ms", r.compute_ms >= 0 ? nlohmann::ordered_json(r.compute_ms) : nlohmann::ordered_json()}});
    }
    j["backend"] = {{"latency_s", backend.model.intra.segments.front().latency_s},
                    {"bandwidth_Bps", backend.model.intra.segments.front().bandwidth_Bps},
                    {"calls", backend.calls},
                    {"algorithm", backend.algorithm}};
    if (cmd.breakdown) {
      report::BreakdownOptions view;
      view.key = report::RowKey::kName;
      j["breakdown"] = nlohmann::ordered_json::parse(render(report::make_breakdown(result, view), "json"));
    }
    write_output("-", j.dump(2) + "\n");
    return;
  }
  std::string out = fmt::format("predict: {} on {}\n", what, platform.name);
  out += fmt::format("fitted on {} run{}:\n", runs.size(), runs.size() == 1 ? "" : "s");
  for (const FitRun& r : runs) {
    out += fmt::format("  {}: {} ranks", r.path, r.trace.world_size);
    if (r.iteration_ms > 0) out += fmt::format(", profiled iteration {:.3f} ms", r.iteration_ms);
    if (r.summary && r.summary->unprofiled_ms > 0)
      out += fmt::format(", {:.3f} ms without the profiler", r.summary->unprofiled_ms);
    if (r.profiler_factor != 1) out += fmt::format(": compute x{:.4f}", r.profiler_factor);
    out += "\n";
  }
  if (!sharing_note.empty()) out += fmt::format("note: {}\n", sharing_note);
  for (const std::string& n : speed_notes) out += fmt::format("note: machine speed: {}\n", n);
  out += fmt::format("compute model ({} kinds, {} operators; least squares on absolute residuals):\n",
                     fit.model.kinds.size(), fit.compute_ops);
  out += kinds_line(fit.model);
  const topology::CostSegment& seg = backend.model.intra.segments.front();
  out += fmt::format(
      "backend: {} traced calls as one tier, {:.1f} us + bytes / {} per message ({} schedule for all_reduce); "
      "their total {:.3f} ms measured, {:.3f} ms by the tier\n",
      backend.calls, seg.latency_s * 1e6, format_rate(seg.bandwidth_Bps), backend.algorithm, backend.measured_s * 1e3,
      backend.predicted_s * 1e3);
  for (const std::string& n : backend.notes) out += fmt::format("note: {}\n", n);
  out += fmt::format("compute: {}\n", compute_note);
  out += fmt::format("replay: placement {}\n", result.placement);
  for (const std::string& n : result.notes) out += fmt::format("note: {}\n", n);
  std::vector<std::string> waits;
  for (const FitRun& r : runs) {
    if (r.collective_wait_ms < 0 || !(r.compute_ms > 0)) continue;
    waits.push_back(fmt::format("{} {:.1f} ms ({:.1f} % of its compute)", run_name(r.path), r.collective_wait_ms,
                                100 * r.collective_wait_ms / r.compute_ms));
  }
  if (!waits.empty()) {
    out += fmt::format(
        "note: replayed as traced, the fitted runs' ranks waited at their collectives for peers whose "
        "measured compute ran longer, per rank: {}; the synthesised ranks are identical and never wait, "
        "so a measurement may exceed the prediction by about as much\n",
        fmt::join(waits, ", "));
  }
  if (!config_note.empty()) out += fmt::format("note: {}\n", config_note);
  out += fmt::format("predicted iteration: {:.3f} ms\n", predicted_ms);
  if (measured_ms > 0) {
    out += fmt::format("measured iteration:  {:.3f} ms ({})\n", measured_ms, measured_from);
    out += fmt::format("error: {:+.2f} %\n", 100 * (predicted_ms / measured_ms - 1));
    out += spread_line(steps_ms, step_runs, predicted_ms);
  }
  out += probe_line(span);
  if (cmd.breakdown) {
    report::BreakdownOptions view;
    view.key = report::RowKey::kName;
    out += "\n" + render(report::make_breakdown(result, view), "text");
  }
  write_output("-", out);
}

}  // namespace

void setup_predict(CLI::App& app) {
  auto cmd = std::make_shared<PredictCommand>();
  CLI::App* sub = app.add_subcommand(
      "predict",
      "Predict the iteration time of a configuration that was not traced: fit compute and the traced backend's "
      "collectives on traced runs, synthesise the configuration (the PyTorch program of the shared runs), replay it; "
      "with a measurement, print predicted against measured");
  sub->add_option("runs", cmd->runs,
                  "Traced runs to fit on: directories of rank<N>.json PyTorch profiles (with their summary.json) or "
                  "native traces")
      ->required();
  sub->add_option("--config", cmd->config,
                  "summary.json of the run to predict: its configuration (flags override it) and its measured "
                  "iteration time; repeat it for repeated runs of one configuration, measured as the median of their "
                  "times")
      ->allow_extra_args(false);
  sub->add_option("--model", cmd->model, "Model preset or file the sizes apply to")->capture_default_str();
  sub->add_option("--layers", cmd->layers, "Transformer layers")->check(CLI::Range(1, 100000));
  sub->add_option("--hidden", cmd->hidden, "Hidden size (the FFN keeps the model's ratio)")
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option("--heads", cmd->heads, "Attention heads")->check(CLI::Range(1, 1 << 14));
  sub->add_option("--seq", cmd->seq, "Sequence length")->check(CLI::Range(1, 1 << 24));
  sub->add_option("--vocab", cmd->vocab, "Vocabulary")->check(CLI::Range(1, 1 << 24));
  sub->add_option("--act", cmd->act, "Activation")->check(one_of({"relu", "gelu"}));
  sub->add_option("--tp", cmd->par.tp, "Tensor-parallel size")->capture_default_str();
  sub->add_option("--pp", cmd->par.pp, "Pipeline stages (GPipe)")->capture_default_str();
  sub->add_option("--dp", cmd->par.dp, "Data-parallel replicas")->capture_default_str();
  sub->add_option("--micro-batches", cmd->par.micro_batches, "Micro-batches per iteration")->capture_default_str();
  sub->add_option("--micro-batch-size", cmd->par.micro_batch_size, "Sequences per micro-batch")->capture_default_str();
  sub->add_option("--measured-ms", cmd->measured_ms, "The measured iteration time to compare with (ms)");
  sub->add_option("--platform", cmd->platform,
                  "Platform (NAME|FILE) the runs were traced on and the prediction replays on")
      ->capture_default_str();
  sub->add_flag("--traced", cmd->traced,
                "Replay the first run as traced (its measured compute) instead of a synthesised trace: how well the "
                "replay reproduces a measured run");
  sub->add_flag("--scale-machine-speed", cmd->scale_speed,
                "Scale each run's measured times by its GEMM probe over the target's (both from summary.json): for "
                "runs made in another state of the machine");
  sub->add_flag("--keep-profiler-overhead", cmd->keep_profiler,
                "Fit on the profiled durations as they are (default: scaled to the iteration time summary.json "
                "measured without the profiler)");
  sub->add_flag("--breakdown", cmd->breakdown, "Also print the replay's per-operator breakdown");
  add_flop_exponent_option(sub, cmd->flop_exponent);
  sub->add_option("-f,--format", cmd->format, "Output format: text or json")
      ->check(one_of({"text", "json"}))
      ->capture_default_str();
  sub->add_option("--write-trace", cmd->trace_out,
                  "Also write the replayed trace (native format, with its durations; replayed with `ccsim replay` it "
                  "takes the platform's network, not the backend fitted here)");
  sub->add_option("--write-model", cmd->model_out, "Also write the fitted compute model (models/README.md)");
  sub->callback([cmd, sub] {
    cmd->given_tp = sub->count("--tp") > 0;
    cmd->given_pp = sub->count("--pp") > 0;
    cmd->given_dp = sub->count("--dp") > 0;
    cmd->given_mb = sub->count("--micro-batches") > 0;
    cmd->given_mbs = sub->count("--micro-batch-size") > 0;
    cmd->measured_set = sub->count("--measured-ms") > 0;
    run_predict(*cmd);
  });
}

}  // namespace ccsim::cli
