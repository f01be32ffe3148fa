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
  std::vector<std::string> traces;
  std::string output;
  bool output_given = false;
  std::string name;
  std::string network_model;  ///< NAME|FILE: what MPI costs for the same calls, side by side
  std::string flop_exponent = "fit";
  std::string objective = "total";
};

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
  out += calibrate::compute_fit_report(fit, mpi ? &*mpi : nullptr);
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
