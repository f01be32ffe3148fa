#pragma once

// The summary.json of a traced run (../shared/tools/gen_traces.py): its configuration, its
// iteration times with and without the profiler, its timed steps, the machine and the
// per-rank breakdown rows, as `trace import kineto`, `trace inspect` and `predict` read them.

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::import {

/// The configuration of a run of the shared PyTorch program (summary.json "config"); 0 or
/// "" where the summary does not give a value.
struct RunConfig {
  std::string name;
  int tp = 0, pp = 0, dp = 0;
  int layers = 0, hidden = 0, heads = 0, seq = 0, vocab = 0;
  int micro_batch = 0;    ///< sequences per micro-batch
  int micro_batches = 0;  ///< micro-batches per iteration
  std::string act;        ///< relu or gelu
};

/// The per-operator breakdown of a profiled run as measured (shared/traces/pytorch/*/summary.json).
struct RunSummary {
  std::string file;
  double unprofiled_ms = -1;                                 ///< median per step without the profiler, max over ranks
  double profiled_ms = -1;                                   ///< ... with the profiler
  std::vector<double> unprofiled_rank_ms, profiled_rank_ms;  ///< per rank (may be empty)
  /// Each timed step without the profiler, max over ranks (ranks[].unprofiled_step_ms; empty
  /// when the summary has none): how much the measurement itself scatters.
  std::vector<double> unprofiled_step_ms;
  std::vector<std::map<std::string, double>> rows;  ///< rows[rank]: op -> total_ms per iteration
  /// The machine, from environment.lscpu_model_name, nproc and blas ("" when absent); no peak rates.
  std::string hardware;
  /// The machine's speed when the run was made: the mean of the generator's single-thread GEMM
  /// probe before and after it (environment.gemm_probe_gflops_before/after), GFLOP/s; 0 when
  /// absent or not finite and positive.
  double gemm_probe_gflops = 0;
  std::optional<RunConfig> config;  ///< "config", when present
};
RunSummary read_run_summary(const std::string& path);
/// The same, read from `in` (`path` names it in errors).
RunSummary read_run_summary(std::istream& in, const std::string& path);

}  // namespace ccsim::import
