#include "calibrate/compute_model.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"
#include "core/parse.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::calibrate {
namespace {

using json::ObjectReader;
using json::Value;

constexpr double kMaxSeconds = trace::kMaxDurationMs * 1e-3;
constexpr double kMaxError = 1e6;      // a relative error of 10^8 %: anything larger is not a fit
constexpr double kMinExponent = 0.25;  // time ~ flops^p: outside [0.25, 4] no machine behaves so
constexpr double kMaxExponent = 4;
constexpr double kMinRate = 1e3;  // per second: a rate below is a typo, and 1e24 FLOPs over it stay finite

void read_hardware(ObjectReader& doc, trace::Hardware& hw) {
  ObjectReader h = doc.child("hardware");
  hw.name = h.required("name").string();
  if (hw.name.empty()) h.at("name").fail("expected a non-empty name, got \"\"");
  hw.peak_flops = h.optional("peak_flops").number_in(0, trace::kMaxPeakFlops, true).value_or(0);
  hw.memory_Bps = h.optional("memory_bandwidth").number_in(0, trace::kMaxMemoryBps, true).value_or(0);
  hw.source = h.optional("source").string().value_or("");
  h.finish();
}

/// A rate: 0 (no such term) or from kMinRate to `max`, so that no prediction is infinite.
double rate(ObjectReader& o, std::string_view key, double max) {
  const double value = o.required(key).number_in(0, max);
  if (value != 0 && value < kMinRate) {
    o.at(key).fail(fmt::format("expected 0 (no such term) or a rate from {:g} to {:g}, got \"{}\"", kMinRate, max,
                               o.required(key)->text()));
  }
  return value;
}

KindModel read_kind(ObjectReader& k) {
  KindModel m;
  m.kind = k.required("kind").string();
  if (m.kind.empty()) k.at("kind").fail("expected an operator name, got \"\"");
  m.overhead_s = k.required("overhead_s").number_in(0, kMaxSeconds);
  m.flop_rate = rate(k, "flop_rate", trace::kMaxPeakFlops);
  m.byte_rate = rate(k, "byte_rate", trace::kMaxMemoryBps);
  if (const std::optional<double> exponent = k.optional("flop_exponent").number_in(kMinExponent, kMaxExponent)) {
    m.flop_exponent = *exponent;
    if (m.flop_exponent != 1 && m.flop_rate == 0) {
      k.at("flop_exponent")
          .fail(fmt::format("is {} but flop_rate is 0: an exponent needs the FLOP term", m.flop_exponent));
    }
  }
  if (m.flop_exponent != 1) {
    if (!k.optional("flop_reference")) {
      k.here().fail(fmt::format("flop_exponent {} needs \"flop_reference\", the FLOPs at which flop_rate holds",
                                m.flop_exponent));
    }
    m.flop_reference = k.required("flop_reference").number_in(1, trace::kMaxFlops);
  } else if (k.optional("flop_reference")) {
    m.flop_reference = k.required("flop_reference").number_in(0, trace::kMaxFlops);
  }
  m.points = static_cast<int>(k.required("points").integer_in(1, 1'000'000'000));
  m.distinct = static_cast<int>(k.required("distinct_points").integer_in(1, m.points));
  m.form = k.optional("form").string().value_or("");
  m.gmean_error = k.required("gmean_error").number_in(0, kMaxError);
  m.worst_error = k.required("worst_error").number_in(-1, kMaxError);  // signed: the farthest operator's error
  if (m.overhead_s == 0 && m.flop_rate == 0 && m.byte_rate == 0) {
    k.here().fail(fmt::format("kind \"{}\" has no non-zero parameter: it would take no time", m.kind));
  }
  k.finish();
  return m;
}

CallModel read_call(ObjectReader& c) {
  CallModel m;
  const std::string kind = c.required("kind").choice(
      {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "send", "recv"});
  m.kind = *trace::parse_op_kind(kind);
  m.ranks = static_cast<int>(c.required("ranks").integer_in(2, 1 << 24));
  m.latency_s = c.required("latency_s").number_in(0, kMaxSeconds);
  m.bandwidth_Bps = rate(c, "bandwidth_Bps", trace::kMaxMemoryBps);
  m.points = static_cast<int>(c.required("points").integer_in(1, 1'000'000'000));
  m.distinct = static_cast<int>(c.required("distinct_sizes").integer_in(1, m.points));
  m.gmean_error = c.required("gmean_error").number_in(0, kMaxError);
  m.worst_error = c.required("worst_error").number_in(-1, kMaxError);
  if (m.latency_s == 0 && m.bandwidth_Bps == 0)
    c.here().fail(fmt::format("{} has neither latency nor bandwidth", kind));
  c.finish();
  return m;
}

}  // namespace

double KindModel::flop_rate_at(double flops) const {
  if (flop_rate <= 0) return 0;
  if (flop_exponent == 1 || flops <= 0 || flop_reference <= 0) return flop_rate;
  return flop_rate * std::pow(flops / flop_reference, 1 - flop_exponent);
}

double KindModel::predict_s(double flops, double bytes) const {
  double t = overhead_s;
  if (flop_rate > 0 && flops > 0) t += flops / flop_rate_at(flops);
  if (byte_rate > 0) t += bytes / byte_rate;
  return t;
}

double CallModel::predict_s(double bytes) const {
  return latency_s + (bandwidth_Bps > 0 ? bytes / bandwidth_Bps : 0.0);
}

const KindModel* ComputeModel::find(std::string_view kind) const {
  for (const KindModel& k : kinds) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

std::string ComputeModel::kind_list() const {
  std::string out;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (i == 20) return out + ", ...";
    out += (i == 0 ? "" : ", ") + kinds[i].kind;
  }
  return out.empty() ? std::string("none") : out;
}

ComputeModel parse_compute_model(std::string_view text, const std::string& source) {
  Value root = json::parse(text, source);
  ObjectReader doc(root, source, "");
  const std::string format = doc.required("format").string();
  if (format != kComputeModelFormat) {
    doc.at("format").fail(fmt::format("expected \"{}\", got \"{}\"", kComputeModelFormat, format));
  }
  if (doc.required("version").integer() != kComputeModelVersion) {
    doc.at("version").fail(fmt::format("expected {} (the only version this build reads), got \"{}\"",
                                       kComputeModelVersion, doc.required("version")->text()));
  }
  ComputeModel model;
  model.file = source;
  model.name = doc.required("name").string();
  model.description = doc.optional("description").string().value_or("");
  read_hardware(doc, model.hardware);
  model.command = doc.optional("command").string().value_or("");
  if (const json::OptionalField traces = doc.optional("traces")) {
    if (!traces->is_array()) doc.at("traces").fail("expected an array of file names, " + json::got(*traces));
    for (std::size_t i = 0; i < traces->items().size(); ++i) {
      const Value& t = traces->items()[i];
      if (!t.is_string()) {
        SourceRef{source, t.line(), json::item_path("traces", i)}.fail("expected a string, " + json::got(t));
      }
      model.traces.push_back(t.text());
    }
  }
  const Value& kinds = doc.required("kinds").array();
  for (std::size_t i = 0; i < kinds.items().size(); ++i) {
    ObjectReader k(kinds.items()[i], source, json::item_path("kinds", i));
    KindModel m = read_kind(k);
    if (model.find(m.kind) != nullptr) k.at("kind").fail(fmt::format("kind \"{}\" is defined twice", m.kind));
    model.kinds.push_back(std::move(m));
  }
  if (const Value* calls = doc.optional("collectives").array()) {
    for (std::size_t i = 0; i < calls->items().size(); ++i) {
      ObjectReader c(calls->items()[i], source, json::item_path("collectives", i));
      model.calls.push_back(read_call(c));
    }
  }
  doc.finish();
  return model;
}

ComputeModel read_compute_model(const std::string& path) { return parse_compute_model(json::read_file(path), path); }

std::string write_compute_model(const ComputeModel& model) {
  nlohmann::ordered_json doc;
  doc["format"] = kComputeModelFormat;
  doc["version"] = kComputeModelVersion;
  doc["name"] = model.name;
  doc["description"] = model.description;
  nlohmann::ordered_json hw;
  hw["name"] = model.hardware.name;
  if (model.hardware.peak_flops > 0) hw["peak_flops"] = model.hardware.peak_flops;
  if (model.hardware.memory_Bps > 0) hw["memory_bandwidth"] = model.hardware.memory_Bps;
  if (!model.hardware.source.empty()) hw["source"] = model.hardware.source;
  doc["hardware"] = hw;
  doc["command"] = model.command;
  doc["traces"] = model.traces;
  doc["kinds"] = nlohmann::ordered_json::array();
  for (const KindModel& k : model.kinds) {
    nlohmann::ordered_json j;
    j["kind"] = k.kind;
    j["overhead_s"] = k.overhead_s;
    j["flop_rate"] = k.flop_rate;
    if (k.flop_exponent != 1) {
      j["flop_exponent"] = k.flop_exponent;
      j["flop_reference"] = k.flop_reference;
    }
    j["byte_rate"] = k.byte_rate;
    j["points"] = k.points;
    j["distinct_points"] = k.distinct;
    j["form"] = k.form;
    j["gmean_error"] = k.gmean_error;
    j["worst_error"] = k.worst_error;
    doc["kinds"].push_back(j);
  }
  doc["collectives"] = nlohmann::ordered_json::array();
  for (const CallModel& c : model.calls) {
    nlohmann::ordered_json j;
    j["kind"] = std::string(trace::op_kind_name(c.kind));
    j["ranks"] = c.ranks;
    j["latency_s"] = c.latency_s;
    j["bandwidth_Bps"] = c.bandwidth_Bps;
    j["points"] = c.points;
    j["distinct_sizes"] = c.distinct;
    j["gmean_error"] = c.gmean_error;
    j["worst_error"] = c.worst_error;
    doc["collectives"].push_back(j);
  }
  return doc.dump(2) + "\n";
}

const KindModel* KindModelCost::kind_of(std::string_view name, std::string_view label) const {
  if (label.starts_with("bwd:")) {
    if (const KindModel* k = model_.find(std::string(name) + ":bwd")) return k;
  }
  return model_.find(name);
}

double KindModelCost::seconds(const topology::ComputeOp& op, const topology::AcceleratorSpec& /*acc*/) const {
  const KindModel* k = kind_of(op.name, op.label);
  return k == nullptr ? std::numeric_limits<double>::quiet_NaN() : k->predict_s(op.flops, op.bytes);
}

std::string compute_kind(const trace::Trace& trace, const trace::Op& op) {
  std::string kind(trace.op_name(op));
  if (trace.op_label(op).starts_with("bwd:")) kind += ":bwd";
  return kind;
}

bool memory_bound_kind(std::string_view name) {
  static constexpr std::array<std::string_view, 22> kMemoryBound = {
      "softmax",   "relu",     "gelu",      "silu",      "swiglu",  "sigmoid", "tanh", "layer_norm",
      "layernorm", "rms_norm", "rmsnorm",   "norm",      "dropout", "add",     "mul",  "div",
      "copy",      "cat",      "transpose", "embedding", "adam",    "fill"};
  const std::string n = ascii_lower(name);
  return std::find(kMemoryBound.begin(), kMemoryBound.end(), n) != kMemoryBound.end();
}

namespace {

/// Operators that stand for host time, not accelerator work: kept as recorded.
bool host_kind(std::string_view name) { return name == "cpu_gap"; }

std::string rate_flops(double flops) {
  if (flops >= 1e12) return fmt::format("{:.4g} TFLOP/s", flops / 1e12);
  if (flops >= 1e9) return fmt::format("{:.4g} GFLOP/s", flops / 1e9);
  return fmt::format("{:.4g} MFLOP/s", flops / 1e6);
}

[[noreturn]] void cannot_rescale(const trace::Trace& trace, const std::string& platform_name,
                                 const topology::AcceleratorSpec& acc, const std::string& why, bool by_default) {
  throw InputError(
      trace.source, 0, "hardware",
      fmt::format("the trace was measured on \"{}\", not on platform {}'s accelerator \"{}\", and its compute "
                  "durations cannot be rescaled: {}; {}choose --compute keep (the durations as recorded), "
                  "--compute model:FILE (a compute model, ccsim calibrate trace) or import the trace with "
                  "--hardware PLATFORM",
                  trace.hardware ? trace.hardware->name : std::string("?"), platform_name, acc.model, why,
                  by_default ? "replaying it on another accelerator needs a choice: " : ""));
}

/// --compute keep: the recorded durations, and whether they were measured on this accelerator.
ComputeAdjustment keep_compute(const trace::Trace& trace, const topology::AcceleratorSpec& acc,
                               const std::string& platform_name) {
  ComputeAdjustment out;
  if (!trace.hardware) {
    out.summary = "compute durations as recorded (the trace does not name its hardware)";
  } else if (trace.hardware->name == acc.model) {
    out.summary = fmt::format("compute durations as recorded: trace measured on \"{}\", the platform's accelerator",
                              trace.hardware->name);
  } else {
    out.summary = fmt::format(
        "compute durations as recorded (--compute keep): trace measured on \"{}\", NOT on platform "
        "{}'s accelerator \"{}\"",
        trace.hardware->name, platform_name, acc.model);
  }
  return out;
}

/// --compute model:FILE: every compute operator timed by `model` on `acc`.
ComputeAdjustment model_compute(trace::Trace& trace, const topology::AcceleratorSpec& acc,
                                const std::string& platform_name, const ComputeModel& model) {
  ComputeAdjustment out;
  double before = 0, after = 0;
  const std::string model_name = model.file.empty() ? model.name : model.file;
  const std::vector<int> ranks = trace.ranks_per_program();
  const KindModelCost cost(model);
  for (std::size_t r = 0; r < trace.programs.size(); ++r) {
    for (std::size_t i = 0; i < trace.programs[r].ops.size(); ++i) {
      trace::Op& op = trace.programs[r].ops[i];
      if (op.kind != trace::OpKind::kCompute) continue;
      const std::string_view name = trace.op_name(op);
      if (cost.kind_of(name, trace.op_label(op)) == nullptr) {
        throw InputError(trace.source, op.line, fmt::format("{}[{}].name", trace.programs[r].field, i),
                         fmt::format("operator kind \"{}\" is not in compute model {} (its kinds: {})", name,
                                     model_name, model.kind_list()));
      }
      const double t = cost.seconds(
          {name, trace.op_label(op), trace.gemm_of(op), op.flops, static_cast<double>(op.bytes), op.duration_s}, acc);
      if (!(t <= kMaxSeconds)) {
        throw InputError(trace.source, op.line, fmt::format("{}[{}]", trace.programs[r].field, i),
                         fmt::format("compute model {} gives this {} {:.6g} s, more than a year (the limit of an "
                                     "operator)",
                                     model_name, name, t));
      }
      if (op.duration_s >= 0) before += ranks[r] * op.duration_s;
      after += ranks[r] * t;
      op.duration_s = t;
    }
  }
  out.factor = before > 0 ? after / before : 1;
  out.summary =
      fmt::format("compute from model {} (fitted on \"{}\"): x{:.4g} of the recorded durations{}", model_name,
                  model.hardware.name, out.factor,
                  model.hardware.name == acc.model
                      ? std::string()
                      : fmt::format("; NOTE the model was measured on \"{}\", not on platform {}'s accelerator \"{}\"",
                                    model.hardware.name, platform_name, acc.model));
  return out;
}

/// --compute rescale: each compute operator by the ratio of peak rates that bounds it (FLOP/s,
/// or memory bandwidth below the ridge point); host gaps kept.
ComputeAdjustment rescale_compute(trace::Trace& trace, const topology::AcceleratorSpec& acc,
                                  const std::string& platform_name, bool by_default) {
  ComputeAdjustment out;
  if (!trace.hardware) {
    throw InputError(trace.source, 0, "hardware",
                     "--compute rescale needs the hardware the trace was measured on, and the trace does not name it "
                     "(import it with --hardware PLATFORM, or add \"hardware\" as traces/README.md says)");
  }
  const trace::Hardware& hw = *trace.hardware;
  if (hw.peak_flops <= 0)
    cannot_rescale(trace, platform_name, acc, "the trace's hardware gives no peak_flops", by_default);
  if (acc.flops <= 0)
    cannot_rescale(trace, platform_name, acc, "the platform's accelerator gives no flops", by_default);
  out.flop_ratio = hw.peak_flops / acc.flops;
  const bool memory = hw.memory_Bps > 0 && acc.memory_Bps > 0;
  out.memory_ratio = memory ? hw.memory_Bps / acc.memory_Bps : out.flop_ratio;
  double before = 0, after = 0;
  const std::vector<int> ranks = trace.ranks_per_program();
  for (std::size_t r = 0; r < trace.programs.size(); ++r) {
    const int n = ranks[r];  // operators are counted per rank that runs them
    for (std::size_t i = 0; i < trace.programs[r].ops.size(); ++i) {
      trace::Op& op = trace.programs[r].ops[i];
      if (op.kind != trace::OpKind::kCompute || op.duration_s < 0) continue;
      const std::string_view name = trace.op_name(op);
      before += n * op.duration_s;
      if (host_kind(name)) {
        out.kept += n;
        after += n * op.duration_s;
        continue;
      }
      bool memory_bound = memory_bound_kind(name);
      if (op.flops > 0 && op.bytes > 0 && hw.memory_Bps > 0) {
        memory_bound =
            op.flops / static_cast<double>(op.bytes) < hw.peak_flops / hw.memory_Bps;  // below the ridge point
      }
      (memory_bound ? out.memory_bound : out.flop_bound) += n;
      op.duration_s *= memory_bound ? out.memory_ratio : out.flop_ratio;
      if (!(op.duration_s <= kMaxSeconds)) {
        throw InputError(
            trace.source, op.line, fmt::format("{}[{}].duration_ms", trace.programs[r].field, i),
            fmt::format("rescaled to {:.6g} s, more than a year (the limit of an operator): the peak rates "
                        "of the trace's hardware and of platform {} are too far apart",
                        op.duration_s, platform_name));
      }
      after += n * op.duration_s;
    }
  }
  out.factor = before > 0 ? after / before : 1;
  std::string detail = fmt::format("{} flop-bound operators x{:.4g} (peak {} -> {})", out.flop_bound, out.flop_ratio,
                                   rate_flops(hw.peak_flops), rate_flops(acc.flops));
  if (out.memory_bound > 0) {
    detail +=
        memory ? fmt::format(", {} memory-bound x{:.4g} (memory {} -> {})", out.memory_bound, out.memory_ratio,
                             format_rate(hw.memory_Bps), format_rate(acc.memory_Bps))
               : fmt::format(", {} memory-bound x{:.4g} by the FLOP ratio (the {} gives no memory bandwidth)",
                             out.memory_bound, out.memory_ratio, hw.memory_Bps > 0 ? "platform" : "trace's hardware");
  }
  if (out.kept > 0) detail += fmt::format(", {} cpu_gap kept as recorded (host time)", out.kept);
  out.summary =
      fmt::format("compute rescaled x{:.4g}{}: trace measured on \"{}\", platform {}'s accelerator \"{}\" ({})",
                  out.factor, by_default ? " by default (other hardware; --compute keep|rescale|model:FILE)" : "",
                  hw.name, platform_name, acc.model, detail);
  return out;
}

}  // namespace

ComputeAdjustment adjust_compute(trace::Trace& trace, const topology::AcceleratorSpec& acc,
                                 const std::string& platform_name, ComputeMode mode, const ComputeModel* model) {
  const bool named = trace.hardware.has_value();
  const bool same = named && trace.hardware->name == acc.model;
  const bool by_default = mode == ComputeMode::kAuto && named && !same;
  if (mode == ComputeMode::kAuto) mode = (!named || same) ? ComputeMode::kKeep : ComputeMode::kRescale;
  switch (mode) {
    case ComputeMode::kKeep:
      return keep_compute(trace, acc, platform_name);
    case ComputeMode::kModel:
      if (model == nullptr) throw InputError("command line", 0, "--compute", "model:FILE needs a model file");
      return model_compute(trace, acc, platform_name, *model);
    default:
      return rescale_compute(trace, acc, platform_name, by_default);
  }
}

}  // namespace ccsim::calibrate
