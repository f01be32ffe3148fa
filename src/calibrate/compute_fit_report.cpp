#include "calibrate/compute_fit_report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/compute_backend.hpp"
#include "core/parse.hpp"

namespace ccsim::calibrate {
namespace {

std::string flop_rate_text(double rate) {
  if (rate <= 0) return "-";
  if (rate >= 1e12) return fmt::format("{:.4g} TFLOP/s", rate / 1e12);
  if (rate >= 1e9) return fmt::format("{:.4g} GFLOP/s", rate / 1e9);
  return fmt::format("{:.4g} MFLOP/s", rate / 1e6);
}

std::string byte_rate_text(double rate) { return rate > 0 ? format_rate(rate) : std::string("-"); }

/// The compute part: the form fitted, a row per operator kind, and the fitted operators' total.
std::string kind_table(const ComputeFit& fit) {
  const ComputeModel& m = fit.model;
  std::string out;
  const bool any_exponent =
      std::any_of(m.kinds.begin(), m.kinds.end(), [](const KindModel& k) { return k.flop_exponent != 1; });
  out += fmt::format(
      "compute: time = overhead + flops / flop_rate + bytes / byte_rate, least squares on {}, "
      "parameters >= 0\n",
      fit.objective == FitObjective::kTotal ? "absolute residuals (each kind's total time kept)"
                                            : "relative residuals (every operator counts alike)");
  if (any_exponent) {
    out +=
        "  where p != 1 the FLOP term is flops / flop_rate x (flops / at_flops)^(p - 1): flop_rate is the rate at at_flops FLOPs\n";
  }
  out += fmt::format("{:<16}  {:>6}  {:>8}  {:>11}  {:>14}", "kind", "points", "distinct", "overhead_us", "flop_rate");
  if (any_exponent) out += fmt::format("  {:>4}  {:>9}", "p", "at_flops");
  out += fmt::format("  {:>12}  {:>7}  {:>7}  {}\n", "byte_rate", "gmean", "worst", "terms");
  for (const KindModel& k : m.kinds) {
    out += fmt::format("{:<16}  {:>6}  {:>8}  {:>11.3f}  {:>14}", k.kind, k.points, k.distinct, k.overhead_s * 1e6,
                       flop_rate_text(k.flop_rate));
    if (any_exponent) {
      out += k.flop_exponent != 1 ? fmt::format("  {:>4.2f}  {:>9.3g}", k.flop_exponent, k.flop_reference)
                                  : fmt::format("  {:>4}  {:>9}", k.flop_rate > 0 ? "1" : "-", "-");
    }
    out += fmt::format("  {:>12}  {:>6.1f}%  {:>+6.1f}%  {}\n", byte_rate_text(k.byte_rate), k.gmean_error * 100,
                       k.worst_error * 100, k.form);
  }
  if (fit.measured_s > 0) {
    const double change = fit.modelled_s / fit.measured_s - 1;
    out += fmt::format("the model gives the {} fitted operators {:.3f} ms, measured {:.3f} ms ({:+.2f} %){}\n",
                       fit.compute_ops, fit.modelled_s * 1e3, fit.measured_s * 1e3, change * 100,
                       std::fabs(change) > 0.05 && fit.objective == FitObjective::kRelative
                           ? ": on relative residuals short operators weigh as much as long ones (--objective total "
                             "keeps each kind's total)"
                           : "");
  }
  return out;
}

/// The row of the traced calls `fit.model.calls[i]`, with what `mpi` predicts for it when given.
std::string call_row(const ComputeFit& fit, std::size_t i, const topology::NetworkModel* mpi) {
  const CallModel& c = fit.model.calls[i];
  std::string out = fmt::format("{:<16}  {:>5}  {:>6}  {:>6}  {:>11.3f}  {:>12}  {:>6.1f}%  {:>+6.1f}%",
                                c.kind == trace::OpKind::kSend ? "send/recv" : trace::op_kind_name(c.kind), c.ranks,
                                c.points, c.distinct, c.latency_s * 1e6, byte_rate_text(c.bandwidth_Bps),
                                c.gmean_error * 100, c.worst_error * 100);
  if (mpi != nullptr) {
    const std::uint64_t bytes = fit.call_bytes[i];
    const double traced = c.predict_s(static_cast<double>(bytes));
    const double model_s = model_call_s(*mpi, c, bytes);
    out += std::isfinite(model_s)
               ? fmt::format("  {:>10}  {:>12.3f}  {:>12.3f}  {:>6.1f}x", format_bytes(static_cast<double>(bytes)),
                             traced * 1e6, model_s * 1e6, traced / model_s)
               : fmt::format("  {:>10}  {:>12.3f}  {:>12}  {:>7}", format_bytes(static_cast<double>(bytes)),
                             traced * 1e6, "-", "-");
  }
  return out + "\n";
}

/// The traced collectives and transfers: latency + bytes / bandwidth per kind of call.
std::string call_table(const ComputeFit& fit, const topology::NetworkModel* mpi) {
  const ComputeModel& m = fit.model;
  std::string out;
  if (!m.calls.empty()) {
    out +=
        "traced collectives and transfers: time = latency + bytes / bandwidth per call (a call's time: the least "
        "over its ranks, the last to arrive waits least)\n";
    out += fmt::format("{:<16}  {:>5}  {:>6}  {:>6}  {:>11}  {:>12}  {:>7}  {:>7}", "kind", "ranks", "calls", "sizes",
                       "latency_us", "bandwidth", "gmean", "worst");
    if (mpi != nullptr)
      out += fmt::format("  {:>10}  {:>12}  {:>12}  {:>7}", "at bytes", "traced_us", "mpi_us", "ratio");
    out += "\n";
    for (std::size_t i = 0; i < m.calls.size(); ++i) out += call_row(fit, i, mpi);
    if (mpi != nullptr) {
      out += fmt::format(
          "mpi_us: what network model {} (MPI, fitted on {}) predicts for the same call at the median size "
          "(all_reduce: the schedule ccsim chooses for MPI_Allreduce; send/recv: one message)\n",
          mpi->name, mpi->hardware);
    }
  } else {
    out += "traced collectives and transfers: none with a measured time (measured_ms)\n";
  }
  return out;
}

}  // namespace

std::string compute_fit_report(const ComputeFit& fit, const topology::NetworkModel* mpi) {
  const ComputeModel& m = fit.model;
  std::string out =
      fmt::format("measured on \"{}\": {} compute operators of {} kinds, {} collective and transfer calls\n",
                  m.hardware.name, fit.compute_ops, m.kinds.size(), fit.calls);
  out += "error = predicted / measured - 1; gmean error = exp(mean |ln(predicted / measured)|) - 1\n";
  out += kind_table(fit);
  out += call_table(fit, mpi);
  if (fit.skipped_zero > 0)
    out += fmt::format("note: {} operators of 0 ms (below the profiler's resolution) left out\n", fit.skipped_zero);
  if (fit.skipped_no_duration > 0) {
    out += fmt::format("note: {} operators given in FLOPs only (no measured duration) left out\n",
                       fit.skipped_no_duration);
  }
  if (fit.calls_unmeasured > 0) {
    out +=
        fmt::format("note: {} collective or transfer calls without a measured time left out\n", fit.calls_unmeasured);
  }
  for (const std::string& note : fit.notes) out += fmt::format("note: {}\n", note);
  return out;
}

ComputeModel compute_model_of(const ComputeFit& fit, const ComputeFitArgs& args) {
  ComputeModel model = fit.model;
  model.name = !args.name.empty()                           ? args.name
               : !args.output.empty() && args.output != "-" ? std::filesystem::path(args.output).stem().string()
                                                            : std::string("compute");
  model.description = fmt::format(
      "per operator kind: overhead + flops / flop_rate + bytes / byte_rate (or overhead + flops^p, where p != 1 is "
      "fitted), fitted by ccsim calibrate trace on the "
      "measured operators of {} trace(s); collectives: latency + bytes / bandwidth of the traced backend",
      args.traces.size());
  model.command = fmt::format("ccsim calibrate trace {}{}{} -o {}", fmt::join(args.traces, " "),
                              args.objective == "relative" ? " --objective relative" : "",
                              args.flop_exponent == "fit" ? "" : " --flop-exponent " + args.flop_exponent, args.output);
  return model;
}

}  // namespace ccsim::calibrate
