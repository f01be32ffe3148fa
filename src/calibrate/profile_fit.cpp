#include "calibrate/profile_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/parse.hpp"
#include "core/text_lines.hpp"

namespace ccsim::calibrate {
namespace {

/// A CSV file with a header row: cells by column name, positions for messages.
class CsvTable {
 public:
  CsvTable(const std::string& path, std::initializer_list<std::string_view> required) : path_(path) {
    const std::string content = json::read_file(path);
    for (const auto& [line, line_text] : split_lines(content)) {
      const std::string text(line_text);
      if (text.find_first_not_of(" \t") == std::string::npos) continue;
      if (header_.empty()) {
        header_ = split(text);
        header_line_ = line;
        continue;
      }
      rows_.push_back({line, split(text)});
      if (rows_.back().cells.size() != header_.size()) {
        throw InputError(path_, line, "",
                         fmt::format("expected {} comma-separated cells as the header has, got {}", header_.size(),
                                     rows_.back().cells.size()));
      }
    }
    if (header_.empty()) throw InputError(path_, 0, "", "expected a header row naming the columns, got an empty file");
    for (std::string_view name : required) {
      if (column(name) < 0) {
        throw InputError(path_, header_line_, std::string(name),
                         fmt::format("expected a column \"{}\" in the header, got \"{}\"", name, join(header_)));
      }
    }
  }

  struct Row {
    int line;
    std::vector<std::string> cells;
  };
  const std::vector<Row>& rows() const { return rows_; }
  int column(std::string_view name) const {
    for (std::size_t i = 0; i < header_.size(); ++i) {
      if (header_[i] == name) return static_cast<int>(i);
    }
    return -1;
  }
  const std::string& cell(const Row& row, std::string_view name) const {
    return row.cells[static_cast<std::size_t>(column(name))];
  }
  /// The cell as a positive finite number, else an InputError naming the line and column.
  double positive(const Row& row, std::string_view name) const {
    const std::string& text = cell(row, name);
    std::optional<double> value = parse_double(text);
    if (!value || !(*value > 0)) {
      throw InputError(path_, row.line, std::string(name), fmt::format("expected a positive number, got \"{}\"", text));
    }
    return *value;
  }
  std::uint64_t dimension(const Row& row, std::string_view name) const {
    const std::string& text = cell(row, name);
    std::optional<std::uint64_t> value = parse_uint(text);
    if (!value || *value == 0 || *value > kMaxGemmDimension) {
      throw InputError(path_, row.line, std::string(name),
                       fmt::format("expected a positive integer of at most {}, got \"{}\"", kMaxGemmDimension, text));
    }
    return *value;
  }
  const std::string& path() const { return path_; }

 private:
  static std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream in(text);
    while (std::getline(in, cell, ',')) {
      const auto first = cell.find_first_not_of(" \t");
      const auto last = cell.find_last_not_of(" \t");
      cells.push_back(first == std::string::npos ? std::string() : cell.substr(first, last - first + 1));
    }
    if (!text.empty() && text.back() == ',') cells.emplace_back();
    return cells;
  }
  static std::string join(const std::vector<std::string>& cells) {
    std::string out;
    for (const std::string& c : cells) out += (out.empty() ? "" : ",") + c;
    return out;
  }

  std::string path_;
  std::vector<std::string> header_;
  int header_line_ = 0;
  std::vector<Row> rows_;
};

/// Least squares of c + a w ~ t on the relative error ((c + a w - t) / t)^2; c >= 0.
std::pair<double, double> fit_line(const std::vector<double>& w, const std::vector<double>& t) {
  double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double q = 1 / (t[i] * t[i]);
    s11 += q;
    s12 += w[i] * q;
    s22 += w[i] * w[i] * q;
    b1 += t[i] * q;
    b2 += w[i] * t[i] * q;
  }
  const double det = s11 * s22 - s12 * s12;
  double c = det > 0 ? (b1 * s22 - b2 * s12) / det : 0;
  double a = det > 0 ? (s11 * b2 - s12 * b1) / det : 0;
  if (!(c >= 0) || !(a > 0)) {  // through the origin
    c = 0;
    a = s22 > 0 ? b2 / s22 : 0;
  }
  return {c, a};
}

std::string signed_error(double error) { return fmt::format("{:+.1f} %", 100 * error); }

/// The points of all files, a later file's replacing an earlier one's of the same key
/// (CUDA-graph re-timings of small kernels); `note` says how many were replaced.
template <typename Point, typename KeyOf>
std::vector<Point> merge(const std::vector<std::vector<Point>>& files, KeyOf key_of, std::string& note) {
  using Key = decltype(key_of(std::declval<const Point&>()));
  std::vector<Point> out;
  int replaced = 0;
  for (const std::vector<Point>& file : files) {
    std::map<Key, bool> in_file;
    for (const Point& p : file) in_file[key_of(p)] = true;
    const std::size_t before = out.size();
    std::erase_if(out, [&](const Point& p) { return in_file.count(key_of(p)) > 0; });
    replaced += static_cast<int>(before - out.size());
    out.insert(out.end(), file.begin(), file.end());
  }
  if (replaced > 0) note = fmt::format("{} points replaced by a later file's timing of the same kernel", replaced);
  return out;
}

std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, DType> gemm_key(const GemmPoint& p) {
  return {p.m, p.n, p.k, p.batch, p.dtype};
}
std::pair<std::string, double> memory_key(const MemoryPoint& p) { return {p.kind, p.bytes}; }

struct GemmFitResult {
  topology::GemmModel model;
  double gmean = std::numeric_limits<double>::infinity();
};

/// The best k_fill and split_k_min of the grid, with efficiency and overhead by least squares.
GemmFitResult fit_gemm(const std::vector<GemmPoint>& points, topology::GemmModel base) {
  static constexpr double kFills[] = {0, 16, 32, 64, 96, 128, 192, 256, 384, 512};
  static constexpr double kSplits[] = {0, 128, 256, 512, 1024, 2048};
  std::vector<double> t;
  for (const GemmPoint& p : points) t.push_back(p.seconds);
  GemmFitResult best;
  base.efficiency = 1;
  base.overhead_s = 0;
  base.operand_Bps = 0;
  for (double fill : kFills) {
    for (double split : kSplits) {
      topology::GemmModel g = base;
      g.k_fill = fill;
      g.split_k_min = split;
      std::vector<double> w;
      for (const GemmPoint& p : points) w.push_back(g.product_s(p.m, p.n, p.k, p.batch, p.dtype));
      const auto [c, a] = fit_line(w, t);
      if (!(a >= 1)) continue;  // above the peak: not a physical fit
      double sum = 0;
      for (std::size_t i = 0; i < w.size(); ++i) sum += std::abs(std::log((c + a * w[i]) / t[i]));
      const double gmean = std::exp(sum / static_cast<double>(w.size())) - 1;
      if (gmean < best.gmean) {
        g.efficiency = 1 / a;
        g.overhead_s = c;
        best = {g, gmean};
      }
    }
  }
  return best;
}

/// One memory curve per kind, and "default" over all points.
std::vector<topology::MemoryCurve> fit_memory(const std::vector<MemoryPoint>& points) {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_kind;
  for (const MemoryPoint& p : points) {
    for (const std::string& kind : {p.kind, std::string("default")}) {
      by_kind[kind].first.push_back(p.bytes);
      by_kind[kind].second.push_back(p.seconds);
    }
  }
  std::vector<topology::MemoryCurve> curves;
  for (const auto& [kind, data] : by_kind) {
    const auto [c, a] = fit_line(data.first, data.second);
    curves.push_back({kind, c, a > 0 ? 1 / a : 1e16});
  }
  std::stable_partition(curves.begin(), curves.end(),
                        [](const topology::MemoryCurve& c) { return c.kind == "default"; });
  return curves;
}

/// The fit's parameters and residuals (also stored in `p.residuals`), for people.
std::string report_fit(topology::AcceleratorProfile& p, const std::vector<GemmPoint>& points,
                       const std::vector<MemoryPoint>& all_memory, const std::string& replaced,
                       const std::string& memory_replaced, const Skipped& skipped, const LaunchData& launch) {
  std::string report;
  report += fmt::format("gemm: {} products{}\n", points.size(), replaced.empty() ? "" : " (" + replaced + ")");
  for (const std::string& note : skipped.notes) report += fmt::format("  skipped: {}\n", note);
  report += fmt::format(
      "  tiles and waves over {} multiprocessors: efficiency {:.4f} of peak, k_fill {:g}, split_k_min "
      "{:g}, overhead {:.3g} us per product\n",
      p.gemm.multiprocessors, p.gemm.efficiency, p.gemm.k_fill, p.gemm.split_k_min, p.gemm.overhead_s * 1e6);
  for (const topology::DTypePeak& peak : p.gemm.peaks) {
    std::vector<double> predicted, measured;
    const GemmPoint* worst = nullptr;
    double worst_error = 0;
    for (const GemmPoint& q : points) {
      if (q.dtype != peak.dtype) continue;
      predicted.push_back(
          p.gemm_s(GemmShape{static_cast<std::uint32_t>(q.m), static_cast<std::uint32_t>(q.n),
                             static_cast<std::uint32_t>(q.k), static_cast<std::uint32_t>(q.batch), q.dtype, false}));
      measured.push_back(q.seconds);
      const double e = std::abs(std::log(predicted.back() / q.seconds));
      if (e >= worst_error) worst_error = e, worst = &q;
    }
    if (predicted.empty()) continue;
    p.residuals.push_back(residual_of(fmt::format("gemm {}", dtype_name(peak.dtype)), predicted, measured));
    const topology::FitResidual& r = p.residuals.back();
    report += fmt::format("  {}: {} points, geometric-mean error {:.1f} %, worst {} ({} x {} x {} x {}, {}{})\n",
                          dtype_name(peak.dtype), r.points, 100 * r.gmean_error, signed_error(r.worst_error), worst->m,
                          worst->n, worst->k, worst->batch, worst->file,
                          worst->line > 0 ? fmt::format(":{}", worst->line) : "");
  }
  if (!all_memory.empty()) {
    report += fmt::format("memory: {} kernels{}, overhead + bytes / bandwidth per kind\n", all_memory.size(),
                          memory_replaced.empty() ? "" : " (" + memory_replaced + ")");
    for (const topology::MemoryCurve& c : p.memory) {
      std::vector<double> predicted, measured;
      for (const MemoryPoint& q : all_memory) {
        if (c.kind != "default" && q.kind != c.kind) continue;
        predicted.push_back(c.overhead_s + q.bytes / c.bandwidth_Bps);
        measured.push_back(q.seconds);
      }
      p.residuals.push_back(residual_of("memory " + c.kind, predicted, measured));
      const topology::FitResidual& r = p.residuals.back();
      report += fmt::format("  {}: {:.3g} us + bytes / {}, {} points, geometric-mean error {:.1f} %, worst {}\n",
                            c.kind, c.overhead_s * 1e6, format_rate(c.bandwidth_Bps), r.points, 100 * r.gmean_error,
                            signed_error(r.worst_error));
    }
  }
  report += fmt::format(
      "launch: {:.3g} us per kernel issued by the host{}\n", p.launch_s * 1e6,
      launch.graph_s > 0 ? fmt::format(" ({:.3g} us from a CUDA graph: in the fitted overheads)", launch.graph_s * 1e6)
                         : std::string());
  return report;
}

}  // namespace

std::vector<topology::GemmTile> default_tiles() {
  return {{256, 128, 1.0}, {128, 256, 1.0}, {192, 192, 1.0}, {128, 128, 0.95}, {128, 64, 0.85}, {64, 64, 0.7}};
}

std::vector<GemmPoint> read_gemm_csv(const std::string& path, Skipped& skipped) {
  CsvTable csv(path, {"m", "n", "k", "dtype", "seconds"});
  const bool batched = csv.column("batch") >= 0;
  std::vector<GemmPoint> out;
  std::map<std::string, int> unknown;
  for (const CsvTable::Row& row : csv.rows()) {
    const std::string& dtype_text = csv.cell(row, "dtype");
    std::optional<DType> dtype = parse_dtype(dtype_text);
    if (!dtype) {
      ++unknown[dtype_text];
      continue;
    }
    GemmPoint p;
    p.m = csv.dimension(row, "m");
    p.n = csv.dimension(row, "n");
    p.k = csv.dimension(row, "k");
    p.batch = batched ? csv.dimension(row, "batch") : 1;
    p.dtype = *dtype;
    p.seconds = csv.positive(row, "seconds");
    p.file = path;
    p.line = row.line;
    out.push_back(p);
  }
  for (const auto& [text, count] : unknown) {
    skipped.notes.push_back(
        fmt::format("{}: {} rows of dtype \"{}\" skipped (not one of {})", path, count, text, dtype_choices()));
  }
  return out;
}

std::vector<MemoryPoint> read_memory_csv(const std::string& path) {
  CsvTable csv(path, {"op", "bytes", "seconds"});
  std::vector<MemoryPoint> out;
  for (const CsvTable::Row& row : csv.rows()) {
    MemoryPoint p;
    p.kind = csv.cell(row, "op");
    if (p.kind.empty()) throw InputError(path, row.line, "op", "expected an operator kind, got \"\"");
    p.bytes = csv.positive(row, "bytes");
    p.seconds = csv.positive(row, "seconds");
    p.file = path;
    p.line = row.line;
    out.push_back(p);
  }
  return out;
}

LaunchData read_launch_csv(const std::string& path) {
  CsvTable csv(path, {"mode", "seconds_per_kernel"});
  LaunchData out;
  for (const CsvTable::Row& row : csv.rows()) {
    const std::string& mode = csv.cell(row, "mode");
    if (mode == "eager") out.eager_s = csv.positive(row, "seconds_per_kernel");
    if (mode == "graph") out.graph_s = csv.positive(row, "seconds_per_kernel");
  }
  if (out.eager_s <= 0)
    throw InputError(path, 0, "mode", "expected a row of mode \"eager\" (the host's time per kernel)");
  return out;
}

topology::FitResidual residual_of(const std::string& what, const std::vector<double>& predicted,
                                  const std::vector<double>& measured) {
  topology::FitResidual r;
  r.what = what;
  r.points = static_cast<int>(predicted.size());
  double sum = 0, worst = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const double e = std::log(predicted[i] / measured[i]);
    sum += std::abs(e);
    if (std::abs(e) > std::abs(worst)) worst = e;
  }
  r.gmean_error = predicted.empty() ? 0 : std::exp(sum / static_cast<double>(predicted.size())) - 1;
  r.worst_error = std::exp(worst) - 1;
  return r;
}

ProfileFit fit_profile(const std::vector<std::vector<GemmPoint>>& gemm,
                       const std::vector<std::vector<MemoryPoint>>& memory, const LaunchData& launch,
                       const Skipped& skipped, const ProfileFitOptions& options) {
  ProfileFit out;
  topology::AcceleratorProfile& p = out.profile;
  p.name = options.name;
  p.accelerator = options.accelerator;
  p.description = options.description;
  p.command = options.command;
  p.sources = options.sources;
  p.gemm.multiprocessors = options.multiprocessors;
  p.gemm.peaks = options.peaks;
  p.gemm.default_dtype = options.default_dtype;
  p.gemm.tiles = options.tiles.empty() ? default_tiles() : options.tiles;
  std::string replaced;
  const std::vector<GemmPoint> points = merge(gemm, gemm_key, replaced);
  if (points.empty())
    throw InputError("command line", 0, "--gemm", "expected at least one matrix product to fit, got none");
  for (const GemmPoint& q : points) {
    if (p.gemm.peak(q.dtype) <= 0) {
      throw InputError(
          q.file, q.line, "dtype",
          fmt::format("{} products need --peak {}=FLOPS (the dense peak)", dtype_name(q.dtype), dtype_name(q.dtype)));
    }
  }
  p.gemm = fit_gemm(points, p.gemm).model;
  std::string memory_replaced;
  const std::vector<MemoryPoint> all_memory = merge(memory, memory_key, memory_replaced);
  if (!all_memory.empty()) {
    p.memory = fit_memory(all_memory);
  } else {
    p.memory.push_back({"default", 0, 1e16});
  }
  p.launch_s = launch.eager_s;

  out.report = report_fit(p, points, all_memory, replaced, memory_replaced, skipped, launch);
  return out;
}

}  // namespace ccsim::calibrate
