#include <memory>
#include <optional>

#include <fmt/format.h>

#include "calibrate/calibration_report.hpp"
#include "calibrate/network_calibration.hpp"
#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "topology/network_model.hpp"

namespace ccsim::cli {

void add_measurement_input(CLI::App* sub, std::string& measurements, std::string& series, std::optional<int>& ranks,
                           std::string& group) {
  sub->add_option("measurements", measurements,
                  "Measurements: ccsim measure's JSON, OSU (osu_allreduce) or nccl-tests (all_reduce_perf) output, or "
                  "CSV (bytes,time_us[,ranks]); see models/README.md")
      ->required();
  sub->add_option("--series", series,
                  "ALGORITHM/TRANSPORT of the series, e.g. ring/mpi, MPI_Allreduce/mpi (default: ring/mpi, or the "
                  "file's only series)");
  sub->add_option("--ranks", ranks, "Process count of a run whose output does not record it (OSU, CSV)")
      ->check(CLI::Range(1, 1 << 24));
  sub->add_option("--group", group,
                  "Group kind of the series (ccsim measure --groups: world, tp, dp, ...), where it ran on several "
                  "(default: any, when that leaves one point per size)");
}

namespace {

struct CalibrateNetworkCommand {
  calibrate::NetworkCalibrationRequest request;
  std::string output;
  bool output_given = false;  ///< -o was given (perhaps as "", which write_output refuses)
  std::string format = "text";
};

void run_calibrate_network(const CalibrateNetworkCommand& cmd) {
  const calibrate::NetworkCalibrationRequest& request = cmd.request;
  const calibrate::NetworkCalibration c = calibrate::calibrate_network(request);
  std::string out = calibrate::network_calibration_text(c, request);
  if (cmd.output_given) {
    write_output(cmd.output, topology::write_network_model(c.model));
    out += fmt::format("wrote {}\n", cmd.output);
  }
  if (cmd.format == "json") {
    write_output("-", calibrate::network_calibration_json(
                          c, request, cmd.output_given ? std::optional<std::string>(cmd.output) : std::nullopt));
    return;
  }
  write_output("-", out);
}

}  // namespace

void setup_calibrate(CLI::App& app) {
  CLI::App* calibrate = app.add_subcommand("calibrate", "Fit model parameters to real measurements (ccsim measure)");
  calibrate->require_subcommand(1);
  setup_calibrate_compressor(*calibrate);
  setup_calibrate_trace(*calibrate);
  setup_calibrate_compute(*calibrate);

  auto cmd = std::make_shared<CalibrateNetworkCommand>();
  CLI::App* sub = calibrate->add_subcommand(
      "network",
      "Fit a size-dependent network tier (per-message overheads, latency and bandwidth per size segment) to an "
      "all_reduce series by weighted least squares on the critical path of its schedule");
  add_measurement_input(sub, cmd->request.measurements, cmd->request.series, cmd->request.ranks, cmd->request.group);
  sub->add_option("--library-schedule", cmd->request.library_schedule,
                  "Schedule that models the MPI library's collective: auto (what ccsim chooses) or an algorithm")
      ->capture_default_str();
  sub->add_option("--fit", cmd->request.fit, "Fit on alternate sizes (the others held out) or on all")
      ->check(one_of({"alternate", "all"}))
      ->capture_default_str();
  sub->add_option("--tier", cmd->request.tier,
                  "Tier the model describes: intra or inter (default: inter when the measurements' processes ran on "
                  "several nodes, else intra; intra is refused for such a file)")
      ->check(one_of({"intra", "inter"}));
  sub->add_option("--segments", cmd->request.max_segments, "Most size segments tried")
      ->check(CLI::Range(1, 4))
      ->capture_default_str();
  sub->add_option("-o,--output", cmd->output, "Write the model here (models/network/NAME.json)");
  sub->add_option("--name", cmd->request.name, "Model name (default: fit-ALGORITHM-TRANSPORT of --series)");
  sub->add_option("-f,--format", cmd->format, "Output format: text or json")
      ->check(one_of({"text", "json"}))
      ->capture_default_str();
  sub->add_option("--shared-core", cmd->request.shared_core,
                  "Measurements of the same series on processes that outnumber their cores (e.g. 2 pinned to one "
                  "core): fit the tier's core hand-off per message to them");
  sub->callback([cmd, sub] {
    cmd->output_given = sub->count("--output") > 0;
    run_calibrate_network(*cmd);
  });
}

}  // namespace ccsim::cli
