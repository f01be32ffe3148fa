#include "calibrate/compressor_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "compress/codec_benchmark.hpp"
#include "compress/model_reader.hpp"
#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"
#include "core/parse.hpp"

namespace ccsim::calibrate {
namespace {

using json::ObjectReader;

/// Four significant digits: figures of a fit, not of its noise.
double round4(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  double scale = std::pow(10.0, 3 - std::floor(std::log10(std::fabs(x))));
  return std::round(x * scale) / scale;
}

std::string non_empty(ObjectReader& r, std::string_view key) {
  std::string s = r.required(key).string();
  if (s.empty()) r.at(key).fail("expected a non-empty string, got \"\"");
  return s;
}

BenchMeasurement read_measurement(const json::Value& value, const std::string& file, const std::string& path,
                                  const std::vector<BenchDataFile>& data) {
  ObjectReader r(value, file, path);
  BenchMeasurement m;
  m.line = value.line();
  m.path = path;
  m.codec = non_empty(r, "codec");
  m.spec = non_empty(r, "spec");
  m.data = r.required("data").string();
  if (std::none_of(data.begin(), data.end(), [&](const BenchDataFile& d) { return d.name == m.data; })) {
    std::vector<std::string> names;
    for (const BenchDataFile& d : data) names.push_back(d.name);
    r.at("data").fail(fmt::format("expected one of the data files ({}), got \"{}\"", fmt::join(names, ", "), m.data));
  }
  m.rel = r.required("rel").non_negative();
  // A relative bound is a fraction of the value range (0 for quantizers, which have none): the
  // fitted model's setting must be one the model reader accepts.
  if (m.rel >= 1) r.at("rel").fail(fmt::format("expected a relative bound below 1, got \"{:g}\"", m.rel));
  m.tolerance = r.required("tolerance").non_negative();
  std::int64_t threads = r.required("threads").positive_integer();
  if (threads > 4096) r.at("threads").fail(fmt::format("expected at most 4096, got \"{}\"", threads));
  m.threads = static_cast<int>(threads);
  m.chunk_elements = static_cast<std::uint64_t>(r.required("chunk_elements").positive_integer());
  m.calls = static_cast<std::uint64_t>(r.required("calls").positive_integer());
  m.repetitions = static_cast<std::uint64_t>(r.required("repetitions").positive_integer());
  m.raw_bytes = r.required("raw_bytes").positive();
  m.compressed_bytes = r.required("compressed_bytes").positive();
  r.required("ratio").positive();  // raw_bytes / compressed_bytes, for readers; the fit uses the two
  m.compress_s = r.required("compress_s").positive();
  m.decompress_s = r.required("decompress_s").positive();
  m.add_s = r.optional("add_s").positive().value_or(0.0);
  m.small_call_s = r.required("small_call_s").non_negative();
  m.max_error = r.required("max_error").non_negative();
  r.finish();
  return m;
}

/// The setting a measurement belongs to: its REL bound (0 for quantizers).
struct Group {
  std::vector<const BenchMeasurement*> ms;
};

std::string residual_text(double x) { return fmt::format("{:+.1f}%", 100 * x); }

}  // namespace

AffineFit fit_affine(const std::vector<FitPoint>& points, bool clamp_t0, std::string_view what) {
  std::set<double> sizes;
  for (const FitPoint& p : points) {
    if (!(p.bytes > 0 && p.seconds > 0 && std::isfinite(p.bytes) && std::isfinite(p.seconds))) {
      throw FitError(
          fmt::format("{}: expected positive sizes and times, got {} bytes in {} s", what, p.bytes, p.seconds));
    }
    sizes.insert(p.bytes);
  }
  if (sizes.size() < 2) {
    throw FitError(
        fmt::format("{}: t0 + bytes / rate needs at least two chunk sizes, got {}; run the benchmark with "
                    "--chunks (e.g. --chunks 4KiB,64KiB,1MiB,16MiB)",
                    what, sizes.size()));
  }
  // Weighted least squares with weights 1 / measured^2: the relative residuals.
  double s = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
  for (const FitPoint& p : points) {
    const double w = 1.0 / (p.seconds * p.seconds);
    s += w;
    sx += w * p.bytes;
    sxx += w * p.bytes * p.bytes;
    sy += w * p.seconds;
    sxy += w * p.bytes * p.seconds;
  }
  const double det = s * sxx - sx * sx;
  AffineFit fit;
  double t0 = (sxx * sy - sx * sxy) / det;
  double slope = (s * sxy - sx * sy) / det;
  if (t0 < 0) {
    if (!clamp_t0) {
      throw FitError(
          fmt::format("{}: the fit gives a negative fixed cost t0 = {:.3g} s (rate {}): the points do not "
                      "show a cost per call; refused. Measure more repetitions or smaller chunks, or "
                      "pass --clamp-t0 to fit the rate with t0 = 0",
                      what, t0, slope > 0 ? format_rate(1.0 / slope) : std::string("not positive")));
    }
    t0 = 0;
    slope = sxy / sxx;  // through the origin, same weights
    fit.t0_clamped = true;
  }
  if (!(slope > 0)) {
    throw FitError(
        fmt::format("{}: the time per call does not grow with the chunk size (slope {:.3g} s/byte), so no "
                    "positive rate fits; refused",
                    what, slope));
  }
  fit.t0_s = t0;
  fit.rate_Bps = 1.0 / slope;
  double log_sum = 0;
  for (const FitPoint& p : points) {
    const double fitted = t0 + p.bytes * slope;
    fit.residuals.push_back(fitted / p.seconds - 1);
    log_sum += std::fabs(std::log(fitted / p.seconds));
  }
  fit.geomean_error = std::exp(log_sum / static_cast<double>(points.size())) - 1;
  return fit;
}

CompressorBench parse_compressor_bench(std::string_view text, const std::string& source) {
  json::Value root = json::parse(text, source);
  ObjectReader doc(root, source, "");
  CompressorBench bench;
  bench.file = source;
  std::string format = doc.required("format").string();
  if (format != compress::kBenchFormat) {
    doc.at("format").fail(fmt::format("expected \"{}\", got \"{}\"", compress::kBenchFormat, format));
  }
  std::int64_t version = doc.required("version").integer();
  if (version != compress::kBenchVersion) {
    doc.at("version").fail(fmt::format("expected {} (the only version this build reads), got \"{}\"",
                                       compress::kBenchVersion, doc.required("version")->text()));
  }
  bench.command = doc.required("command").string();
  ObjectReader machine = doc.child("machine");
  bench.cpu = non_empty(machine, "cpu");
  std::int64_t cores = machine.required("cores").positive_integer();
  if (cores > (1 << 20)) machine.at("cores").fail(fmt::format("expected at most 1048576, got \"{}\"", cores));
  bench.cores = static_cast<int>(cores);
  bench.memory_Bps = machine.required("memory_Bps").positive();
  bench.memory_source = non_empty(machine, "memory_source");
  machine.finish();
  bench.timing = doc.required("timing").string();

  const json::Value& files = doc.required("data").array();
  const std::string files_path = doc.member_path("data");
  for (std::size_t i = 0; i < files.items().size(); ++i) {
    ObjectReader f(files.items()[i], source, json::item_path(files_path, i));
    BenchDataFile d;
    d.name = non_empty(f, "name");
    d.elements = static_cast<std::uint64_t>(f.required("elements").positive_integer());
    d.min = f.required("min").number();
    d.max = f.required("max").number();
    if (d.max < d.min) f.at("max").fail(fmt::format("expected at least min ({:g}), got \"{:g}\"", d.min, d.max));
    f.finish();
    bench.data.push_back(d);
  }
  const json::Value& list = doc.required("measurements").array();
  const std::string list_path = doc.member_path("measurements");
  for (std::size_t i = 0; i < list.items().size(); ++i) {
    BenchMeasurement m = read_measurement(list.items()[i], source, json::item_path(list_path, i), bench.data);
    // One point per setting: a repeated one would count twice in the fit (calibrate network
    // refuses the same).
    for (const BenchMeasurement& before : bench.measurements) {
      if (before.codec == m.codec && before.spec == m.spec && before.data == m.data && before.threads == m.threads &&
          before.chunk_elements == m.chunk_elements) {
        throw InputError(source, m.line, m.path,
                         fmt::format("a second measurement of {} on {} with {} thread(s) and chunks of {} elements "
                                     "(the first at line {}): one point per setting expected",
                                     m.spec, m.data, m.threads, m.chunk_elements, before.line));
      }
    }
    bench.measurements.push_back(std::move(m));
  }
  doc.finish();
  return bench;
}

CompressorBench read_compressor_bench(const std::string& path) {
  return parse_compressor_bench(json::read_file(path), path);
}

/// The codec whose measurements are fitted: --codec, or the one codec of the file.
std::string choose_codec(const CompressorBench& bench, const CompressorFitOptions& options) {
  std::set<std::string> codecs;
  for (const BenchMeasurement& m : bench.measurements) codecs.insert(m.codec);
  std::string codec = options.codec;
  if (codec.empty()) {
    if (codecs.size() != 1) {
      throw InputError(bench.file, 0, "measurements",
                       fmt::format("expected the measurements of one codec or --codec to choose, got {}",
                                   codecs.empty() ? std::string("none") : fmt::format("{}", fmt::join(codecs, ", "))));
    }
    codec = *codecs.begin();
  } else if (!codecs.contains(codec)) {
    throw InputError(
        "command line", 0, "--codec",
        fmt::format("expected a codec measured in {} ({}), got \"{}\"", bench.file, fmt::join(codecs, ", "), codec));
  }
  return codec;
}

/// The model layout of `codec`, an InputError naming the bench file when it has none.
compress::CodecLayout layout_of(const CompressorBench& bench, const std::string& codec) {
  compress::CodecLayout layout;
  try {
    layout = compress::codec_layout(codec);
  } catch (const std::invalid_argument&) {
    throw InputError(bench.file, 0, "measurements",
                     fmt::format("expected a codec with a model layout (ccsz, int8, onebit, zfp), got \"{}\"", codec));
  }
  return layout;
}

/// The single-thread measurements of `codec` by setting (the error bound, 0 for a quantiser);
/// `multi_thread` counts those left out. A setting that broke its bound is an InputError.
std::map<double, Group> single_thread_groups(const CompressorBench& bench, const std::string& codec,
                                             const compress::CodecLayout& layout, int& multi_thread) {
  const bool error_bounded = layout.kind == "error-bounded";
  std::map<double, Group> groups;
  for (const BenchMeasurement& m : bench.measurements) {
    if (m.codec != codec) continue;
    if (m.threads != 1) {
      ++multi_thread;
      continue;
    }
    if (layout.homomorphic && m.add_s == 0) {
      SourceRef{bench.file, m.line, m.path + ".add_s"}.fail(
          fmt::format("expected the add time of homomorphic {}, got none", codec));
    }
    if (error_bounded && m.max_error > m.tolerance) {
      SourceRef{bench.file, m.line, m.path + ".max_error"}.fail(fmt::format(
          "{} broke its error bound here: max error {:.6g} above the tolerance {:.6g} ({}rel {:g} of the data's "
          "range), so its ratio is not that of the bound and the codec is not one to model; the bench measures what "
          "the codec does, so fix or drop the codec at this setting",
          m.spec, m.max_error, m.tolerance, m.tolerance > 0 ? fmt::format("x{:.4f}; ", m.max_error / m.tolerance) : "",
          m.rel));
    }
    groups[error_bounded ? m.rel : 0.0].ms.push_back(&m);
  }
  if (groups.empty()) {
    throw InputError(bench.file, 0, "measurements",
                     fmt::format("expected single-thread measurements of {}, got none", codec));
  }

  return groups;
}

/// Fits t0 + bytes / rate per call to one operation (compress, decompress, add) of a
/// setting's measurements; appends its table to `report` and its quality to `quality`.
AffineFit fit_operation(const CompressorBench& bench, const CompressorFitOptions& options, const std::string& what,
                        const char* key, const Group& group, double BenchMeasurement::*seconds, std::string& report,
                        std::vector<std::string>& quality) {
  std::vector<FitPoint> points;
  std::vector<const BenchMeasurement*> of;
  for (const BenchMeasurement* m : group.ms) {
    const double calls = static_cast<double>(m->calls);
    points.push_back({m->raw_bytes / calls, m->*seconds / calls});
    of.push_back(m);
  }
  AffineFit fit;
  try {
    fit = fit_affine(points, options.clamp_t0, what);
  } catch (const FitError& e) {
    throw InputError(bench.file, 0, "measurements", e.what());
  }
  report += fmt::format("  {}: t0 {:.4g} us{} + bytes / {}; geometric-mean error {:.2f}%\n", key, fit.t0_s * 1e6,
                        fit.t0_clamped ? " (negative, clamped to 0)" : "", format_rate(fit.rate_Bps),
                        100 * fit.geomean_error);
  report += fmt::format("    {:<20} {:>10} {:>8} {:>14} {:>14} {:>9}\n", "data", "chunk", "calls", "measured us",
                        "fitted us", "residual");
  for (std::size_t i = 0; i < points.size(); ++i) {
    report += fmt::format("    {:<20} {:>10} {:>8} {:>14.4f} {:>14.4f} {:>9}\n", of[i]->data,
                          format_bytes(points[i].bytes), of[i]->calls, points[i].seconds * 1e6,
                          fit.seconds(points[i].bytes) * 1e6, residual_text(fit.residuals[i]));
  }
  quality.push_back(
      fmt::format("{} {:.2f}%{}", key, 100 * fit.geomean_error, fit.t0_clamped ? " (t0 clamped to 0)" : ""));
  return fit;
}

/// What the fit of one setting adds to the model and its report.
struct SettingFit {
  nlohmann::ordered_json setting;
  double ratio = 0;
  bool clamped = false;  ///< a fixed cost came out negative and was clamped to 0
};

/// Fits one setting's ratio and its compress, decompress (and add) throughputs; appends the
/// report's lines and records the data files and chunk sizes used.
SettingFit fit_setting(const CompressorBench& bench, const CompressorFitOptions& options, const std::string& codec,
                       const compress::CodecLayout& layout, double rel, Group& group, std::string& report,
                       std::set<std::string>& data_used, std::set<std::uint64_t>& chunks_used) {
  const bool error_bounded = layout.kind == "error-bounded";
  bool any_clamped = false;
  std::stable_sort(group.ms.begin(), group.ms.end(), [](const BenchMeasurement* a, const BenchMeasurement* b) {
    return a->chunk_elements < b->chunk_elements;
  });
  // Ratio: pooled over the data files at each file's largest chunk; by chunk size for the report.
  std::map<std::string, std::uint64_t> largest;
  std::map<std::uint64_t, std::pair<double, double>> by_chunk;  // chunk bytes -> (raw, compressed)
  double worst = 0;
  for (const BenchMeasurement* m : group.ms) {
    largest[m->data] = std::max(largest[m->data], m->chunk_elements);
    by_chunk[m->chunk_elements * 4].first += m->raw_bytes;
    by_chunk[m->chunk_elements * 4].second += m->compressed_bytes;
    if (m->tolerance > 0) worst = std::max(worst, m->max_error / m->tolerance);
    data_used.insert(m->data);
    chunks_used.insert(m->chunk_elements * 4);
  }
  double raw = 0, compressed = 0;
  for (const BenchMeasurement* m : group.ms) {
    if (m->chunk_elements != largest[m->data]) continue;
    raw += m->raw_bytes;
    compressed += m->compressed_bytes;
  }
  const double ratio = raw / compressed;
  const std::string label = error_bounded ? fmt::format("{} rel={:g}", codec, rel) : codec;
  std::vector<std::string> ratio_by_chunk;
  for (const auto& [bytes, rc] : by_chunk) {
    ratio_by_chunk.push_back(fmt::format("{} {:.3f}", format_bytes(static_cast<double>(bytes)), rc.first / rc.second));
  }
  report += fmt::format("\n{}: ratio {:.4g} (pooled at each file's largest chunk; by chunk: {}){}\n", label, ratio,
                        fmt::join(ratio_by_chunk, ", "),
                        error_bounded ? fmt::format(", max error / tolerance {:.4f}", worst) : std::string());

  struct Op {
    const char* key;
    double BenchMeasurement::*seconds;
  };
  std::vector<Op> ops = {{"compress", &BenchMeasurement::compress_s}, {"decompress", &BenchMeasurement::decompress_s}};
  if (layout.homomorphic) ops.push_back({"add", &BenchMeasurement::add_s});
  nlohmann::ordered_json s;
  if (error_bounded) {
    s["error_bound"] = rel;
    s["ratio"] = round4(ratio);
  } else {
    s["bits"] = layout.bits;
    s["block_elements"] = layout.block_elements;
    s["scale_bytes"] = layout.scale_bytes;
  }
  std::map<std::string, AffineFit> fits;
  std::vector<std::string> quality;
  for (const Op& op : ops) {
    fits[op.key] =
        fit_operation(bench, options, fmt::format("{} {}", label, op.key), op.key, group, op.seconds, report, quality);
    any_clamped = any_clamped || fits[op.key].t0_clamped;
  }
  s["compress_Bps"] = round4(fits["compress"].rate_Bps);
  s["decompress_Bps"] = round4(fits["decompress"].rate_Bps);
  if (layout.homomorphic) s["add_Bps"] = round4(fits["add"].rate_Bps);
  s["t0_s"] = round4(fits["compress"].t0_s);
  s["decompress_t0_s"] = round4(fits["decompress"].t0_s);
  if (layout.homomorphic) s["add_t0_s"] = round4(fits["add"].t0_s);
  s["source"] = fmt::format(
      "measured and fitted (see source): {} single-thread points; geometric-mean error of the fit: {}; ratio pooled "
      "at each file's largest chunk{}",
      group.ms.size(), fmt::join(quality, ", "),
      error_bounded ? fmt::format("; max error / tolerance {:.4f}", worst) : std::string());
  return {std::move(s), ratio, any_clamped};
}

/// The model document around the settings: codec, hardware, sources and transfer rule.
nlohmann::ordered_json model_document(const CompressorBench& bench, const CompressorFitOptions& options,
                                      const std::string& name, const compress::CodecLayout& layout,
                                      const std::set<std::string>& data_used,
                                      const std::set<std::uint64_t>& chunks_used) {
  std::vector<std::string> chunk_names;
  for (std::uint64_t c : chunks_used) chunk_names.push_back(format_bytes(static_cast<double>(c)));
  nlohmann::ordered_json doc;
  doc["format"] = "ccsim-compressor";
  doc["version"] = 1;
  doc["name"] = name;
  doc["description"] = layout.description;
  doc["kind"] = layout.kind;
  doc["homomorphic"] = layout.homomorphic;
  doc["summable"] = layout.summable;
  doc["hardware"] = fmt::format("one core of {} ({} cores); single-core memory bandwidth {}", bench.cpu, bench.cores,
                                format_rate(bench.memory_Bps));
  doc["source"] = fmt::format(
      "measured for ccsim with `{}` on {} (chunks of {}); fitted with `{}`: t0 + bytes / rate per call by least squares "
      "on the relative residuals over the chunk sizes. {}",
      bench.command, fmt::join(data_used, ", "), fmt::join(chunk_names, ", "), options.command, bench.timing);
  doc["measured_on"] = {{"device", bench.cpu},
                        {"cores", bench.cores},
                        {"memory_Bps", round4(bench.memory_Bps)},
                        {"source", "measured by the benchmark: " + bench.memory_source}};
  if (options.transfer == "memory-bound") {
    doc["transfer"] = {
        {"kind", "memory-bound"},
        {"source",
         "assumption: the codec streams its input and output through memory once per call, so its throughputs are "
         "taken as proportional to the memory bandwidth available to it (t0 unchanged)"}};
  } else {
    doc["transfer"] = {{"kind", "none"},
                       {"source", "chosen at calibration (--transfer none): figures hold only where measured"}};
  }
  compress::add_cpu_codec_fields(doc, layout.kind == "error-bounded");
  return doc;
}

std::string compressor_fit_command(const std::string& bench, const CompressorFitOptions& options) {
  std::string command = "ccsim calibrate compressor " + bench;
  if (!options.codec.empty()) command += " --codec " + options.codec;
  if (!options.name.empty()) command += " --name " + options.name;
  if (options.transfer != "memory-bound") command += " --transfer " + options.transfer;
  if (options.clamp_t0) command += " --clamp-t0";
  return command;
}

CompressorFit fit_compressor(const CompressorBench& bench, const CompressorFitOptions& options) {
  const std::string codec = choose_codec(bench, options);
  const compress::CodecLayout layout = layout_of(bench, codec);
  if (options.transfer != "memory-bound" && options.transfer != "none") {
    throw InputError("command line", 0, "--transfer",
                     fmt::format("expected one of memory-bound, none, got \"{}\"", options.transfer));
  }
  const std::string name = options.name.empty() ? codec : options.name;
  int multi_thread = 0;
  std::map<double, Group> groups = single_thread_groups(bench, codec, layout, multi_thread);
  std::string report = fmt::format(
      "{}: {} setting(s) from {} on {} ({} cores, memory {}); {} multi-thread measurement(s) left out (models hold "
      "one-core figures)\n",
      codec, groups.size(), bench.file, bench.cpu, bench.cores, format_rate(bench.memory_Bps), multi_thread);
  report += "fit: t0 + bytes / rate per call, least squares on the relative residuals (fitted / measured - 1)\n";

  nlohmann::ordered_json settings = nlohmann::ordered_json::array();
  std::vector<std::pair<double, double>> ratios;  // (bound, ratio)
  std::set<std::string> data_used;
  std::set<std::uint64_t> chunks_used;
  bool any_clamped = false;
  for (auto& [rel, group] : groups) {
    SettingFit fit = fit_setting(bench, options, codec, layout, rel, group, report, data_used, chunks_used);
    ratios.emplace_back(rel, fit.ratio);
    any_clamped = any_clamped || fit.clamped;
    settings.push_back(std::move(fit.setting));
  }
  if (ratios.size() > 1) {
    report += "\nratio vs error bound (the model interpolates log(ratio) linearly in log(bound)):\n";
    for (std::size_t i = 1; i < ratios.size(); ++i) {
      const auto& [a, ra] = ratios[i - 1];
      const auto& [b, rb] = ratios[i];
      report += fmt::format("  {:g} to {:g}: ratio {:.4g} to {:.4g}, ratio ~ bound^{:.3f}\n", a, b, ra, rb,
                            std::log(rb / ra) / std::log(b / a));
    }
  }

  nlohmann::ordered_json doc = model_document(bench, options, name, layout, data_used, chunks_used);
  doc["settings"] = settings;
  std::string notes =
      "Multi-core figures (threads on parts of the data) are printed by the benchmark, not modelled here.";
  if (any_clamped) notes += " Some fixed costs came out negative and were clamped to 0 (--clamp-t0); see the settings.";
  doc["notes"] = notes;
  std::string model = doc.dump(2) + "\n";
  // The model must be one ccsim reads: measurements far outside what a compressor does (a
  // ratio of 1e-9, a rate of 1 B/s) fit to values its reader refuses, and are refused here, by
  // the bench file's name, rather than written.
  try {
    (void)compress::parse_compressor_model(model, "the fitted model");
  } catch (const InputError& e) {
    throw InputError(bench.file, 0, "measurements",
                     fmt::format("fit to a model outside what a compressor model may hold ({}: {}): the measurements "
                                 "of that setting are not a compressor's",
                                 e.field().empty() ? "the model" : e.field(), e.detail()));
  }
  return {std::move(model), report};
}

}  // namespace ccsim::calibrate
