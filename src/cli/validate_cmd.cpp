#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibrate/benchmark_output.hpp"
#include "calibrate/measurement_file.hpp"
#include "calibrate/network_fit.hpp"
#include "calibrate/network_validation.hpp"
#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "compress/compress_spec.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "topology/network_model.hpp"

namespace ccsim::cli {
namespace {

struct ValidateCommand {
  std::string measurements;
  std::string model;
  std::string series;  // empty: calibrate::default_series
  int ranks = 0;
  std::string group;  // empty: any
  std::string library_schedule = "auto";
  std::string tier;  // empty: inter when the measurements' processes ran on several nodes, else intra
  std::string compress;
  bool measured_ratio = false;
  std::string format = "text";
};

void run_validate(ValidateCommand cmd) {
  calibrate::MeasurementFile file =
      calibrate::read_any_measurements(cmd.measurements, cmd.ranks > 0 ? std::optional<int>(cmd.ranks) : std::nullopt);
  if (cmd.series.empty()) cmd.series = calibrate::default_series(file);
  topology::NetworkModel model = topology::read_network_model(
      find_data_file(cmd.model, data_folders().network_models, "--model", "network model", "network models"));
  const calibrate::ValidationRequest request{cmd.measurements, cmd.series,   cmd.group,         cmd.library_schedule,
                                             cmd.tier,         cmd.compress, cmd.measured_ratio};
  const calibrate::NetworkValidation v = calibrate::validate_network(
      file, model, request,
      [](const compress::CompressSpec& spec) { return compress::load_compressor(spec, data_folders().compressors); });
  const topology::TierModel& tier = v.tier == "inter" ? model.inter : model.intra;
  std::string out = fmt::format("validate: network model \"{}\" (tier {}) against {}, all_reduce {} (schedule {})\n",
                                model.name, v.tier, cmd.measurements, cmd.series, v.schedules);
  if (model.fitted_on) {
    out += fmt::format("model fitted on {} sizes of {} on {} ranks in {}\n", model.fitted_on->bytes.size(),
                       model.fitted_on->series, model.fitted_on->ranks, model.fitted_on->file);
  } else {
    out += "model records no fitted points: every point counts as held out\n";
  }
  if (const auto& c = v.compressor) {
    out += fmt::format("compressor {} ({}): ratio {:.4g}, compress {}, decompress {}\n", cmd.compress, c->basis,
                       c->cost.ratio, format_rate(c->cost.compress_Bps), format_rate(c->cost.decompress_Bps));
    for (const std::string& note : c->notes) out += fmt::format("note: {}\n", note);
  }
  if (v.sharing > 1) {
    out += fmt::format(
        "{} processes on {} cores per node: each process had 1/{:g} of a core, so every cost of the "
        "model is x {:g} (shared memory and loopback TCP move every byte with a CPU){}\n",
        file.processes, file.cores_per_node, v.sharing, v.sharing,
        tier.handoff_s > 0 ? fmt::format(", plus its core hand-off of {:.3f} us per message", tier.handoff_s * 1e6)
                           : std::string(", and the model has no core hand-off (calibrate network --shared-core)"));
  }
  if (const std::string affinity = calibrate::affinity_summary(file); !affinity.empty()) {
    out += fmt::format("CPU affinity of the measured processes: {}\n", affinity);
    const std::string fitted = model.fitted_on ? model.fitted_on->affinity : std::string();
    if (!fitted.empty() && fitted != affinity && !v.fitted_file) {
      out += fmt::format(
          "note: the model was fitted on processes with another CPU affinity ({}): processes bound to "
          "cores and processes the OS moves among them time a series differently\n",
          fitted);
    }
  }
  if (!file.emulated_link.empty()) out += fmt::format("link emulated by scripts/slowlink.sh: {}\n", file.emulated_link);
  if (v.measured_ratio)
    out += "wire bytes: each point's measured ratio (--measured-ratio), not the compressor model's\n";
  if (!v.extrapolated.empty()) {
    out += fmt::format(
        "note: at {} of the {} points (from {} B) messages are smaller than the {} B the model was fitted "
        "from: it extrapolates, pricing them {}\n",
        v.extrapolated.size(), v.points.size(), *std::min_element(v.extrapolated.begin(), v.extrapolated.end()),
        tier.floor_bytes, tier.extrapolation());
  }
  out += "error = predicted / measured - 1; gmean error = exp(mean |ln(predicted / measured)|) - 1\n";
  if (cmd.format == "json") {
    nlohmann::ordered_json j;
    j["command"] = "validate";
    j["model"] = model.name;
    j["model_file"] = model.file;
    j["tier"] = v.tier;
    j["measurements"] = cmd.measurements;
    j["series"] = cmd.series;
    j["schedule"] = v.schedules;
    j["compress"] = cmd.compress.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cmd.compress);
    j["measured_ratio"] = v.measured_ratio;
    j["core_sharing"] = v.sharing;
    const nlohmann::ordered_json errors = calibration_json(v.points);  // named: items() of a temporary would dangle
    for (const auto& [key, value] : errors.items()) j[key] = value;
    write_output("-", j.dump(2) + "\n");
    return;
  }
  out += calibration_report(v.points);
  write_output("-", out);
}

}  // namespace

void setup_validate(CLI::App& app) {
  auto cmd = std::make_shared<ValidateCommand>();
  CLI::App* sub = app.add_subcommand(
      "validate", "Predict a measured all_reduce series with a network model and compare, point by point");
  add_measurement_input(sub, cmd->measurements, cmd->series, cmd->ranks, cmd->group);
  sub->add_option("--model", cmd->model, "Network model name (models/network/NAME.json) or file")->required();
  sub->add_option("--library-schedule", cmd->library_schedule,
                  "Schedule that models the MPI library's collective: auto (what ccsim chooses) or an algorithm")
      ->capture_default_str();
  sub->add_option("--tier", cmd->tier,
                  "Tier of the model to use: intra or inter (default: the model's tier when it has one; for a model "
                  "of both, inter when the measurements' processes ran on several nodes, else intra; intra is refused "
                  "for such a file)")
      ->check(one_of({"intra", "inter"}));
  sub->add_option("--compress", cmd->compress,
                  "Compressor NAME[:key=value,...] for a compressed series, e.g. ccsz:eb=1e-3,range=R");
  sub->add_flag("--measured-ratio", cmd->measured_ratio,
                "Compressed series: send each point's measured ratio instead of the compressor model's (the model's "
                "ratios were measured on other data)");
  sub->add_option("-f,--format", cmd->format, "Output format: text or json")
      ->check(one_of({"text", "json"}))
      ->capture_default_str();
  sub->callback([cmd] { run_validate(*cmd); });
}

}  // namespace ccsim::cli
