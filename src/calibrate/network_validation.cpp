#include "calibrate/network_validation.hpp"

#include <sys/stat.h>

#include <algorithm>

#include <fmt/format.h>

#include "calibrate/network_calibration.hpp"
#include "collective/algorithm.hpp"
#include "core/fingerprint.hpp"
#include "core/input_error.hpp"
#include "core/units.hpp"

namespace ccsim::calibrate {
namespace {

/// The tier of `model` a series of `file` is predicted with (ValidationRequest::tier).
std::string tier_of(const MeasurementFile& file, const topology::NetworkModel& model, std::string tier) {
  // Without --tier, a model of one tier (calibrate network --tier T writes only T) is validated
  // on it, unless it is intra and the file's messages crossed nodes: then the default (inter)
  // names what the model lacks. A model of both tiers: the tier of the file's nodes.
  if (tier.empty() && model.has_intra != model.has_inter && !(model.has_intra && file.nodes > 1)) {
    tier = model.has_inter ? "inter" : "intra";
  }
  tier = measurement_tier(file, tier);
  if (!(tier == "inter" ? model.has_inter : model.has_intra)) {
    throw InputError("command line", 0, "--tier",
                     fmt::format("network model \"{}\" ({}) has no {} tier", model.name, model.file, tier));
  }
  return tier;
}

/// The model was fitted on the file at `path` when its bytes are the same, whatever the path;
/// a model that records no fingerprint: when its path names this very file.
bool fitted_on(const topology::NetworkModel& model, const std::string& path) {
  const auto& record = model.fitted_on;
  if (!record) return false;
  if (!record->content.empty()) return record->content == file_fingerprint(path);
  struct stat a {
  }, b{};
  return ::stat(record->file.c_str(), &a) == 0 && ::stat(path.c_str(), &b) == 0
             ? a.st_dev == b.st_dev && a.st_ino == b.st_ino
             : record->file == path;
}

}  // namespace

NetworkValidation validate_network(
    const MeasurementFile& file, const topology::NetworkModel& model, const ValidationRequest& request,
    const std::function<compress::CompressorModel(const compress::CompressSpec&)>& compressor) {
  NetworkValidation v;
  v.tier = tier_of(file, model, request.tier);
  const topology::TierModel& tier = v.tier == "inter" ? model.inter : model.intra;
  SeriesChoice choice = parse_series_choice(request.series, "command line", "--series");
  choice.library_schedule = request.library_schedule;
  choice.group = request.group;
  const std::vector<SeriesPoint> points = select_series(file, choice);

  compress::CompressorCost cost_of_codec;
  collective::Compression compression = collective::Compression::kNone;
  const bool compressed_series = points.front().codec.has_value();
  if (!request.compress.empty()) {
    if (!compressed_series) {
      throw InputError(
          "command line", 0, "--compress",
          fmt::format("series {} is not compressed; --compress applies to compressed series", request.series));
    }
    const compress::CompressSpec spec = compress::parse_compress_spec(request.compress);
    const compress::CompressorModel codec = compressor(spec);
    // The codec ran on the measured machine's CPU: a model measured on another CPU transfers
    // to it by the model's rule (memory-bound: by the memory bandwidth the file records).
    const std::string& measured_on = codec.info().measured_device;
    const bool elsewhere = !file.cpu.empty() && !measured_on.empty() && file.cpu != measured_on;
    compress::TargetHardware machine;
    if (elsewhere) {
      machine.platform = fmt::format("the machine of {} ({})", request.measurements, file.cpu);
      machine.host_memory_Bps = file.memory_Bps;
      machine.accelerator_memory_Bps = file.memory_Bps;  // the codec runs on the CPU wherever the model places it
    }
    v.compressor = codec.evaluate(spec.query, DType::kF32, machine);
    if (!measured_on.empty() && file.cpu == measured_on) {
      v.compressor->notes.push_back(fmt::format("{}: measured on {}, the CPU of {}: used as measured", codec.name(),
                                                measured_on, request.measurements));
    }
    cost_of_codec = v.compressor->cost;
    compression = collective::compression_of(codec);
  } else if (compressed_series) {
    throw InputError(
        "command line", 0, "--compress",
        fmt::format("series {} is compressed (codec {}): give the compressor model, e.g. --compress ccsz:eb=...",
                    request.series, *points.front().codec));
  }
  v.measured_ratio = request.measured_ratio && compressed_series;
  v.fitted_file = fitted_on(model, request.measurements);
  // A model describes a process with a core of its own (core_sharing).
  v.sharing = core_sharing(file);
  for (const SeriesPoint& point : points) {
    auto schedule = schedule_for(point, choice, compression);
    const std::string name(schedule->name());
    if (v.schedules.find(name) == std::string::npos) v.schedules += (v.schedules.empty() ? "" : ", ") + name;
    PointFit p = point_fit(point);
    compress::CompressorCost cost = cost_of_codec;
    if (v.measured_ratio) {
      if (!point.ratio) {
        throw InputError(request.measurements, point.line, point.field + ".ratio",
                         "missing (required by --measured-ratio)");
      }
      cost.ratio = *point.ratio;
    }
    std::uint64_t smallest = 0;
    p.predicted_s = predict_s(*schedule, tier, model.reduce_s_per_byte, cost, v.sharing, &smallest);
    if (tier.extrapolates(static_cast<double>(smallest))) v.extrapolated.push_back(p.bytes);
    const auto& record = model.fitted_on;
    p.fitted = v.fitted_file && record->series == request.series && record->ranks == p.ranks &&
               (record->group.empty() || record->group == point.group) &&
               std::find(record->bytes.begin(), record->bytes.end(), p.bytes) != record->bytes.end();
    v.points.push_back(p);
  }
  return v;
}

}  // namespace ccsim::calibrate
