#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/compute_model.hpp"
#include "trace/trace.hpp"

namespace ccsim::calibrate {

/// One measured operator (or call): its cost figures and its time.
struct CostSample {
  double flops = 0;
  double bytes = 0;
  double time_s = 0;
};

/// What a fit minimises: relative residuals (every operator counts alike: `calibrate trace`),
/// or absolute ones (long operators count more, and a kind's total time is kept: what a
/// prediction of an iteration's time needs; a constant is fitted as the mean).
enum class FitObjective : std::uint8_t { kRelative, kTotal };
/// The objective of --objective: "relative", else (as "total") kTotal.
FitObjective fit_objective_of(const std::string& text);

/// Non-negative least squares on relative residuals: minimises sum_i ((A x)_i / t_i - 1)^2
/// (kTotal: sum_i ((A x)_i - t_i)^2) over x >= 0, where row i of A is `columns[j][i]`. Exact (every active set is
/// tried, at most 2^k for k <= 3 columns); columns allowed by `allowed` only, at most `max_terms` of them non-zero.
/// Returns x (0 for unused columns); `ok` false when no subset is solvable.
struct NnlsResult {
  std::vector<double> x;
  double sse = 0;
  bool ok = false;
};
NnlsResult fit_relative_nnls(const std::vector<std::vector<double>>& columns, const std::vector<double>& time_s,
                             const std::vector<bool>& allowed, int max_terms,
                             FitObjective objective = FitObjective::kRelative);

/// Whether the FLOP term may grow as a power of the FLOPs other than 1 (KindModel::flop_exponent).
enum class FlopExponent : std::uint8_t {
  kOne,  ///< time = ... + flops / flop_rate: one rate for every size
  kFit,  ///< the exponent is fitted too, and kept where it pays for itself (below)
};
/// The choice of --flop-exponent: "1", else (as "fit") kFit.
FlopExponent flop_exponent_of(const std::string& text);

/// Fits overhead + flops / flop_rate + bytes / byte_rate to the samples of one operator kind
/// (all with time_s > 0). The number of terms is bounded by the distinct (flops, bytes)
/// points (at most distinct - 1 terms, at least one), so that a kind with few distinct
/// points gets a simpler model; `form` says which terms were allowed. Notes explain any
/// simplification.
/// With FlopExponent::kFit, a kind whose FLOP term is used and whose operators have at least
/// 3 distinct FLOP counts spanning a factor of 2 or more is also fitted with the FLOP term
/// flops / flop_rate * (flops / reference)^(p - 1), p from 0.50 to 1.50 in steps of 0.01 and the
/// reference the median FLOPs of its operators. The exponent replaces the byte term (a GEMM's
/// bytes grow more slowly than its FLOPs, so the two trade off and the curve leaves the data)
/// and counts as a term towards the distinct - 1 above. It is kept when it pays for its
/// parameter by the Bayesian information criterion (n ln(SSE / n) + terms ln n) and lies inside
/// the range (at 0.50 or 1.50 the data asks for more than a FLOP rate's size dependence: a note
/// says so), else p = 1.
KindModel fit_kind(const std::string& kind, const std::vector<CostSample>& samples, std::vector<std::string>& notes,
                   FitObjective objective = FitObjective::kRelative, FlopExponent exponent = FlopExponent::kOne);

/// Fits latency + bytes / bandwidth to calls of one collective kind (flops unused).
CallModel fit_calls(trace::OpKind kind, int ranks, const std::vector<CostSample>& samples,
                    std::vector<std::string>& notes, FitObjective objective = FitObjective::kRelative);

/// One measured collective or transfer call (the least time over its ranks).
struct CallSample {
  trace::OpKind kind = trace::OpKind::kAllReduce;  ///< kSend for a transfer
  int ranks = 2;
  double bytes = 0;
  double time_s = 0;
};

/// Everything calibrate trace fits from a set of traces.
struct ComputeFit {
  ComputeModel model;
  int compute_ops = 0;       ///< operators fitted
  int skipped_zero = 0;      ///< operators with a recorded duration of 0 (below the profiler's resolution)
  int skipped_costless = 0;  ///< operators without FLOPs and bytes in a kind whose others have them
  int skipped_no_duration = 0;
  int calls = 0;                          ///< collective / transfer calls fitted
  int calls_unmeasured = 0;               ///< calls without a measured time
  std::vector<std::uint64_t> call_bytes;  ///< per model.calls entry: the median size of its calls
  std::vector<CallSample> call_samples;   ///< every fitted call
  std::vector<std::string> notes;
  FitObjective objective = FitObjective::kTotal;  ///< what the fit minimised
  /// The fitted operators' measured time, summed, and what the model gives them: a fit on
  /// relative residuals can leave a kind's total far off (its short operators count alike).
  double measured_s = 0, modelled_s = 0;
};

/// Fits a compute model (and the traced collectives' cost) to the measured operators of
/// `traces`. An InputError when no operator has a measured duration. The hardware is the
/// traces' (they must agree; "unknown" when none names it).
ComputeFit fit_compute(const std::vector<trace::Trace>& traces, FitObjective objective = FitObjective::kRelative,
                       FlopExponent exponent = FlopExponent::kOne);

}  // namespace ccsim::calibrate
