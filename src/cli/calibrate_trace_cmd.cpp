#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/compute_fit.hpp"
#include "calibrate/compute_fit_report.hpp"
#include "calibrate/compute_model.hpp"
#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "core/data_files.hpp"
#include "topology/network_model.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct CalibrateTraceCommand {
  calibrate::ComputeFitArgs args;
  bool output_given = false;
  std::string network_model;  ///< NAME|FILE: what MPI costs for the same calls, side by side
};

void run_calibrate_trace(const CalibrateTraceCommand& cmd) {
  const calibrate::ComputeFitArgs& args = cmd.args;
  std::vector<trace::Trace> traces;
  traces.reserve(args.traces.size());
  for (const std::string& path : args.traces) traces.push_back(trace::read_native(path));
  if (cmd.output_given) check_output_path(args.output);
  const calibrate::ComputeFit fit = calibrate::fit_compute(traces, calibrate::fit_objective_of(args.objective),
                                                           calibrate::flop_exponent_of(args.flop_exponent));
  std::string out = fmt::format("calibrate trace: {}\n", fmt::join(args.traces, ", "));
  std::optional<topology::NetworkModel> mpi;
  if (!cmd.network_model.empty()) {
    mpi = topology::read_network_model(find_data_file(cmd.network_model, data_folders().network_models,
                                                      "--network-model", "network model", "network models"));
  }
  out += calibrate::compute_fit_report(fit, mpi ? &*mpi : nullptr);
  if (cmd.output_given) {
    write_output(args.output, calibrate::write_compute_model(calibrate::compute_model_of(fit, args)));
    out += fmt::format("wrote {}\n", args.output);
  }
  write_output("-", out);
}

}  // namespace

void add_flop_exponent_option(CLI::App* sub, std::string& value) {
  sub->add_option("--flop-exponent", value,
                  "fit: an operator kind's FLOP term may grow as flops^p (p from 0.5 to 1.5, fitted where it pays for "
                  "its parameter; models/README.md); 1: one FLOP rate per kind")
      ->check(one_of({"fit", "1"}))
      ->capture_default_str();
}

void setup_calibrate_trace(CLI::App& calibrate) {
  auto cmd = std::make_shared<CalibrateTraceCommand>();
  CLI::App* sub = calibrate.add_subcommand(
      "trace",
      "Fit a compute model to the measured operators of native traces: per operator kind overhead + flops / flop_rate + "
      "bytes / byte_rate, or overhead + flops^p where a rate that depends on the size pays for itself (non-negative "
      "least squares on relative residuals), and the traced backend's per-call "
      "collective cost latency + bytes / bandwidth");
  sub->add_option("traces", cmd->args.traces, "Native traces with measured durations (ccsim trace import kineto)")
      ->required();
  sub->add_option("-o,--output", cmd->args.output,
                  "Write the model here (models/compute/NAME.json; format in models/README.md)");
  sub->add_option("--name", cmd->args.name, "Model name (default: the output file's stem)");
  sub->add_option("--objective", cmd->args.objective,
                  "total: least squares on absolute residuals, each kind's total time kept (what a replay of the "
                  "iteration needs, as predict fits); relative: every operator counts alike, short ones as much as "
                  "long ones")
      ->check(one_of({"total", "relative"}))
      ->capture_default_str();
  sub->add_option("--network-model", cmd->network_model,
                  "A calibrated MPI network model (NAME of models/network/ or a file, e.g. local-tcp): print what it "
                  "predicts for the traced calls next to their measured cost");
  add_flop_exponent_option(sub, cmd->args.flop_exponent);
  sub->callback([cmd, sub] {
    cmd->output_given = sub->count("--output") > 0;
    run_calibrate_trace(*cmd);
  });
}

}  // namespace ccsim::cli
