#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/parse.hpp"
#include "predict/prediction.hpp"
#include "predict/runs.hpp"
#include "report/breakdown.hpp"

// The text and JSON reports of a prediction (`ccsim predict`, `--format json`).
namespace ccsim::predict {
namespace {

using Json = nlohmann::ordered_json;

/// `value` when `known`, else null.
template <typename T>
Json value_or_null(bool known, const T& value) {
  return known ? Json(value) : Json();
}

/// The replay's per-operator breakdown, rows by operator name, as text or JSON.
std::string breakdown_of(const engine::Result& result, bool json) {
  report::BreakdownOptions view;
  view.key = report::RowKey::kName;
  std::ostringstream out;
  if (json) {
    report::write_json(report::make_breakdown(result, view), out);
  } else {
    report::write_text(report::make_breakdown(result, view), out);
  }
  return out.str();
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

std::string probe_line(const ProbeSpan& s) {
  if (s.runs < 2) return "";
  return fmt::format(
      "machine speed: the GEMM probes of {} runs (summary.json: the mean of the generator's probe before "
      "and after each) span {:.2f} to {:.2f} GFLOP/s (x{:.2f}): the machine's speed changed that much "
      "between the runs, and a prediction from some of them for another carries it "
      "(--scale-machine-speed scales each run by its probe)\n",
      s.runs, s.min, s.max, s.max / s.min);
}

/// The fitted runs and what was fitted on them: compute kinds and the backend's tier.
std::string fit_text(const Prediction& p) {
  std::string out = fmt::format("fitted on {} run{}:\n", p.runs.size(), p.runs.size() == 1 ? "" : "s");
  for (const FittedRun& r : p.runs) {
    out += fmt::format("  {}: {} ranks", r.path, r.ranks);
    if (r.iteration_ms > 0) out += fmt::format(", profiled iteration {:.3f} ms", r.iteration_ms);
    if (r.summary && r.summary->unprofiled_ms > 0)
      out += fmt::format(", {:.3f} ms without the profiler", r.summary->unprofiled_ms);
    if (r.profiler_factor != 1) out += fmt::format(": compute x{:.4f}", r.profiler_factor);
    out += "\n";
  }
  if (!p.sharing_note.empty()) out += fmt::format("note: {}\n", p.sharing_note);
  for (const std::string& n : p.speed_notes) out += fmt::format("note: machine speed: {}\n", n);
  out += fmt::format("compute model ({} kinds, {} operators; least squares on absolute residuals):\n",
                     p.compute_model.kinds.size(), p.compute_ops);
  out += kinds_line(p.compute_model);
  const topology::CostSegment& seg = p.backend.model.intra.segments.front();
  out += fmt::format(
      "backend: {} traced calls as one tier, {:.1f} us + bytes / {} per message ({} schedule for all_reduce); "
      "their total {:.3f} ms measured, {:.3f} ms by the tier\n",
      p.backend.calls, seg.latency_s * 1e6, format_rate(seg.bandwidth_Bps), p.backend.algorithm,
      p.backend.measured_s * 1e3, p.backend.predicted_s * 1e3);
  for (const std::string& n : p.backend.notes) out += fmt::format("note: {}\n", n);
  return out;
}

/// The waiting of the fitted runs' ranks that a synthesised trace leaves out; "" when none was replayed.
std::string waits_text(const Prediction& p) {
  std::vector<std::string> waits;
  for (const FittedRun& r : p.runs) {
    if (r.collective_wait_ms < 0 || !(r.compute_ms > 0)) continue;
    waits.push_back(fmt::format("{} {:.1f} ms ({:.1f} % of its compute)", run_name(r.path), r.collective_wait_ms,
                                100 * r.collective_wait_ms / r.compute_ms));
  }
  if (waits.empty()) return "";
  return fmt::format(
      "note: replayed as traced, the fitted runs' ranks waited at their collectives for peers whose "
      "measured compute ran longer, per rank: {}; the synthesised ranks are identical and never wait, "
      "so a measurement may exceed the prediction by about as much\n",
      fmt::join(waits, ", "));
}

Json fitted_runs_json(const Prediction& p) {
  Json runs = Json::array();
  for (const FittedRun& r : p.runs) {
    const bool probed = r.summary && r.summary->gemm_probe_gflops > 0;
    runs.push_back({{"run", r.path},
                    {"ranks", r.ranks},
                    {"profiler_factor", r.profiler_factor},
                    {"gemm_probe_gflops", value_or_null(probed, probed ? r.summary->gemm_probe_gflops : 0.0)},
                    {"machine_speed_factor", r.speed_factor},
                    {"collective_wait_ms", value_or_null(r.collective_wait_ms >= 0, r.collective_wait_ms)},
                    {"compute_ms", value_or_null(r.compute_ms >= 0, r.compute_ms)}});
  }
  return runs;
}

}  // namespace

std::string prediction_text(const Prediction& p, bool breakdown) {
  std::string out = fmt::format("predict: {} on {}\n", p.target, p.platform);
  out += fit_text(p);
  out += fmt::format("compute: {}\n", p.compute_note);
  out += fmt::format("replay: placement {}\n", p.result.placement);
  for (const std::string& n : p.result.notes) out += fmt::format("note: {}\n", n);
  out += waits_text(p);
  if (!p.config_note.empty()) out += fmt::format("note: {}\n", p.config_note);
  out += fmt::format("predicted iteration: {:.3f} ms\n", p.predicted_ms);
  if (p.measured_ms > 0) {
    out += fmt::format("measured iteration:  {:.3f} ms ({})\n", p.measured_ms, p.measured_from);
    out += fmt::format("error: {:+.2f} %\n", 100 * (p.predicted_ms / p.measured_ms - 1));
    out += spread_line(p.measured_steps_ms, p.measured_step_runs, p.predicted_ms);
  }
  out += probe_line(p.probes);
  if (breakdown) out += "\n" + breakdown_of(p.result, false);
  return out;
}

std::string prediction_json(const Prediction& p, bool breakdown) {
  Json j;
  j["target"] = p.target;
  j["platform"] = p.platform;
  j["placement"] = p.result.placement;
  j["notes"] = p.result.notes;
  j["predicted_ms"] = p.predicted_ms;
  const bool measured = p.measured_ms > 0;
  j["measured_ms"] = value_or_null(measured, p.measured_ms);
  j["target_gemm_probe_gflops"] = value_or_null(p.target_probe_gflops > 0, p.target_probe_gflops);
  j["error"] = value_or_null(measured, p.predicted_ms / p.measured_ms - 1);
  j["measured_steps_ms"] = value_or_null(!p.measured_steps_ms.empty(), p.measured_steps_ms);
  j["gemm_probe_span"] = p.probes.runs >= 2
                             ? Json{{"runs", p.probes.runs}, {"min_gflops", p.probes.min}, {"max_gflops", p.probes.max}}
                             : Json();
  if (!p.config_note.empty()) j["notes"].push_back(p.config_note);
  for (const import::RunSummary& t : p.measured_runs) {
    j["measured_runs"].push_back(
        {{"summary", t.file}, {"unprofiled_ms", value_or_null(t.unprofiled_ms > 0, t.unprofiled_ms)}});
  }
  j["fitted_on"] = fitted_runs_json(p);
  j["backend"] = {{"latency_s", p.backend.model.intra.segments.front().latency_s},
                  {"bandwidth_Bps", p.backend.model.intra.segments.front().bandwidth_Bps},
                  {"calls", p.backend.calls},
                  {"algorithm", p.backend.algorithm}};
  if (breakdown) j["breakdown"] = Json::parse(breakdown_of(p.result, true));
  return j.dump(2) + "\n";
}

}  // namespace ccsim::predict
