#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "calibrate/compute_backend.hpp"
#include "calibrate/compute_fit.hpp"
#include "calibrate/compute_model.hpp"
#include "calibrate/network_fit.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "core/data_files.hpp"
#include "topology/network_model.hpp"
#include "cli/commands.hpp"
#include "core/parse.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct CalibrateTraceCommand {
  std::vector<std::string> traces;
  std::string output;
  bool output_given = false;
  std::string name;
  std::string network_model;  ///< NAME|FILE: what MPI costs for the same calls, side by side
  std::string flop_exponent = "fit";
  std::string objective = "total";
};

std::string flop_rate_text(double rate) {
  if (rate <= 0) return "-";
  if (rate >= 1e12) return fmt::format("{:.4g} TFLOP/s", rate / 1e12);
  if (rate >= 1e9) return fmt::format("{:.4g} GFLOP/s", rate / 1e9);
  return fmt::format("{:.4g} MFLOP/s", rate / 1e6);
}

std::string byte_rate_text(double rate) { return rate > 0 ? format_rate(rate) : std::string("-"); }

}  // namespace

void add_flop_exponent_option(CLI::App* sub, std::string& value) {
  sub->add_option("--flop-exponent", value,
                  "fit: an operator kind's FLOP term may grow as flops^p (p from 0.5 to 1.5, fitted where it pays for "
                  "its parameter; models/README.md); 1: one FLOP rate per kind")
      ->check(one_of({"fit", "1"}))
      ->capture_default_str();
}

calibrate::FlopExponent flop_exponent_choice(const std::string& value) {
  return value == "1" ? calibrate::FlopExponent::kOne : calibrate::FlopExponent::kFit;
}

std::string compute_fit_report(const calibrate::ComputeFit& fit, const topology::NetworkModel* mpi) {
  const calibrate::ComputeModel& m = fit.model;
  std::string out =
      fmt::format("measured on \"{}\": {} compute operators of {} kinds, {} collective and transfer calls\n",
                  m.hardware.name, fit.compute_ops, m.kinds.size(), fit.calls);
  out += "error = predicted / measured - 1; gmean error = exp(mean |ln(predicted / measured)|) - 1\n";
  const bool any_exponent =
      std::any_of(m.kinds.begin(), m.kinds.end(), [](const calibrate::KindModel& k) { return k.flop_exponent != 1; });
  out += fmt::format(
      "compute: time = overhead + flops / flop_rate + bytes / byte_rate, least squares on {}, "
      "parameters >= 0\n",
      fit.objective == calibrate::FitObjective::kTotal ? "absolute residuals (each kind's total time kept)"
                                                       : "relative residuals (every operator counts alike)");
  if (any_exponent) {
    out +=
        "  where p != 1 the FLOP term is flops / flop_rate x (flops / at_flops)^(p - 1): flop_rate is the rate at at_flops FLOPs\n";
  }
  out += fmt::format("{:<16}  {:>6}  {:>8}  {:>11}  {:>14}", "kind", "points", "distinct", "overhead_us", "flop_rate");
  if (any_exponent) out += fmt::format("  {:>4}  {:>9}", "p", "at_flops");
  out += fmt::format("  {:>12}  {:>7}  {:>7}  {}\n", "byte_rate", "gmean", "worst", "terms");
  for (const calibrate::KindModel& k : m.kinds) {
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
                       std::fabs(change) > 0.05 && fit.objective == calibrate::FitObjective::kRelative
                           ? ": on relative residuals short operators weigh as much as long ones (--objective total "
                             "keeps each kind's total)"
                           : "");
  }
  if (!m.calls.empty()) {
    out +=
        "traced collectives and transfers: time = latency + bytes / bandwidth per call (a call's time: the least "
        "over its ranks, the last to arrive waits least)\n";
    out += fmt::format("{:<16}  {:>5}  {:>6}  {:>6}  {:>11}  {:>12}  {:>7}  {:>7}", "kind", "ranks", "calls", "sizes",
                       "latency_us", "bandwidth", "gmean", "worst");
    if (mpi != nullptr)
      out += fmt::format("  {:>10}  {:>12}  {:>12}  {:>7}", "at bytes", "traced_us", "mpi_us", "ratio");
    out += "\n";
    for (std::size_t i = 0; i < m.calls.size(); ++i) {
      const calibrate::CallModel& c = m.calls[i];
      out += fmt::format("{:<16}  {:>5}  {:>6}  {:>6}  {:>11.3f}  {:>12}  {:>6.1f}%  {:>+6.1f}%",
                         c.kind == trace::OpKind::kSend ? "send/recv" : trace::op_kind_name(c.kind), c.ranks, c.points,
                         c.distinct, c.latency_s * 1e6, byte_rate_text(c.bandwidth_Bps), c.gmean_error * 100,
                         c.worst_error * 100);
      if (mpi != nullptr) {
        const std::uint64_t bytes = fit.call_bytes[i];
        const double traced = c.predict_s(static_cast<double>(bytes));
        const double model_s = calibrate::model_call_s(*mpi, c, bytes);
        out += std::isfinite(model_s)
                   ? fmt::format("  {:>10}  {:>12.3f}  {:>12.3f}  {:>6.1f}x", format_bytes(static_cast<double>(bytes)),
                                 traced * 1e6, model_s * 1e6, traced / model_s)
                   : fmt::format("  {:>10}  {:>12.3f}  {:>12}  {:>7}", format_bytes(static_cast<double>(bytes)),
                                 traced * 1e6, "-", "-");
      }
      out += "\n";
    }
    if (mpi != nullptr) {
      out += fmt::format(
          "mpi_us: what network model {} (MPI, fitted on {}) predicts for the same call at the median size "
          "(all_reduce: the schedule ccsim chooses for MPI_Allreduce; send/recv: one message)\n",
          mpi->name, mpi->hardware);
    }
  } else {
    out += "traced collectives and transfers: none with a measured time (measured_ms)\n";
  }
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

namespace {

void run_calibrate_trace(const CalibrateTraceCommand& cmd) {
  std::vector<trace::Trace> traces;
  traces.reserve(cmd.traces.size());
  for (const std::string& path : cmd.traces) traces.push_back(trace::read_native(path));
  if (cmd.output_given) check_output_path(cmd.output);
  calibrate::ComputeFit fit = calibrate::fit_compute(
      traces, cmd.objective == "relative" ? calibrate::FitObjective::kRelative : calibrate::FitObjective::kTotal,
      flop_exponent_choice(cmd.flop_exponent));
  std::string out = fmt::format("calibrate trace: {}\n", fmt::join(cmd.traces, ", "));
  std::optional<topology::NetworkModel> mpi;
  if (!cmd.network_model.empty()) {
    mpi = topology::read_network_model(find_data_file(cmd.network_model, data_folders().network_models,
                                                      "--network-model", "network model", "network models"));
  }
  out += compute_fit_report(fit, mpi ? &*mpi : nullptr);
  if (cmd.output_given) {
    calibrate::ComputeModel& model = fit.model;
    model.name = !cmd.name.empty()                          ? cmd.name
                 : !cmd.output.empty() && cmd.output != "-" ? std::filesystem::path(cmd.output).stem().string()
                                                            : std::string("compute");
    model.description = fmt::format(
        "per operator kind: overhead + flops / flop_rate + bytes / byte_rate (or overhead + flops^p, where p != 1 is "
        "fitted), fitted by ccsim calibrate trace on the "
        "measured operators of {} trace(s); collectives: latency + bytes / bandwidth of the traced backend",
        cmd.traces.size());
    model.command = fmt::format("ccsim calibrate trace {}{}{} -o {}", fmt::join(cmd.traces, " "),
                                cmd.objective == "relative" ? " --objective relative" : "",
                                cmd.flop_exponent == "fit" ? "" : " --flop-exponent " + cmd.flop_exponent, cmd.output);
    write_output(cmd.output, calibrate::write_compute_model(model));
    out += fmt::format("wrote {}\n", cmd.output);
  }
  write_output("-", out);
}

}  // namespace

void setup_calibrate_trace(CLI::App& calibrate) {
  auto cmd = std::make_shared<CalibrateTraceCommand>();
  CLI::App* sub = calibrate.add_subcommand(
      "trace",
      "Fit a compute model to the measured operators of native traces: per operator kind overhead + flops / flop_rate + "
      "bytes / byte_rate, or overhead + flops^p where a rate that depends on the size pays for itself (non-negative "
      "least squares on relative residuals), and the traced backend's per-call "
      "collective cost latency + bytes / bandwidth");
  sub->add_option("traces", cmd->traces, "Native traces with measured durations (ccsim trace import kineto)")
      ->required();
  sub->add_option("-o,--output", cmd->output,
                  "Write the model here (models/compute/NAME.json; format in models/README.md)");
  sub->add_option("--name", cmd->name, "Model name (default: the output file's stem)");
  sub->add_option("--objective", cmd->objective,
                  "total: least squares on absolute residuals, each kind's total time kept (what a replay of the "
                  "iteration needs, as predict fits); relative: every operator counts alike, short ones as much as "
                  "long ones")
      ->check(one_of({"total", "relative"}))
      ->capture_default_str();
  sub->add_option("--network-model", cmd->network_model,
                  "A calibrated MPI network model (NAME of models/network/ or a file, e.g. local-tcp): print what it "
                  "predicts for the traced calls next to their measured cost");
  add_flop_exponent_option(sub, cmd->flop_exponent);
  sub->callback([cmd, sub] {
    cmd->output_given = sub->count("--output") > 0;
    run_calibrate_trace(*cmd);
  });
}

}  // namespace ccsim::cli
