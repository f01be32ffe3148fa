#include "predict/runs.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/input_error.hpp"
#include "import/kineto.hpp"
#include "study/job_facts.hpp"
#include "trace/native_reader.hpp"
#include "trace/validate.hpp"

namespace ccsim::predict {
namespace {

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

}  // namespace

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

void scale_measured(trace::Trace& trace, double factor, bool calls) {
  for (trace::Program& program : trace.programs) {
    for (trace::Op& op : program.ops) {
      if (op.kind == trace::OpKind::kCompute && op.duration_s > 0) op.duration_s *= factor;
      if (calls && op.kind != trace::OpKind::kCompute && op.measured_s > 0) op.measured_s *= factor;
    }
  }
}

LoadedRun load_run(const std::string& path, const topology::Platform& platform, bool keep_profiler) {
  namespace fs = std::filesystem;
  LoadedRun loaded;
  FittedRun& run = loaded.run;
  run.path = path;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!fs::exists(path, ec)) {
      throw InputError(path, 0, "", "no such run: expected a directory of rank<N>.json profiles or a native trace");
    }
    loaded.trace = trace::read_native(path);
    // An imported trace holds every microsecond of its iteration (operators and calls).
    for (int rank = 0; rank < loaded.trace.world_size; ++rank) {
      double ms = 0;
      for (const trace::Op& op : loaded.trace.program_ops(rank))
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
    options.hardware = study::accelerator_hardware(platform, "ccsim predict");
    import::KinetoImport imported = import::import_kineto(profiles, options);
    trace::validate(imported.trace);
    loaded.trace = std::move(imported.trace);
    for (const import::RankImport& r : imported.ranks) run.iteration_ms = std::max(run.iteration_ms, r.iteration_ms);
    const fs::path summary = fs::path(path) / "summary.json";
    if (fs::is_regular_file(summary, ec)) run.summary = import::read_run_summary(summary.string());
  }
  // The profiler slows the program down, and its time is in the measured operators: compute
  // is brought to the iteration time measured without it.
  if (!keep_profiler && run.summary && run.summary->unprofiled_ms > 0 && run.iteration_ms > 0) {
    run.profiler_factor = run.summary->unprofiled_ms / run.iteration_ms;
    scale_measured(loaded.trace, run.profiler_factor, false);
  }
  run.ranks = loaded.trace.world_size;
  return loaded;
}

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

}  // namespace ccsim::predict
