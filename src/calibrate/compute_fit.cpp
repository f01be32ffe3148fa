#include "calibrate/compute_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/input_error.hpp"

namespace ccsim::calibrate {

FitObjective fit_objective_of(const std::string& text) {
  return text == "relative" ? FitObjective::kRelative : FitObjective::kTotal;
}

FlopExponent flop_exponent_of(const std::string& text) { return text == "1" ? FlopExponent::kOne : FlopExponent::kFit; }
namespace {

/// Least squares of the weighted, column-scaled system (right-hand side `rhs`) by modified
/// Gram-Schmidt QR; false when the columns are (numerically) dependent.
bool solve_ls(const std::vector<std::vector<double>>& cols, const std::vector<double>& rhs, std::vector<double>& x) {
  const std::size_t k = cols.size();
  const std::size_t n = cols.empty() ? 0 : cols[0].size();
  if (k == 0 || n < k) return false;
  std::vector<std::vector<double>> q = cols;
  std::vector<std::vector<double>> r(k, std::vector<double>(k, 0.0));
  std::vector<double> norms(k);
  for (std::size_t j = 0; j < k; ++j) {
    double s = 0;
    for (double v : cols[j]) s += v * v;
    norms[j] = std::sqrt(s);
  }
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      double d = 0;
      for (std::size_t m = 0; m < n; ++m) d += q[i][m] * q[j][m];
      r[i][j] = d;
      for (std::size_t m = 0; m < n; ++m) q[j][m] -= d * q[i][m];
    }
    double s = 0;
    for (double v : q[j]) s += v * v;
    r[j][j] = std::sqrt(s);
    if (!(r[j][j] > 1e-9 * norms[j]) || norms[j] == 0) return false;
    for (double& v : q[j]) v /= r[j][j];
  }
  std::vector<double> qtb(k, 0.0);
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t m = 0; m < n; ++m) qtb[j] += q[j][m] * rhs[m];
  }
  x.assign(k, 0.0);
  for (std::size_t j = k; j-- > 0;) {
    double s = qtb[j];
    for (std::size_t i = j + 1; i < k; ++i) s -= r[j][i] * x[i];
    x[j] = s / r[j][j];
  }
  return true;
}

struct Errors {
  double gmean = 0;
  double worst = 0;
};

Errors errors_of(const std::vector<double>& predicted, const std::vector<CostSample>& samples) {
  Errors e;
  double log_sum = 0, farthest = -1;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double ratio = std::max(predicted[i], 1e-300) / samples[i].time_s;
    const double distance = std::fabs(std::log(ratio));
    log_sum += distance;
    if (distance > farthest) {  // the worst in the gmean's terms, with its sign
      farthest = distance;
      e.worst = ratio - 1;
    }
  }
  e.gmean = samples.empty() ? 0 : std::exp(log_sum / static_cast<double>(samples.size())) - 1;
  return e;
}

/// The Bayesian information criterion of a least-squares fit of n points with `terms`
/// parameters: n ln(SSE / n) + terms ln n (lower is better).
double bic(double n, double sse, double terms) { return n * std::log(std::max(sse, 1e-300) / n) + terms * std::log(n); }

int distinct_points(const std::vector<CostSample>& samples, bool with_flops) {
  std::set<std::pair<double, double>> seen;
  for (const CostSample& s : samples) seen.emplace(with_flops ? s.flops : 0.0, s.bytes);
  return static_cast<int>(seen.size());
}

std::string form_of(const std::vector<bool>& allowed, const char* names[3]) {
  std::string out;
  for (std::size_t j = 0; j < allowed.size(); ++j) {
    if (allowed[j]) out += (out.empty() ? "" : " + ") + std::string(names[j]);
  }
  return out;
}

}  // namespace

NnlsResult fit_relative_nnls(const std::vector<std::vector<double>>& columns, const std::vector<double>& time_s,
                             const std::vector<bool>& allowed, int max_terms, FitObjective objective) {
  const std::size_t k = columns.size();
  const std::size_t n = time_s.size();
  NnlsResult best;
  best.x.assign(k, 0.0);
  std::size_t best_terms = 0;
  // Rows weighted by 1 / t (relative residuals, right-hand side 1) or by 1 / mean t (absolute
  // residuals, right-hand side t / mean t); columns scaled to a unit maximum for conditioning.
  double mean_t = 0;
  for (double t : time_s) mean_t += t / static_cast<double>(std::max<std::size_t>(n, 1));
  if (!(mean_t > 0)) mean_t = 1;
  std::vector<double> rhs(n, 1.0);
  std::vector<double> row_weight(n);
  for (std::size_t i = 0; i < n; ++i) {
    row_weight[i] = objective == FitObjective::kRelative ? 1 / time_s[i] : 1 / mean_t;
    if (objective == FitObjective::kTotal) rhs[i] = time_s[i] / mean_t;
  }
  std::vector<std::vector<double>> weighted(k, std::vector<double>(n));
  std::vector<double> scale(k, 1.0);
  for (std::size_t j = 0; j < k; ++j) {
    double mx = 0;
    for (std::size_t i = 0; i < n; ++i) {
      weighted[j][i] = columns[j][i] * row_weight[i];
      mx = std::max(mx, std::fabs(weighted[j][i]));
    }
    if (mx > 0) {
      scale[j] = mx;
      for (double& v : weighted[j]) v /= mx;
    }
  }
  // Subsets by size, the size terms first: on a tie (one distinct point fits any single term
  // exactly) a rate, which scales with the operator, is kept rather than a constant.
  std::vector<unsigned> masks;
  for (unsigned mask = 1; mask < (1U << k); ++mask) masks.push_back(mask);
  std::stable_sort(masks.begin(), masks.end(), [](unsigned a, unsigned b) {
    const int ca = __builtin_popcount(a), cb = __builtin_popcount(b);
    if (ca != cb) return ca < cb;
    return (a & 1U) < (b & 1U);  // without the overhead column (column 0) first
  });
  for (unsigned mask : masks) {
    std::vector<std::size_t> use;
    bool fine = true;
    for (std::size_t j = 0; j < k; ++j) {
      if ((mask & (1U << j)) == 0) continue;
      if (!allowed[j]) fine = false;
      use.push_back(j);
    }
    if (!fine || static_cast<int>(use.size()) > max_terms) continue;
    std::vector<std::vector<double>> cols;
    for (std::size_t j : use) cols.push_back(weighted[j]);
    std::vector<double> y;
    if (!solve_ls(cols, rhs, y)) continue;
    if (std::any_of(y.begin(), y.end(), [](double v) { return !(v >= 0) || !std::isfinite(v); })) continue;
    double sse = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double p = 0;
      for (std::size_t u = 0; u < use.size(); ++u) p += y[u] * cols[u][i];
      sse += (p - rhs[i]) * (p - rhs[i]);
    }
    // Fewer terms win ties (within rounding): the simpler model explains the data as well.
    // kTotal predicts other sizes than it saw: a term must pay for itself (BIC,
    // n ln(SSE / n) + terms ln n), so that a curve does not bend to one run's noise.
    const double tol = 1e-12 * std::max(1.0, best.sse);
    bool better = !best.ok || sse < best.sse - tol || (sse <= best.sse + tol && use.size() < best_terms);
    if (objective == FitObjective::kTotal && best.ok) {
      const double nn = static_cast<double>(n);
      better =
          bic(nn, sse, static_cast<double>(use.size())) < bic(nn, best.sse, static_cast<double>(best_terms)) - 1e-9;
    }
    if (better) {
      best.ok = true;
      best.sse = sse;
      best_terms = use.size();
      best.x.assign(k, 0.0);
      for (std::size_t u = 0; u < use.size(); ++u) best.x[use[u]] = y[u] / scale[use[u]];
    }
  }
  return best;
}

namespace {

/// FlopExponent::kFit for one kind (fit_kind's comment): replaces `r` (fitted with exponent 1)
/// and sets m.flop_exponent, m.flop_reference when an exponent pays for itself.
void fit_exponent(const std::string& kind, const std::vector<CostSample>& samples,
                  std::vector<std::vector<double>> cols, const std::vector<double>& t, const std::vector<bool>& allowed,
                  int max_terms, FitObjective objective, NnlsResult& r, KindModel& m, std::vector<std::string>& notes) {
  std::vector<double> flops;
  for (const CostSample& s : samples) {
    if (s.flops > 0) flops.push_back(s.flops);
  }
  std::sort(flops.begin(), flops.end());
  const double reference = flops[flops.size() / 2];  // the median FLOPs of the kind's operators
  const auto distinct = static_cast<int>(std::unique(flops.begin(), flops.end()) - flops.begin());
  // The exponent is a parameter like the terms: with the terms it may use, at most distinct - 1
  // of them (fit_kind), and it needs 3 FLOP counts or more, spanning a factor of 2.
  if (max_terms < 2 || distinct < 3 || flops[static_cast<std::size_t>(distinct) - 1] < 2 * flops.front()) return;
  // The exponent replaces the byte term: with both, a GEMM's bytes (which grow slower than its
  // FLOPs) and a low exponent trade off against each other, and the curve leaves the data badly.
  std::vector<bool> power_allowed = allowed;
  power_allowed[2] = false;
  NnlsResult best;
  double best_p = 1;
  for (int step = 50; step <= 150; ++step) {
    if (step == 100) continue;
    const double p = step / 100.0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const double f = samples[i].flops;
      cols[1][i] = f > 0 ? f * std::pow(f / reference, p - 1) : 0.0;
    }
    NnlsResult rp = fit_relative_nnls(cols, t, power_allowed, max_terms - 1, objective);
    if (!rp.ok || !(rp.x[1] > 0)) continue;
    if (!best.ok || rp.sse < best.sse) {
      best = std::move(rp);
      best_p = p;
    }
  }
  // At an end of the range the data asks for a steeper or flatter curve than any machine's
  // rate has: what it fits is not the FLOPs, and p = 1 stays.
  if (!best.ok || best_p <= 0.5 || best_p >= 1.5) {
    if (best.ok) {
      notes.push_back(fmt::format(
          "{}: the FLOP exponent fitted to the end of its range ({:.2f}), so one FLOP rate is kept", kind, best_p));
    }
    return;
  }
  const double n = static_cast<double>(samples.size());
  const double terms = static_cast<double>(std::count_if(best.x.begin(), best.x.end(), [](double v) { return v > 0; }));
  const double terms_one = static_cast<double>(std::count_if(r.x.begin(), r.x.end(), [](double v) { return v > 0; }));
  if (!(bic(n, best.sse, terms + 1) < bic(n, r.sse, terms_one))) return;
  r = std::move(best);
  m.flop_exponent = best_p;
  m.flop_reference = reference;
  static const char* kPowerNames[3] = {"overhead", "flops^p", "bytes"};
  m.form = form_of(power_allowed, kPowerNames);
  if (max_terms - 1 < static_cast<int>(std::count(power_allowed.begin(), power_allowed.end(), true))) {
    m.form += fmt::format(" (at most {} term{} and the exponent: {} distinct points)", max_terms - 1,
                          max_terms == 2 ? "" : "s", m.distinct);
  }
  notes.push_back(
      fmt::format("{}: time grows as flops^{:.2f} over {:.4g}-{:.4g} FLOPs; its flop_rate holds at {:.4g} FLOPs", kind,
                  best_p, flops.front(), flops[static_cast<std::size_t>(distinct) - 1], reference));
}

}  // namespace

KindModel fit_kind(const std::string& kind, const std::vector<CostSample>& samples, std::vector<std::string>& notes,
                   FitObjective objective, FlopExponent exponent) {
  KindModel m;
  m.kind = kind;
  m.points = static_cast<int>(samples.size());
  std::vector<std::vector<double>> cols(3, std::vector<double>(samples.size()));
  std::vector<double> t(samples.size());
  bool any_flops = false, any_bytes = false;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    cols[0][i] = 1;
    cols[1][i] = samples[i].flops;
    cols[2][i] = samples[i].bytes;
    t[i] = samples[i].time_s;
    any_flops = any_flops || samples[i].flops > 0;
    any_bytes = any_bytes || samples[i].bytes > 0;
  }
  m.distinct = distinct_points(samples, true);
  const std::vector<bool> allowed = {true, any_flops, any_bytes};
  const int possible = static_cast<int>(std::count(allowed.begin(), allowed.end(), true));
  const int max_terms = std::max(1, std::min(possible, m.distinct - 1));
  static const char* kNames[3] = {"overhead", "flops", "bytes"};
  m.form = form_of(allowed, kNames);
  if (max_terms < possible) {
    m.form += fmt::format(" (at most {} term{}: {} distinct point{})", max_terms, max_terms == 1 ? "" : "s", m.distinct,
                          m.distinct == 1 ? "" : "s");
    notes.push_back(fmt::format("{}: only {} distinct (flops, bytes) point{}, so at most {} of the {} terms are fitted",
                                kind, m.distinct, m.distinct == 1 ? "" : "s", max_terms, possible));
  }
  NnlsResult r = fit_relative_nnls(cols, t, allowed, max_terms, objective);
  if (!r.ok) {
    // Cannot happen with the overhead column alone (a column of ones); kept as a guard.
    throw InputError(kind, 0, "", "no least-squares solution for this operator kind");
  }
  if (exponent == FlopExponent::kFit && r.x[1] > 0)
    fit_exponent(kind, samples, cols, t, allowed, max_terms, objective, r, m, notes);
  m.overhead_s = r.x[0];
  m.flop_rate = r.x[1] > 0 ? 1 / r.x[1] : 0;
  m.byte_rate = r.x[2] > 0 ? 1 / r.x[2] : 0;
  std::vector<double> predicted(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) predicted[i] = m.predict_s(samples[i].flops, samples[i].bytes);
  const Errors e = errors_of(predicted, samples);
  m.gmean_error = e.gmean;
  m.worst_error = e.worst;
  return m;
}

CallModel fit_calls(trace::OpKind kind, int ranks, const std::vector<CostSample>& samples,
                    std::vector<std::string>& notes, FitObjective objective) {
  CallModel m;
  m.kind = kind;
  m.ranks = ranks;
  m.points = static_cast<int>(samples.size());
  std::vector<std::vector<double>> cols(2, std::vector<double>(samples.size()));
  std::vector<double> t(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    cols[0][i] = 1;
    cols[1][i] = samples[i].bytes;
    t[i] = samples[i].time_s;
  }
  m.distinct = distinct_points(samples, false);
  const int max_terms = m.distinct >= 3 ? 2 : 1;
  if (max_terms < 2) {
    notes.push_back(fmt::format("{} on {} ranks: only {} distinct size{}, so one term (latency or bandwidth) is fitted",
                                trace::op_kind_name(kind), ranks, m.distinct, m.distinct == 1 ? "" : "s"));
  }
  NnlsResult r = fit_relative_nnls(cols, t, {true, true}, max_terms, objective);
  if (!r.ok)
    throw InputError(std::string(trace::op_kind_name(kind)), 0, "", "no least-squares solution for these calls");
  m.latency_s = r.x[0];
  m.bandwidth_Bps = r.x[1] > 0 ? 1 / r.x[1] : 0;
  std::vector<double> predicted(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) predicted[i] = m.predict_s(samples[i].bytes);
  const Errors e = errors_of(predicted, samples);
  m.gmean_error = e.gmean;
  m.worst_error = e.worst;
  return m;
}

namespace {

/// The calls of a trace, one sample per call instance: a collective's n-th call on a group
/// takes the least measured duration over the group's members (the last to arrive waits
/// least), a transfer the least of its send and its matching recv.
void collect_calls(const trace::Trace& trace, std::map<std::pair<trace::OpKind, int>, std::vector<CostSample>>& out,
                   int& unmeasured) {
  // key: (group, n) -> (kind, bytes, min time)
  std::map<std::pair<int, int>, std::tuple<trace::OpKind, double, double>> collectives;
  std::map<std::tuple<int, int, std::uint32_t, int>, std::pair<double, double>>
      transfers;  // (src, dst, tag, n) -> bytes, min
  std::map<std::tuple<int, int, std::uint32_t>, int> sends, recvs;
  for (int rank = 0; rank < trace.world_size; ++rank) {
    std::map<int, int> nth;
    for (std::size_t i = 0; i < trace.op_count(rank); ++i) {
      const trace::Op op = trace.op(rank, i);
      if (op.kind == trace::OpKind::kCompute) continue;
      if (op.measured_s < 0) {
        ++unmeasured;
        continue;
      }
      if (trace::is_collective(op.kind)) {
        const int n = nth[op.group]++;
        auto [it, inserted] =
            collectives.try_emplace({op.group, n}, op.kind, static_cast<double>(op.bytes), op.measured_s);
        if (!inserted) std::get<2>(it->second) = std::min(std::get<2>(it->second), op.measured_s);
      } else {
        const bool send = op.kind == trace::OpKind::kSend;
        const int src = send ? rank : op.peer;
        const int dst = send ? op.peer : rank;
        const int n = (send ? sends : recvs)[{src, dst, op.tag}]++;
        auto [it, inserted] =
            transfers.try_emplace({src, dst, op.tag, n}, static_cast<double>(op.bytes), op.measured_s);
        if (!inserted) it->second.second = std::min(it->second.second, op.measured_s);
      }
    }
  }
  for (const auto& [key, value] : collectives) {
    const auto& [kind, bytes, time] = value;
    if (time <= 0) continue;
    const int ranks = static_cast<int>(trace.groups[static_cast<std::size_t>(key.first)].ranks.size());
    out[{kind, ranks}].push_back({0, bytes, time});
  }
  for (const auto& [key, value] : transfers) {
    if (value.second <= 0) continue;
    out[{trace::OpKind::kSend, 2}].push_back({0, value.first, value.second});
  }
}

}  // namespace

ComputeFit fit_compute(const std::vector<trace::Trace>& traces, FitObjective objective, FlopExponent exponent) {
  ComputeFit fit;
  fit.objective = objective;
  std::map<std::string, std::vector<CostSample>> by_kind;
  std::vector<std::string> order;  // kinds in order of first appearance
  std::map<std::pair<trace::OpKind, int>, std::vector<CostSample>> calls;
  for (const trace::Trace& trace : traces) {
    fit.model.traces.push_back(trace.source);
    if (trace.hardware) {
      if (fit.model.hardware.name.empty()) {
        fit.model.hardware = *trace.hardware;
      } else if (fit.model.hardware.name != trace.hardware->name) {
        throw InputError(
            trace.source, 0, "hardware",
            fmt::format("measured on \"{}\", but {} was measured on \"{}\": a compute model is of one machine",
                        trace.hardware->name, fit.model.traces.front(), fit.model.hardware.name));
      }
    }
    for (int rank = 0; rank < trace.world_size; ++rank) {
      for (const trace::Op& op : trace.program_ops(rank)) {
        if (op.kind != trace::OpKind::kCompute) continue;
        if (op.duration_s < 0) {
          ++fit.skipped_no_duration;
          continue;
        }
        if (op.duration_s == 0) {
          ++fit.skipped_zero;
          continue;
        }
        const std::string name = compute_kind(trace, op);
        auto [it, inserted] = by_kind.try_emplace(name);
        if (inserted) order.push_back(name);
        it->second.push_back({op.flops, static_cast<double>(op.bytes), op.duration_s});
      }
    }
    collect_calls(trace, calls, fit.calls_unmeasured);
  }
  if (fit.model.hardware.name.empty()) fit.model.hardware.name = "unknown";
  if (by_kind.empty()) {
    throw InputError(traces.empty() ? std::string("command line") : traces.front().source, 0, "ranks",
                     "no compute operator with a measured duration (duration_ms > 0): nothing to fit");
  }
  for (const std::string& kind : order) {
    std::vector<CostSample>& samples = by_kind[kind];
    // Operators without FLOPs and bytes in a kind whose others have them (e.g. a backward the
    // importer could not cost) would read as pure overhead: left out, and counted.
    const bool costed =
        std::any_of(samples.begin(), samples.end(), [](const CostSample& s) { return s.flops > 0 || s.bytes > 0; });
    if (costed) {
      const auto before = samples.size();
      samples.erase(std::remove_if(samples.begin(), samples.end(),
                                   [](const CostSample& s) { return s.flops == 0 && s.bytes == 0; }),
                    samples.end());
      const int dropped = static_cast<int>(before - samples.size());
      if (dropped > 0) {
        fit.skipped_costless += dropped;
        fit.notes.push_back(fmt::format("{}: {} operator{} without FLOPs or bytes left out of the fit", kind, dropped,
                                        dropped == 1 ? "" : "s"));
      }
    }
    fit.compute_ops += static_cast<int>(samples.size());
    fit.model.kinds.push_back(fit_kind(kind, samples, fit.notes, objective, exponent));
    for (const CostSample& sample : samples) {
      fit.measured_s += sample.time_s;
      fit.modelled_s += fit.model.kinds.back().predict_s(sample.flops, sample.bytes);
    }
  }
  for (const auto& [key, samples] : calls) {
    fit.calls += static_cast<int>(samples.size());
    std::vector<double> sizes;
    for (const CostSample& s : samples) sizes.push_back(s.bytes);
    std::sort(sizes.begin(), sizes.end());
    fit.call_bytes.push_back(
        static_cast<std::uint64_t>(sizes[sizes.size() / 2]));  // sizes are exact integers below 2^50
    fit.model.calls.push_back(fit_calls(key.first, key.second, samples, fit.notes, objective));
    for (const CostSample& s : samples) fit.call_samples.push_back({key.first, key.second, s.bytes, s.time_s});
  }
  return fit;
}

}  // namespace ccsim::calibrate
