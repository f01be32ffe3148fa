#include <memory>

#include <fmt/format.h>

#include "calibrate/benchmark_output.hpp"
#include "calibrate/calibration_report.hpp"
#include "calibrate/measurement_file.hpp"
#include "calibrate/network_validation.hpp"
#include "calibrate/series.hpp"
#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "compress/compress_spec.hpp"
#include "core/data_files.hpp"
#include "topology/network_model.hpp"

namespace ccsim::cli {
namespace {

struct ValidateCommand {
  calibrate::ValidationRequest request;  ///< series empty: calibrate::default_series
  std::optional<int> ranks;
  std::string model;
  std::string format = "text";
};

void run_validate(ValidateCommand cmd) {
  calibrate::ValidationRequest& request = cmd.request;
  calibrate::MeasurementFile file = calibrate::read_any_measurements(request.measurements, cmd.ranks);
  if (request.series.empty()) request.series = calibrate::default_series(file);
  topology::NetworkModel model = topology::read_network_model(
      find_data_file(cmd.model, data_folders().network_models, "--model", "network model", "network models"));
  const calibrate::NetworkValidation v = calibrate::validate_network(
      file, model, request,
      [](const compress::CompressSpec& spec) { return compress::load_compressor(spec, data_folders().compressors); });
  if (cmd.format == "json") {
    write_output("-", calibrate::network_validation_json(v, model, request));
    return;
  }
  write_output("-", calibrate::network_validation_text(v, file, model, request));
}

}  // namespace

void setup_validate(CLI::App& app) {
  auto cmd = std::make_shared<ValidateCommand>();
  CLI::App* sub = app.add_subcommand(
      "validate", "Predict a measured all_reduce series with a network model and compare, point by point");
  add_measurement_input(sub, cmd->request.measurements, cmd->request.series, cmd->ranks, cmd->request.group);
  sub->add_option("--model", cmd->model, "Network model name (models/network/NAME.json) or file")->required();
  sub->add_option("--library-schedule", cmd->request.library_schedule,
                  "Schedule that models the MPI library's collective: auto (what ccsim chooses) or an algorithm")
      ->capture_default_str();
  sub->add_option("--tier", cmd->request.tier,
                  "Tier of the model to use: intra or inter (default: the model's tier when it has one; for a model "
                  "of both, inter when the measurements' processes ran on several nodes, else intra; intra is refused "
                  "for such a file)")
      ->check(one_of({"intra", "inter"}));
  sub->add_option("--compress", cmd->request.compress,
                  "Compressor NAME[:key=value,...] for a compressed series, e.g. ccsz:eb=1e-3,range=R");
  sub->add_flag("--measured-ratio", cmd->request.measured_ratio,
                "Compressed series: send each point's measured ratio instead of the compressor model's (the model's "
                "ratios were measured on other data)");
  sub->add_option("-f,--format", cmd->format, "Output format: text or json")
      ->check(one_of({"text", "json"}))
      ->capture_default_str();
  sub->callback([cmd] { run_validate(*cmd); });
}

}  // namespace ccsim::cli
