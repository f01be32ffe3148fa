#include "compress/codec_benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <thread>

#include <time.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ccsim::compress {

void add_cpu_codec_fields(nlohmann::ordered_json& doc, bool error_bounded) {
  doc["where"] = {{"default", "host"},
                  {"staging_Bps", 2.5e10},
                  {"source",
                   "estimate: PCIe 4.0 x16, 16 GT/s x 16 lanes x 128/130 = 31.5 GB/s per direction (PCI-SIG PCIe 4.0 "
                   "base specification); about 80% of it assumed for large copies"}};
  if (error_bounded) {
    doc["error_mode"] = "REL";
    doc["dtype"] = "fp32";
  }
}
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// CPU time of the calling thread: what a call costs even when the machine is shared and
/// the thread is descheduled part of the time.
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Runs f(part) on each part in its own thread (the calling thread takes part 0); the
/// largest thread CPU time, i.e. the wall time the slowest part would take on idle cores.
template <class F>
double timed_parallel(int threads, F&& f) {
  std::vector<double> times(threads);
  auto run = [&f, &times](int t) {
    double start = thread_cpu_s();
    f(t);
    times[t] = thread_cpu_s() - start;
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(run, t);
  run(0);
  for (auto& w : workers) w.join();
  return *std::max_element(times.begin(), times.end());
}

/// Three significant digits, so that models read as measured figures, not noise.
double round3(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  double scale = std::pow(10.0, 2 - std::floor(std::log10(std::fabs(x))));
  return std::round(x * scale) / scale;
}

/// Median CPU time of compressing the first 256 elements: the fixed cost of a small call.
double small_call_s(const Codec& codec, std::span<const float> data) {
  std::span<const float> small = data.first(std::min<std::size_t>(256, data.size()));
  std::vector<std::byte> stream;
  std::vector<double> ts;
  for (int rep = 0; rep < 201; ++rep) {
    double start = thread_cpu_s();
    codec.compress(small, stream);
    ts.push_back(thread_cpu_s() - start);
  }
  return median(ts);
}

std::string family_of(const std::string& spec) { return spec.substr(0, spec.find(':')); }

/// Times compress, decompress and (for homomorphic codecs) add, each a callable returning
/// its seconds, `repetitions` times after one warm-up, and stores their medians and the
/// rates over m.raw_bytes in `m`.
template <typename Compress, typename Decompress, typename Add>
void time_operations(CodecMeasurement& m, bool homomorphic, int repetitions, Compress compress, Decompress decompress,
                     Add add) {
  std::vector<double> tc, td, ta;
  for (int rep = 0; rep <= repetitions; ++rep) {  // rep 0 warms up
    const double c = compress();
    const double d = decompress();
    const double a = homomorphic ? add() : 0.0;
    if (rep > 0) {
      tc.push_back(c);
      td.push_back(d);
      ta.push_back(a);
    }
  }
  m.compress_s = median(tc);
  m.decompress_s = median(td);
  m.compress_Bps = m.raw_bytes / m.compress_s;
  m.decompress_Bps = m.raw_bytes / m.decompress_s;
  if (homomorphic) {
    m.add_s = median(ta);
    m.add_Bps = m.raw_bytes / m.add_s;
  }
}

}  // namespace

CodecMeasurement measure_codec(const Codec& codec, std::span<const float> data, int threads, int repetitions) {
  if (threads < 1 || repetitions < 1)
    throw std::invalid_argument("measure_codec: threads and repetitions must be >= 1");
  const std::size_t n = data.size();
  std::vector<std::span<const float>> parts;
  for (int t = 0; t < threads; ++t)
    parts.push_back(data.subspan(n * t / threads, n * (t + 1) / threads - n * t / threads));
  std::vector<std::vector<std::byte>> streams(threads), sums(threads);
  std::vector<std::vector<float>> outs(threads);
  for (int t = 0; t < threads; ++t) outs[t].resize(parts[t].size());

  CodecMeasurement m;
  m.spec = codec.spec();
  m.threads = threads;
  m.elements = n;
  const double raw = static_cast<double>(n * sizeof(float));
  m.raw_bytes = raw;
  time_operations(
      m, codec.homomorphic(), repetitions,
      [&] { return timed_parallel(threads, [&](int t) { codec.compress(parts[t], streams[t]); }); },
      [&] { return timed_parallel(threads, [&](int t) { codec.decompress(streams[t], outs[t]); }); },
      [&] { return timed_parallel(threads, [&](int t) { codec.add_compressed(streams[t], streams[t], sums[t]); }); });
  m.chunk_elements = parts.front().size();
  m.calls = 1;
  m.repetitions = repetitions;
  double compressed = 0;
  for (int t = 0; t < threads; ++t) {
    compressed += static_cast<double>(streams[t].size());
    for (std::size_t i = 0; i < parts[t].size(); ++i) {
      if (std::isfinite(parts[t][i])) {
        m.max_error = std::max(m.max_error, std::fabs(static_cast<double>(parts[t][i]) - outs[t][i]));
      }
    }
  }
  m.ratio = raw / compressed;
  m.compressed_bytes = compressed;
  m.t0_s = small_call_s(codec, data);
  return m;
}

CodecMeasurement measure_codec_chunks(const Codec& codec, std::span<const float> data, std::size_t chunk_elements,
                                      int repetitions) {
  if (chunk_elements == 0 || repetitions < 1) {
    throw std::invalid_argument("measure_codec_chunks: chunk_elements and repetitions must be >= 1");
  }
  const std::size_t chunks = data.size() / chunk_elements;
  if (chunks == 0) {
    throw std::invalid_argument(
        fmt::format("measure_codec_chunks: {} elements hold no chunk of {}", data.size(), chunk_elements));
  }
  std::vector<std::vector<std::byte>> streams(chunks);
  std::vector<std::byte> sum;
  std::vector<float> out(chunk_elements);
  auto chunk = [&](std::size_t i) { return data.subspan(i * chunk_elements, chunk_elements); };

  CodecMeasurement m;
  m.spec = codec.spec();
  m.threads = 1;
  m.elements = chunks * chunk_elements;
  m.chunk_elements = chunk_elements;
  m.calls = chunks;
  m.repetitions = repetitions;
  m.raw_bytes = static_cast<double>(m.elements * sizeof(float));
  auto timed = [](auto&& work) {
    const double start = thread_cpu_s();
    work();
    return thread_cpu_s() - start;
  };
  time_operations(
      m, codec.homomorphic(), repetitions,
      [&] {
        return timed([&] {
          for (std::size_t i = 0; i < chunks; ++i) codec.compress(chunk(i), streams[i]);
        });
      },
      [&] {
        return timed([&] {
          for (std::size_t i = 0; i < chunks; ++i) codec.decompress(streams[i], out);
        });
      },
      [&] {
        return timed([&] {
          for (std::size_t i = 0; i < chunks; ++i) codec.add_compressed(streams[i], streams[i], sum);
        });
      });
  for (std::size_t i = 0; i < chunks; ++i) {
    m.compressed_bytes += static_cast<double>(streams[i].size());
    codec.decompress(streams[i], out);
    std::span<const float> in = chunk(i);
    for (std::size_t j = 0; j < chunk_elements; ++j) {
      if (std::isfinite(in[j])) m.max_error = std::max(m.max_error, std::fabs(static_cast<double>(in[j]) - out[j]));
    }
  }
  m.ratio = m.raw_bytes / m.compressed_bytes;
  m.t0_s = small_call_s(codec, data);
  return m;
}

double measure_memcpy_Bps(std::size_t bytes, int repetitions) {
  std::vector<char> a(bytes, 1), b(bytes, 0);
  std::vector<double> times;
  for (int rep = 0; rep <= repetitions; ++rep) {
    double start = thread_cpu_s();
    std::memcpy(b.data(), a.data(), bytes);
    double t = thread_cpu_s() - start;
    if (rep > 0) times.push_back(t);
    a[rep % bytes] = b[(static_cast<std::size_t>(rep) * 7) % bytes];  // keep the copies observable
  }
  return static_cast<double>(bytes) / *std::min_element(times.begin(), times.end());
}

double measure_memory_Bps() { return measure_memcpy_Bps(std::size_t{64} << 20, 10); }

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      const std::size_t name = colon == std::string::npos ? colon : line.find_first_not_of(" \t", colon + 1);
      if (name != std::string::npos) return line.substr(name);
    }
  }
  return "unknown CPU";
}

MachineInfo MachineInfo::detect() {
  MachineInfo info;
  info.cpu = cpu_model_name();
  info.cores = static_cast<int>(std::thread::hardware_concurrency());
  info.memcpy_Bps = measure_memory_Bps();
  return info;
}

std::string MachineInfo::describe() const {
  return fmt::format("{}, {} cores; {}: {:.1f} GB/s", cpu, cores, kMemoryProbe, memcpy_Bps / 1e9);
}

std::string bench_json(const MachineInfo& machine, const std::vector<BenchData>& data,
                       const std::vector<CodecMeasurement>& measurements, const std::string& command) {
  nlohmann::ordered_json doc;
  doc["format"] = kBenchFormat;
  doc["version"] = kBenchVersion;
  doc["command"] = command;
  doc["machine"] = {{"cpu", machine.cpu},
                    {"cores", machine.cores},
                    {"memory_Bps", machine.memcpy_Bps},
                    {"memory_source", kMemoryProbe}};
  doc["timing"] =
      "times are medians over the repetitions after one warm-up of the thread CPU time (CLOCK_THREAD_CPUTIME_ID) of "
      "one repetition: all its calls, the slowest thread's when threads > 1";
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const BenchData& d : data) {
    files.push_back({{"name", d.name}, {"elements", d.elements}, {"min", d.min}, {"max", d.max}});
  }
  doc["data"] = files;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const CodecMeasurement& m : measurements) {
    nlohmann::ordered_json j;
    j["codec"] = family_of(m.spec);
    j["spec"] = m.spec;
    j["data"] = m.data;
    j["rel"] = m.rel;
    j["tolerance"] = m.tolerance;
    j["threads"] = m.threads;
    j["chunk_elements"] = m.chunk_elements;
    j["calls"] = m.calls;
    j["repetitions"] = m.repetitions;
    j["raw_bytes"] = m.raw_bytes;
    j["compressed_bytes"] = m.compressed_bytes;
    j["ratio"] = m.ratio;
    j["compress_s"] = m.compress_s;
    j["decompress_s"] = m.decompress_s;
    if (m.add_s > 0) j["add_s"] = m.add_s;
    j["small_call_s"] = m.t0_s;
    j["max_error"] = m.max_error;
    list.push_back(j);
  }
  doc["measurements"] = list;
  return doc.dump(2) + "\n";
}

CodecLayout codec_layout(std::string_view family) {
  CodecLayout l;
  if (family == "ccsz") {
    l.description =
        "ccsz (src/compress/ccsz_codec.hpp): error-bounded codec of the SZx / fZ-light family on one CPU core. Values "
        "are quantised on one grid anchored at zero (step just under 2 x the bound), blocks of 128 store their smallest "
        "grid index and bit-packed offsets, blocks on one grid point store one index. Strict bound, float rounding "
        "included. The shared grid makes it homomorphic: two streams add in the integer domain without decompressing; "
        "partial sums can also be re-compressed (summable).";
  } else if (family == "zfp") {
    l.description =
        "ZFP in fixed-accuracy mode (absolute tolerance = REL bound x value range), 1-D, serial execution on one CPU "
        "core, through libzfp (src/compress/zfp_codec.hpp). Partial sums can be re-compressed, each time within the "
        "tolerance again (summable); compressed blocks cannot be added (not homomorphic).";
  } else if (family == "int8") {
    l.description =
        "Symmetric int8 quantization with one fp32 scale per block of 256 elements (scale = max|x| / 127) on one CPU "
        "core (src/compress/quantize_codec.hpp), used with error feedback. Scales differ between ranks: not summable, "
        "not homomorphic; compress once, all-gather, decompress and reduce.";
  } else if (family == "onebit") {
    l.description =
        "1-bit sign quantization with one fp32 scale (mean |x|) per block of 256 elements and error feedback, on one "
        "CPU core (src/compress/quantize_codec.hpp). Not summable, not homomorphic: compress once, all-gather, "
        "decompress and reduce.";
  } else {
    throw std::invalid_argument("no model layout for codec " + std::string(family));
  }
  l.kind = family == "ccsz" || family == "zfp" ? "error-bounded" : "quantizer";
  l.homomorphic = family == "ccsz";
  l.summable = l.kind == "error-bounded";
  if (l.kind == "quantizer") {
    l.bits = family == "int8" ? 8 : 1;
    l.block_elements = 256;
    l.scale_bytes = 4;
  }
  return l;
}

/// Long: the model document's keys in file order.
std::string codec_model_json(std::string_view model_name, const std::vector<CodecMeasurement>& measurements,
                             const MachineInfo& machine, const std::string& command) {
  if (measurements.empty()) throw std::invalid_argument("codec_model_json: no measurements");
  const std::string family = family_of(measurements.front().spec);
  std::vector<std::string> data;
  for (const auto& m : measurements) {
    if (family_of(m.spec) != family) throw std::invalid_argument("codec_model_json: measurements of several codecs");
    if (std::find(data.begin(), data.end(), m.data) == data.end()) data.push_back(m.data);
  }
  const std::string data_list = fmt::format("{}", fmt::join(data, ", "));
  const std::string hardware = fmt::format("one core of {}", machine.describe());
  const std::string measured = fmt::format("measured for ccsim with `{}` on {} ({} elements in all)", command,
                                           data_list, measurements.front().elements);

  nlohmann::ordered_json doc;
  doc["format"] = "ccsim-compressor";
  doc["version"] = 1;
  doc["name"] = std::string(model_name);
  const CodecLayout layout = codec_layout(family);
  doc["description"] = layout.description;
  const bool error_bounded = layout.kind == "error-bounded";
  const bool homomorphic = layout.homomorphic;
  doc["kind"] = error_bounded ? "error-bounded" : "quantizer";
  doc["homomorphic"] = homomorphic;
  doc["summable"] = error_bounded;
  doc["hardware"] = hardware;
  doc["source"] =
      measured +
      "; throughputs are raw bytes / median thread CPU time of the call (CLOCK_THREAD_CPUTIME_ID, because the "
      "machine was shared with other work) over the repetitions after a warm-up, t0_s the median "
      "CPU time of compressing 256 elements";
  add_cpu_codec_fields(doc, error_bounded);

  // Pool the data sets per operating point: ratio and rates over all raw bytes.
  std::map<double, std::vector<const CodecMeasurement*>> points;
  for (const auto& m : measurements) points[error_bounded ? m.rel : 0.0].push_back(&m);
  nlohmann::ordered_json settings = nlohmann::ordered_json::array();
  std::string notes;
  for (const auto& [rel, ms] : points) {
    double raw = 0, compressed = 0, tc = 0, td = 0, ta = 0, worst = 0;
    std::vector<double> t0;
    std::vector<std::string> per_file;
    for (const CodecMeasurement* m : ms) {
      double bytes = static_cast<double>(m->elements) * 4;
      raw += bytes;
      compressed += bytes / m->ratio;
      tc += bytes / m->compress_Bps;
      td += bytes / m->decompress_Bps;
      if (homomorphic) ta += bytes / m->add_Bps;
      t0.push_back(m->t0_s);
      std::string err = m->tolerance > 0 ? fmt::format("max error / tolerance {:.4f}", m->max_error / m->tolerance)
                                         : fmt::format("max error {:.3g}", m->max_error);
      per_file.push_back(
          fmt::format("{}: value range {:.6g}, abs {:.6g}, ratio {:.3f}, compress {:.3f} GB/s, "
                      "decompress {:.3f} GB/s{}, {}",
                      m->data, m->value_range, m->tolerance, m->ratio, m->compress_Bps / 1e9, m->decompress_Bps / 1e9,
                      homomorphic ? fmt::format(", add {:.3f} GB/s", m->add_Bps / 1e9) : "", err));
      if (m->tolerance > 0) worst = std::max(worst, m->max_error / m->tolerance);
    }
    nlohmann::ordered_json s;
    if (error_bounded) {
      s["error_bound"] = rel;
      s["ratio"] = round3(raw / compressed);
    } else {
      s["bits"] = family == "int8" ? 8 : 1;
      s["block_elements"] = 256;
      s["scale_bytes"] = 4;
    }
    s["compress_Bps"] = round3(raw / tc);
    s["decompress_Bps"] = round3(raw / td);
    if (homomorphic) s["add_Bps"] = round3(raw / ta);
    s["t0_s"] = round3(median(t0));
    s["source"] = fmt::format("measured (see source), pooled over the data sets: {}", fmt::join(per_file, "; "));
    if (family == "zfp" && worst > 1) {
      notes += fmt::format("At REL {:g} some elements came back over the tolerance (worst {:.3f} x it). ", rel, worst);
    }
    settings.push_back(s);
  }
  doc["settings"] = settings;
  if (family == "zfp") notes += "zfp's fixed-accuracy mode is not a strict bound. ";
  notes += "Multi-core figures (threads on parts of the data) are printed by the benchmark, not modelled here.";
  doc["notes"] = notes;
  return doc.dump(2) + "\n";
}

}  // namespace ccsim::compress
