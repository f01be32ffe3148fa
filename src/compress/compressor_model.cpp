#include "compress/compressor_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "compress/compress_spec.hpp"
#include "compress/model_reader.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"

namespace ccsim::compress {
namespace {

/// exp of the linear interpolation of log(a) and log(b); 0 when either is 0 (an absent rate).
double log_lerp(double a, double b, double t) {
  if (a <= 0 || b <= 0) return 0;
  return std::exp(std::log(a) + t * (std::log(b) - std::log(a)));
}

/// The point a fraction `t` of the way from `lo` to `hi` in log(parameter).
Setting interpolate(const Setting& lo, const Setting& hi, double t) {
  Setting s = lo;
  s.error_bound = log_lerp(lo.error_bound, hi.error_bound, t);
  s.density = log_lerp(lo.density, hi.density, t);
  s.ratio = log_lerp(lo.ratio, hi.ratio, t);
  s.compress_Bps = log_lerp(lo.compress_Bps, hi.compress_Bps, t);
  s.decompress_Bps = log_lerp(lo.decompress_Bps, hi.decompress_Bps, t);
  s.add_Bps = log_lerp(lo.add_Bps, hi.add_Bps, t);
  s.t0_s = lo.t0_s + t * (hi.t0_s - lo.t0_s);  // may be 0: interpolated linearly
  s.decompress_t0_s = lo.decompress_t0_s + t * (hi.decompress_t0_s - lo.decompress_t0_s);
  s.add_t0_s = lo.add_t0_s + t * (hi.add_t0_s - lo.add_t0_s);
  s.source = fmt::format("interpolated between the settings on lines {} and {}", lo.line, hi.line);
  s.line = 0;
  return s;
}

/// Time for raw bytes through two stages one after the other, as one rate.
double in_series_Bps(double a_Bps, double b_Bps) { return 1.0 / (1.0 / a_Bps + 1.0 / b_Bps); }

}  // namespace

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::kErrorBounded:
      return "error-bounded";
    case Kind::kQuantizer:
      return "quantizer";
    case Kind::kSparsifier:
      return "sparsifier";
  }
  return "?";
}

std::string_view error_mode_name(ErrorMode mode) { return mode == ErrorMode::kRel ? "REL" : "ABS"; }

std::string_view placement_name(Placement where) { return where == Placement::kHost ? "host" : "accelerator"; }

std::string_view transfer_name(Transfer transfer) {
  return transfer == Transfer::kMemoryBound ? "memory-bound" : "none";
}

CompressorModel::CompressorModel(ModelInfo info, std::vector<Setting> settings)
    : info_(std::move(info)), settings_(std::move(settings)) {
  if (settings_.empty()) throw std::invalid_argument("CompressorModel '" + info_.name + "' has no settings");
  std::stable_sort(settings_.begin(), settings_.end(),
                   [this](const Setting& a, const Setting& b) { return parameter_of(a) < parameter_of(b); });
}

bool CompressorModel::accepts(DType dtype) const {
  return dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16 || dtype == DType::kF64;
}

double CompressorModel::parameter_of(const Setting& setting) const {
  switch (info_.kind) {
    case Kind::kErrorBounded:
      return setting.error_bound;
    case Kind::kQuantizer:
      return setting.bits;
    case Kind::kSparsifier:
      return setting.density;
  }
  return 0;
}

std::string CompressorModel::parameter_key() const {
  switch (info_.kind) {
    case Kind::kErrorBounded:
      return "eb";
    case Kind::kQuantizer:
      return "bits";
    case Kind::kSparsifier:
      return "density";
  }
  return "?";
}

void CompressorModel::check_query_keys(const Query& query) const {
  std::string what;
  std::string keys;
  switch (info_.kind) {
    case Kind::kErrorBounded:
      what = fmt::format("an error-bounded compressor with {} bounds", error_mode_name(info_.error_mode));
      keys = info_.error_mode == ErrorMode::kRel ? "eb, where, range" : "eb, where";
      break;
    case Kind::kQuantizer:
      what = "a quantizer";
      keys = "bits, where";
      break;
    case Kind::kSparsifier:
      what = "a sparsifier";
      keys = "density, where";
      break;
  }
  auto reject = [&](const char* key) {
    throw InputError(kCompressOption, 0, key, fmt::format("{} is {}; valid keys: {}", name(), what, keys));
  };
  if (query.error_bound && info_.kind != Kind::kErrorBounded) reject("eb");
  if (query.bits && info_.kind != Kind::kQuantizer) reject("bits");
  if (query.density && info_.kind != Kind::kSparsifier) reject("density");
  if (query.value_range && !(info_.kind == Kind::kErrorBounded && info_.error_mode == ErrorMode::kRel)) {
    reject("range");
  }
  if (query.value_range && !(*query.value_range > 0 && std::isfinite(*query.value_range))) {
    throw InputError(kCompressOption, 0, "range",
                     fmt::format("expected a positive number, got \"{:g}\"", *query.value_range));
  }
}

double CompressorModel::requested_parameter(const Query& query) const {
  const std::string key = parameter_key();
  std::vector<std::string> listed;
  for (const Setting& s : settings_) listed.push_back(fmt::format("{:g}", parameter_of(s)));

  std::optional<double> asked;
  if (query.error_bound) asked = *query.error_bound;
  if (query.bits) asked = *query.bits;
  if (query.density) asked = *query.density;
  if (!asked) {
    if (settings_.size() == 1) return parameter_of(settings_.front());
    throw InputError(kCompressOption, 0, key,
                     fmt::format("missing: {} has several settings ({}); choose one, e.g. {}:{}={}", name(),
                                 fmt::join(listed, ", "), name(), key, listed.front()));
  }
  double value = *asked;
  switch (info_.kind) {
    case Kind::kErrorBounded:
      if (!(value > 0 && std::isfinite(value))) {
        throw InputError(kCompressOption, 0, key, fmt::format("expected a positive number, got \"{:g}\"", value));
      }
      if (info_.error_mode == ErrorMode::kRel && value >= 1) {
        throw InputError(
            kCompressOption, 0, key,
            fmt::format("expected a relative bound below 1 ({} bounds are REL), got \"{:g}\"", name(), value));
      }
      break;
    case Kind::kQuantizer:
      if (std::none_of(settings_.begin(), settings_.end(), [&](const Setting& s) { return s.bits == value; })) {
        throw InputError(kCompressOption, 0, key,
                         fmt::format("expected one of {} (the settings of {}), got \"{:g}\"", fmt::join(listed, ", "),
                                     name(), value));
      }
      break;
    case Kind::kSparsifier:
      if (!(value >= kMinDensity && value <= 1)) {
        throw InputError(kCompressOption, 0, key,
                         fmt::format("expected a fraction from {:g} to 1, got \"{:g}\"", kMinDensity, value));
      }
      break;
  }
  return value;
}

Setting CompressorModel::point_at(double parameter, Evaluation& evaluation) const {
  const std::string key = parameter_key();
  for (const Setting& s : settings_) {
    if (parameter_of(s) == parameter) {
      evaluation.basis = fmt::format("measured setting {}={:g}", key, parameter);
      return s;
    }
  }
  // Only error bounds and densities get here; bits always match a setting.
  const Setting& first = settings_.front();
  const Setting& last = settings_.back();
  if (parameter < parameter_of(first) || parameter > parameter_of(last)) {
    const Setting& nearest = parameter < parameter_of(first) ? first : last;
    evaluation.clamped = true;
    evaluation.basis = fmt::format("clamped to measured setting {}={:g}", key, parameter_of(nearest));
    std::string range = settings_.size() == 1 ? fmt::format("the only measured {} is {:g}", key, parameter_of(first))
                                              : fmt::format("the measured range is {:g} to {:g}", parameter_of(first),
                                                            parameter_of(last));
    // A sparsifier's ratio follows from the density itself; only its rates are clamped.
    const char* what = info_.kind == Kind::kSparsifier ? "the rates of " : "";
    evaluation.notes.push_back(fmt::format(
        "{}: {}={:g} lies outside the settings ({}); using {}the nearest setting {}={:g} unchanged, not extrapolated",
        name(), key, parameter, range, what, key, parameter_of(nearest)));
    return nearest;
  }
  auto hi =
      std::find_if(settings_.begin(), settings_.end(), [&](const Setting& s) { return parameter_of(s) > parameter; });
  auto lo = std::prev(hi);
  double a = parameter_of(*lo);
  double b = parameter_of(*hi);
  double t = (std::log(parameter) - std::log(a)) / (std::log(b) - std::log(a));
  evaluation.basis = fmt::format("interpolated between measured settings {}={:g} and {}={:g}", key, a, key, b);
  return interpolate(*lo, *hi, t);
}

double CompressorModel::transfer_to(const TargetHardware& target, Evaluation& ev) const {
  if (target.platform.empty()) return 1.0;
  const bool on_host = ev.where == Placement::kHost;
  const double target_Bps = on_host ? target.host_memory_Bps : target.accelerator_memory_Bps;
  const std::string there = on_host || target.accelerator.empty()
                                ? fmt::format("the {} of {}", placement_name(ev.where), target.platform)
                                : fmt::format("the accelerator of {} ({})", target.platform, target.accelerator);
  const std::string measured = info_.measured_memory_Bps > 0 ? fmt::format("{} (memory {})", info_.measured_device,
                                                                           format_rate(info_.measured_memory_Bps))
                                                             : info_.hardware;
  if (info_.transfer == Transfer::kNone) {
    ev.notes.push_back(
        fmt::format("{}: figures measured on {} are used unscaled on {} (the model has no transfer rule)", name(),
                    measured, there));
    return 1.0;
  }
  if (!(target_Bps > 0)) {
    ev.notes.push_back(
        fmt::format("{}: figures measured on {} are used unscaled on {}: its memory bandwidth is not "
                    "given, so the memory-bound transfer rule cannot apply",
                    name(), measured, there));
    return 1.0;
  }
  const double scale = target_Bps / info_.measured_memory_Bps;
  if (scale == 1.0) {
    ev.notes.push_back(
        fmt::format("{}: measured on {}, used unscaled on {} (the same memory bandwidth)", name(), measured, there));
    return 1.0;
  }
  ev.notes.push_back(
      fmt::format("{}: measured on {}, throughputs scaled x{:.3g} to {} (memory {}; memory-bound "
                  "transfer rule, t0 unscaled)",
                  name(), measured, scale, there, format_rate(target_Bps)));
  return scale;
}

Evaluation CompressorModel::evaluate(const Query& query, DType dtype, const TargetHardware& target) const {
  check_query_keys(query);
  if (!accepts(dtype)) {
    throw InputError(
        kCompressOption, 0, "",
        fmt::format("{} compresses floating-point data (fp32, fp16, bf16, fp64), got {}", name(), dtype_name(dtype)));
  }
  Evaluation ev;
  ev.parameter = requested_parameter(query);
  Setting point = point_at(ev.parameter, ev);

  const double element_bytes = dtype_bytes(dtype);
  CompressorCost& cost = ev.cost;
  switch (info_.kind) {
    case Kind::kErrorBounded: {
      // The compressed bits per value depend on the bound and the data, not on the input
      // width, so a ratio measured on fp32 halves for fp16 and doubles for fp64.
      const double measured_bytes = dtype_bytes(info_.dtype);
      cost.ratio = point.ratio * element_bytes / measured_bytes;
      if (dtype != info_.dtype) {
        ev.notes.push_back(fmt::format("{}: ratios were measured on {}; scaled to {} by {:g}/{:g} (estimate)", name(),
                                       dtype_name(info_.dtype), dtype_name(dtype), element_bytes, measured_bytes));
      }
      break;
    }
    case Kind::kQuantizer: {
      double block = static_cast<double>(point.block_elements);
      cost.ratio = 8.0 * element_bytes * block / (point.bits * block + 8.0 * point.scale_bytes);
      break;
    }
    case Kind::kSparsifier:
      cost.ratio = element_bytes / (ev.parameter * (element_bytes + info_.index_bytes));
      break;
  }

  ev.where = query.where.value_or(info_.placement);
  // The codec's own rates carry over to the target; the staging copy below does not.
  const double scale = transfer_to(target, ev);
  if (ev.where != info_.placement && scale == 1.0) {
    // (When the figures were scaled, the transfer note already says to what.)
    ev.notes.insert(ev.notes.end() - (target.platform.empty() ? 0 : 1),
                    fmt::format("{}: figures were measured on the {} ({}); running it on the {} reuses them (estimate)",
                                name(), placement_name(info_.placement), info_.hardware, placement_name(ev.where)));
  }
  cost.compress_t0_s = point.t0_s;
  cost.decompress_t0_s = point.decompress_t0_s;
  cost.compress_Bps = point.compress_Bps * scale;
  cost.decompress_Bps = point.decompress_Bps * scale;
  if (ev.where == Placement::kHost) {
    // Raw data lives in accelerator memory: compressing on the host first copies it down,
    // decompressing copies the result back up. The copy is not overlapped with the codec.
    cost.compress_Bps = in_series_Bps(cost.compress_Bps, info_.staging_Bps);
    cost.decompress_Bps = in_series_Bps(cost.decompress_Bps, info_.staging_Bps);
  }
  if (info_.homomorphic) {
    cost.add_t0_s = point.add_t0_s;
    cost.add_Bps = point.add_Bps * scale;
  }
  return ev;
}

double CompressorModel::absolute_error_bound(const Query& query, double value_range) const {
  if (info_.kind != Kind::kErrorBounded) return std::numeric_limits<double>::infinity();
  check_query_keys(query);
  double bound = requested_parameter(query);
  if (info_.error_mode == ErrorMode::kAbs) return bound;
  double range = query.value_range.value_or(value_range);
  if (!(range >= 0 && std::isfinite(range))) {
    throw std::invalid_argument(
        fmt::format("absolute_error_bound: value range must be finite and >= 0, got {}", range));
  }
  return bound * range;
}

}  // namespace ccsim::compress
