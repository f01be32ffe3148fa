#include "topology/accelerator_profile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"
#include "core/parse.hpp"

namespace ccsim::topology {
namespace {

using json::ObjectReader;
using json::Value;

constexpr double kMaxSeconds = 1.0;  // per kernel overhead or launch: a second is no kernel's
constexpr double kMinFlops = 1e6;    // a peak below a MFLOP/s is a typo, and keeps every time finite
constexpr double kMaxFlops = 1e19;   // a peak above 10 EFLOP/s is a typo
constexpr double kMinEfficiency = 1e-3;
constexpr double kMaxBps = 1e16;
constexpr double kMaxError = 1e6;
constexpr int kMaxTile = 4096;

DType read_dtype_value(const SourceRef& where, const std::string& text) {
  std::optional<DType> dtype = parse_dtype(text);
  if (!dtype) where.fail(fmt::format("expected one of {}, got \"{}\"", dtype_choices(), text));
  return *dtype;
}

void read_gemm(ObjectReader& doc, GemmModel& g) {
  ObjectReader r = doc.child("gemm");
  g.multiprocessors = static_cast<int>(r.required("multiprocessors").integer_in(1, 1 << 20));
  ObjectReader peaks = r.child("peak_flops");
  const Value& peaks_value = r.required("peak_flops").object();
  for (const auto& [key, value] : peaks_value.members()) {
    const SourceRef where{doc.file(), value.line(), r.path() + ".peak_flops." + key};
    DTypePeak p{read_dtype_value(where, key), peaks.required(key).number_in(kMinFlops, kMaxFlops)};
    for (const DTypePeak& q : g.peaks) {
      if (q.dtype == p.dtype) where.fail(fmt::format("{} is given twice (as another spelling)", dtype_name(p.dtype)));
    }
    g.peaks.push_back(p);
  }
  peaks.finish();
  if (g.peaks.empty()) r.at("peak_flops").fail("expected the peak of at least one dtype, e.g. {\"bf16\": 9.894e14}");
  g.default_dtype = read_dtype_value(r.at("default_dtype"), r.required("default_dtype").string());
  if (g.peak(g.default_dtype) <= 0) {
    r.at("default_dtype").fail(fmt::format("{} has no peak_flops", dtype_name(g.default_dtype)));
  }
  const Value& tiles = r.required("tiles").array();
  for (std::size_t i = 0; i < tiles.items().size(); ++i) {
    ObjectReader t(tiles.items()[i], doc.file(), json::item_path(r.path() + ".tiles", i));
    GemmTile tile;
    tile.m = static_cast<int>(t.required("m").integer_in(1, kMaxTile));
    tile.n = static_cast<int>(t.required("n").integer_in(1, kMaxTile));
    tile.efficiency = t.required("efficiency").number_in(kMinEfficiency, 1);
    t.finish();
    g.tiles.push_back(tile);
  }
  if (g.tiles.empty())
    r.at("tiles").fail("expected at least one tile, e.g. {\"m\": 128, \"n\": 128, \"efficiency\": 1}");
  g.efficiency = r.required("efficiency").number_in(kMinEfficiency, 1);
  g.k_fill = r.required("k_fill").number_in(0, 1e6);
  g.split_k_min = r.required("split_k_min").number_in(0, 1e9);
  g.overhead_s = r.required("overhead_s").number_in(0, kMaxSeconds);
  g.operand_Bps = r.required("operand_Bps").number_in(0, kMaxBps);
  r.finish();
}

MemoryCurve read_curve(ObjectReader& c) {
  MemoryCurve m;
  m.kind = c.required("kind").string();
  if (m.kind.empty()) c.at("kind").fail("expected an operator name or \"default\", got \"\"");
  m.overhead_s = c.required("overhead_s").number_in(0, kMaxSeconds);
  m.bandwidth_Bps = c.required("bandwidth_Bps").number_in(1e3, kMaxBps);
  c.finish();
  return m;
}

FitResidual read_residual(ObjectReader& r) {
  FitResidual f;
  f.what = r.required("what").string();
  f.points = static_cast<int>(r.required("points").integer_in(1, 1'000'000'000));
  f.gmean_error = r.required("gmean_error").number_in(0, kMaxError);
  f.worst_error = r.required("worst_error").number_in(-1, kMaxError);
  r.finish();
  return f;
}

std::vector<std::string> read_strings(ObjectReader& doc, std::string_view key) {
  std::vector<std::string> out;
  const Value& list = doc.required(key).array();
  for (std::size_t i = 0; i < list.items().size(); ++i) {
    const Value& v = list.items()[i];
    if (!v.is_string())
      SourceRef{doc.file(), v.line(), json::item_path(std::string(key), i)}.fail("expected a string, " + json::got(v));
    out.push_back(v.text());
  }
  return out;
}

}  // namespace

double GemmModel::peak(DType dtype) const {
  for (const DTypePeak& p : peaks) {
    if (p.dtype == dtype) return p.flops;
  }
  return 0;
}

double GemmModel::product_s(std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t batch, DType dtype) const {
  double rate = peak(dtype);
  if (rate <= 0) rate = peak(default_dtype);  // callers check a trace's dtypes against the profile first
  const double sms = multiprocessors;
  const double per_sm = rate * efficiency / sms;
  auto ceil_div = [](double a, double b) { return std::ceil(a / b); };
  double best = std::numeric_limits<double>::infinity();
  for (const GemmTile& tile : tiles) {
    const double tiles_n = ceil_div(static_cast<double>(m), tile.m) * ceil_div(static_cast<double>(n), tile.n) * batch;
    for (double split = 1;; split *= 2) {
      const double depth = ceil_div(static_cast<double>(k), split);
      const double waves = ceil_div(tiles_n * split, sms);
      best = std::min(best, waves * 2.0 * tile.m * tile.n * (depth + k_fill) / (per_sm * tile.efficiency));
      if (split_k_min <= 0 || 2 * split * split_k_min > static_cast<double>(k) || tiles_n * split >= sms) break;
    }
  }
  if (operand_Bps > 0) {
    const double bytes = dtype_bytes(dtype) *
                         (static_cast<double>(m) * k + static_cast<double>(k) * n + static_cast<double>(m) * n) * batch;
    best = std::max(best, bytes / operand_Bps);
  }
  return best;
}

double AcceleratorProfile::gemm_s(const GemmShape& s) const {
  if (!s.backward) return gemm.overhead_s + gemm.product_s(s.m, s.n, s.k, s.batch, s.dtype);
  return 2 * gemm.overhead_s + gemm.product_s(s.m, s.k, s.n, s.batch, s.dtype) +  // data gradient
         gemm.product_s(s.k, s.n, s.m, s.batch, s.dtype);                         // weight gradient
}

const MemoryCurve& AcceleratorProfile::memory_curve(std::string_view kind) const {
  const MemoryCurve* fallback = nullptr;
  for (const MemoryCurve& c : memory) {
    if (c.kind == kind) return c;
    if (c.kind == "default") fallback = &c;
  }
  return *fallback;  // the reader requires "default"
}

double AcceleratorProfile::seconds(std::string_view name, const GemmShape* shape, double flops, double bytes) const {
  double device = 0;
  int kernels = 1;
  if (shape != nullptr) {
    device = gemm_s(*shape);
    kernels = shape->backward ? 2 : 1;
  } else {
    if (flops > 0) {  // as a square product of those FLOPs would run
      const double side = std::max(1.0, std::round(std::cbrt(flops / 2)));
      const auto d = static_cast<std::uint64_t>(side);
      device = gemm.overhead_s + gemm.product_s(d, d, d, 1, gemm.default_dtype);
    }
    if (bytes > 0 || flops <= 0) {
      const MemoryCurve& c = memory_curve(name);
      device = std::max(device, c.overhead_s + bytes / c.bandwidth_Bps);
    }
  }
  return std::max(device, kernels * launch_s);
}

std::string AcceleratorProfile::describe() const {
  return file.empty() ? fmt::format("profile {}", name) : fmt::format("profile {} ({})", name, file);
}

AcceleratorProfile parse_accelerator_profile(std::string_view text, const std::string& source) {
  Value root = json::parse(text, source);
  ObjectReader doc(root, source, "");
  const std::string format = doc.required("format").string();
  if (format != kAcceleratorProfileFormat) {
    doc.at("format").fail(fmt::format("expected \"{}\", got \"{}\"", kAcceleratorProfileFormat, format));
  }
  if (doc.required("version").integer() != kAcceleratorProfileVersion) {
    doc.at("version").fail(fmt::format("expected {} (the only version this build reads), got \"{}\"",
                                       kAcceleratorProfileVersion, doc.required("version")->text()));
  }
  AcceleratorProfile p;
  p.file = source;
  p.name = doc.required("name").string();
  if (p.name.empty()) doc.at("name").fail("expected a non-empty name, got \"\"");
  p.accelerator = doc.required("accelerator").string();
  p.description = doc.optional("description").string().value_or("");
  p.command = doc.optional("command").string().value_or("");
  p.sources = read_strings(doc, "sources");
  if (p.sources.empty()) doc.at("sources").fail("expected where the figures come from, got an empty list");
  read_gemm(doc, p.gemm);
  const Value& memory = doc.required("memory").array();
  for (std::size_t i = 0; i < memory.items().size(); ++i) {
    ObjectReader c(memory.items()[i], source, json::item_path("memory", i));
    MemoryCurve curve = read_curve(c);
    for (const MemoryCurve& other : p.memory) {
      if (other.kind == curve.kind) c.at("kind").fail(fmt::format("kind \"{}\" is given twice", curve.kind));
    }
    p.memory.push_back(std::move(curve));
  }
  if (std::none_of(p.memory.begin(), p.memory.end(), [](const MemoryCurve& c) { return c.kind == "default"; })) {
    doc.at("memory").fail("expected a curve of kind \"default\" (for memory-bound operators of other kinds)");
  }
  p.launch_s = doc.required("launch_s").number_in(0, kMaxSeconds);
  if (const Value* residuals = doc.optional("residuals").array()) {
    for (std::size_t i = 0; i < residuals->items().size(); ++i) {
      ObjectReader r(residuals->items()[i], source, json::item_path("residuals", i));
      p.residuals.push_back(read_residual(r));
    }
  }
  doc.finish();
  return p;
}

AcceleratorProfile read_accelerator_profile(const std::string& path) {
  return parse_accelerator_profile(json::read_file(path), path);
}

std::string write_accelerator_profile(const AcceleratorProfile& p) {
  using ordered = nlohmann::ordered_json;
  ordered doc;
  doc["format"] = kAcceleratorProfileFormat;
  doc["version"] = kAcceleratorProfileVersion;
  doc["name"] = p.name;
  doc["accelerator"] = p.accelerator;
  doc["description"] = p.description;
  doc["command"] = p.command;
  doc["sources"] = p.sources;
  ordered g;
  g["multiprocessors"] = p.gemm.multiprocessors;
  ordered peaks = ordered::object();
  for (const DTypePeak& q : p.gemm.peaks) peaks[std::string(dtype_name(q.dtype))] = q.flops;
  g["peak_flops"] = peaks;
  g["default_dtype"] = std::string(dtype_name(p.gemm.default_dtype));
  g["tiles"] = ordered::array();
  for (const GemmTile& t : p.gemm.tiles)
    g["tiles"].push_back(ordered{{"m", t.m}, {"n", t.n}, {"efficiency", t.efficiency}});
  g["efficiency"] = p.gemm.efficiency;
  g["k_fill"] = p.gemm.k_fill;
  g["split_k_min"] = p.gemm.split_k_min;
  g["overhead_s"] = p.gemm.overhead_s;
  g["operand_Bps"] = p.gemm.operand_Bps;
  doc["gemm"] = g;
  doc["memory"] = ordered::array();
  for (const MemoryCurve& c : p.memory) {
    doc["memory"].push_back(
        ordered{{"kind", c.kind}, {"overhead_s", c.overhead_s}, {"bandwidth_Bps", c.bandwidth_Bps}});
  }
  doc["launch_s"] = p.launch_s;
  doc["residuals"] = ordered::array();
  for (const FitResidual& r : p.residuals) {
    doc["residuals"].push_back(ordered{
        {"what", r.what}, {"points", r.points}, {"gmean_error", r.gmean_error}, {"worst_error", r.worst_error}});
  }
  return doc.dump(2) + "\n";
}

}  // namespace ccsim::topology
