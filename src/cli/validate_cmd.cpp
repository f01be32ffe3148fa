#include <algorithm>
#include <memory>

#include <sys/stat.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibrate/benchmark_output.hpp"
#include "calibrate/measurement_file.hpp"
#include "calibrate/network_calibration.hpp"
#include "calibrate/network_fit.hpp"
#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "collective/algorithm.hpp"
#include "compress/compress_spec.hpp"
#include "core/data_files.hpp"
#include "core/fingerprint.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/units.hpp"
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
      find_data_file(cmd.model, network_model_dirs(), "--model", "network model", "network models"));
  // Without --tier, a model of one tier (calibrate network --tier T writes only T) is validated
  // on it, unless it is intra and the file's messages crossed nodes: then the default (inter)
  // names what the model lacks. A model of both tiers: the tier of the file's nodes.
  if (cmd.tier.empty() && model.has_intra != model.has_inter && !(model.has_intra && file.nodes > 1)) {
    cmd.tier = model.has_inter ? "inter" : "intra";
  }
  cmd.tier = calibrate::measurement_tier(file, cmd.tier);
  const bool inter = cmd.tier == "inter";
  if (!(inter ? model.has_inter : model.has_intra)) {
    throw InputError("command line", 0, "--tier",
                     fmt::format("network model \"{}\" ({}) has no {} tier", model.name, model.file, cmd.tier));
  }
  const topology::TierModel& tier = inter ? model.inter : model.intra;
  calibrate::SeriesChoice choice = calibrate::parse_series_choice(cmd.series, "command line", "--series");
  choice.library_schedule = cmd.library_schedule;
  choice.group = cmd.group;
  std::vector<calibrate::SeriesPoint> points = calibrate::select_series(file, choice);

  compress::CompressorCost compressor;
  collective::Compression compression = collective::Compression::kNone;
  std::string compressor_line;
  const bool compressed_series = points.front().codec.has_value();
  if (!cmd.compress.empty()) {
    if (!compressed_series) {
      throw InputError("command line", 0, "--compress",
                       fmt::format("series {} is not compressed; --compress applies to compressed series", cmd.series));
    }
    compress::CompressSpec spec = compress::parse_compress_spec(cmd.compress);
    compress::CompressorModel codec = compress::load_compressor(spec, compressor_dirs());
    // The codec ran on the measured machine's CPU: a model measured on another CPU transfers
    // to it by the model's rule (memory-bound: by the memory bandwidth the file records).
    const std::string& measured_on = codec.info().measured_device;
    const bool elsewhere = !file.cpu.empty() && !measured_on.empty() && file.cpu != measured_on;
    compress::TargetHardware machine;
    if (elsewhere) {
      machine.platform = fmt::format("the machine of {} ({})", cmd.measurements, file.cpu);
      machine.host_memory_Bps = file.memory_Bps;
      machine.accelerator_memory_Bps = file.memory_Bps;  // the codec runs on the CPU wherever the model places it
    }
    compress::Evaluation evaluation = codec.evaluate(spec.query, DType::kF32, machine);
    if (!measured_on.empty() && file.cpu == measured_on) {
      evaluation.notes.push_back(fmt::format("{}: measured on {}, the CPU of {}: used as measured", codec.name(),
                                             measured_on, cmd.measurements));
    }
    compressor = evaluation.cost;
    compression = collective::compression_of(codec);
    compressor_line =
        fmt::format("compressor {} ({}): ratio {:.4g}, compress {}, decompress {}\n", cmd.compress, evaluation.basis,
                    compressor.ratio, format_rate(compressor.compress_Bps), format_rate(compressor.decompress_Bps));
    for (const std::string& note : evaluation.notes) compressor_line += fmt::format("note: {}\n", note);
  } else if (compressed_series) {
    throw InputError(
        "command line", 0, "--compress",
        fmt::format("series {} is compressed (codec {}): give the compressor model, e.g. --compress ccsz:eb=...",
                    cmd.series, *points.front().codec));
  }

  // The model was fitted on this file when its bytes are the same, whatever the path; a model
  // that records no fingerprint: when its path names this very file.
  bool fitted_file = false;
  if (const auto& record = model.fitted_on) {
    if (!record->content.empty()) {
      fitted_file = record->content == file_fingerprint(cmd.measurements);
    } else {
      struct stat a {
      }, b{};
      fitted_file = ::stat(record->file.c_str(), &a) == 0 && ::stat(cmd.measurements.c_str(), &b) == 0
                        ? a.st_dev == b.st_dev && a.st_ino == b.st_ino
                        : record->file == cmd.measurements;
    }
  }

  // A model describes a process with a core of its own (calibrate::core_sharing).
  const double sharing = calibrate::core_sharing(file);
  std::vector<calibrate::PointFit> fits;
  std::string schedules;
  std::vector<std::uint64_t> extrapolated;  // points whose smallest message lies below the tier's data
  for (const calibrate::SeriesPoint& point : points) {
    auto schedule = calibrate::schedule_for(point, choice, compression);
    const std::string name(schedule->name());
    if (schedules.find(name) == std::string::npos) schedules += (schedules.empty() ? "" : ", ") + name;
    calibrate::PointFit p = calibrate::point_fit(point);
    compress::CompressorCost cost = compressor;
    if (cmd.measured_ratio && compressed_series) {
      if (!point.ratio) {
        throw InputError(cmd.measurements, point.line, point.field + ".ratio",
                         "missing (required by --measured-ratio)");
      }
      cost.ratio = *point.ratio;
    }
    std::uint64_t smallest = 0;
    p.predicted_s = calibrate::predict_s(*schedule, tier, model.reduce_s_per_byte, cost, sharing, &smallest);
    if (tier.extrapolates(static_cast<double>(smallest))) extrapolated.push_back(p.bytes);
    const auto& record = model.fitted_on;
    p.fitted = fitted_file && record->series == cmd.series && record->ranks == p.ranks &&
               (record->group.empty() || record->group == point.group) &&
               std::find(record->bytes.begin(), record->bytes.end(), p.bytes) != record->bytes.end();
    fits.push_back(p);
  }
  std::string out = fmt::format("validate: network model \"{}\" (tier {}) against {}, all_reduce {} (schedule {})\n",
                                model.name, cmd.tier, cmd.measurements, cmd.series, schedules);
  if (model.fitted_on) {
    out += fmt::format("model fitted on {} sizes of {} on {} ranks in {}\n", model.fitted_on->bytes.size(),
                       model.fitted_on->series, model.fitted_on->ranks, model.fitted_on->file);
  } else {
    out += "model records no fitted points: every point counts as held out\n";
  }
  out += compressor_line;
  if (sharing > 1) {
    out += fmt::format(
        "{} processes on {} cores per node: each process had 1/{:g} of a core, so every cost of the "
        "model is x {:g} (shared memory and loopback TCP move every byte with a CPU){}\n",
        file.processes, file.cores_per_node, sharing, sharing,
        tier.handoff_s > 0 ? fmt::format(", plus its core hand-off of {:.3f} us per message", tier.handoff_s * 1e6)
                           : std::string(", and the model has no core hand-off (calibrate network --shared-core)"));
  }
  if (const std::string affinity = calibrate::affinity_summary(file); !affinity.empty()) {
    out += fmt::format("CPU affinity of the measured processes: {}\n", affinity);
    const std::string fitted = model.fitted_on ? model.fitted_on->affinity : std::string();
    if (!fitted.empty() && fitted != affinity && !fitted_file) {
      out += fmt::format(
          "note: the model was fitted on processes with another CPU affinity ({}): processes bound to "
          "cores and processes the OS moves among them time a series differently\n",
          fitted);
    }
  }
  if (!file.emulated_link.empty()) out += fmt::format("link emulated by scripts/slowlink.sh: {}\n", file.emulated_link);
  if (cmd.measured_ratio && compressed_series)
    out += "wire bytes: each point's measured ratio (--measured-ratio), not the compressor model's\n";
  if (!extrapolated.empty()) {
    out += fmt::format(
        "note: at {} of the {} points (from {} B) messages are smaller than the {} B the model was fitted "
        "from: it extrapolates, pricing them {}\n",
        extrapolated.size(), fits.size(), *std::min_element(extrapolated.begin(), extrapolated.end()), tier.floor_bytes,
        tier.extrapolation());
  }
  out += "error = predicted / measured - 1; gmean error = exp(mean |ln(predicted / measured)|) - 1\n";
  if (cmd.format == "json") {
    nlohmann::ordered_json j;
    j["command"] = "validate";
    j["model"] = model.name;
    j["model_file"] = model.file;
    j["tier"] = cmd.tier;
    j["measurements"] = cmd.measurements;
    j["series"] = cmd.series;
    j["schedule"] = schedules;
    j["compress"] = cmd.compress.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cmd.compress);
    j["measured_ratio"] = cmd.measured_ratio && compressed_series;
    j["core_sharing"] = sharing;
    const nlohmann::ordered_json errors = calibration_json(fits);  // named: items() of a temporary would dangle
    for (const auto& [key, value] : errors.items()) j[key] = value;
    write_output("-", j.dump(2) + "\n");
    return;
  }
  out += calibration_report(fits);
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
