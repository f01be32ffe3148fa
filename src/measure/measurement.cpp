#include "measure/measurement.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collective/algorithm.hpp"
#include "collective/error_model.hpp"
#include "collective/ring_all_gather.hpp"
#include "compress/codec.hpp"
#include "core/input_error.hpp"
#include "core/output_file.hpp"
#include "core/parse.hpp"
#include "measure/communicator.hpp"
#include "measure/real_executor.hpp"
#include "measure/statistics.hpp"
#ifdef CCSIM_HAVE_UCX
#include "measure/ucx_transport.hpp"
#endif

extern char** environ;

namespace ccsim::measure {
namespace {

using nlohmann::ordered_json;
using collective::Collective;

constexpr double kUnitRoundoff = 0x1p-24;  // fp32

/// A process group of one kind, this process's member of it, and its transports.
struct Group {
  std::string kind;
  Communicator comm;
  int count = 1;  ///< groups of this kind in the world
  std::vector<int> node_of_rank;  ///< per group rank, numbered by distinct host name
  std::vector<std::pair<std::string, std::unique_ptr<Transport>>> transports;

  Transport& transport(const std::string& name) {
    for (auto& [n, t] : transports) {
      if (n == name) return *t;
    }
    throw std::logic_error("no transport " + name);
  }
};

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The inputs of one rank: synthetic gradients (zero mean, standard deviation 1e-3, Irwin-Hall
/// of four uniforms) or a window of a real fp32 file, different on every rank.
class InputSource {
 public:
  InputSource(const std::string& file, std::uint64_t seed) : seed_(seed) {
    if (file.empty()) return;
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file, 0, "--data", "cannot open the file");
    note_input_file(file);  // -o must not replace it
    in.seekg(0, std::ios::end);
    const auto bytes = static_cast<std::uint64_t>(in.tellg());
    if (bytes < sizeof(float) || bytes % sizeof(float) != 0) {
      throw InputError(file, 0, "--data", fmt::format("expected raw fp32 data (a non-zero multiple of 4 bytes), got {} bytes", bytes));
    }
    values_.resize(bytes / sizeof(float));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(values_.data()), static_cast<std::streamsize>(bytes));
    for (float v : values_) {
      if (!std::isfinite(v)) throw InputError(file, 0, "--data", "the data holds a value that is not finite");
    }
  }

  void fill(std::span<float> out, int world_rank, int world_size) const {
    if (values_.empty()) {
      const std::uint64_t base = splitmix64(seed_ ^ (static_cast<std::uint64_t>(world_rank) << 40));
      for (std::size_t i = 0; i < out.size(); ++i) {
        const std::uint64_t h = splitmix64(base + i);
        double sum = 0;
        for (int k = 0; k < 4; ++k) sum += static_cast<double>((h >> (16 * k)) & 0xFFFF) / 65536.0;
        out[i] = static_cast<float>((sum - 2.0) * std::sqrt(3.0) * 1e-3);
      }
      return;
    }
    const std::size_t n = values_.size();
    const std::size_t start = static_cast<std::size_t>(world_rank) * (n / static_cast<std::size_t>(world_size));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = values_[(start + i) % n];
  }

  std::string describe() const {
    return values_.empty() ? "synthetic gradients: zero mean, standard deviation 1e-3 (Irwin-Hall of 4 uniforms)"
                           : fmt::format("{} fp32 values from a file, a different window on every rank", values_.size());
  }

 private:
  std::uint64_t seed_;
  std::vector<float> values_;
};

std::string env_summary() {
  std::vector<std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view v(*e);
    if (v.starts_with("OMPI_MCA_") || v.starts_with("UCX_")) vars.emplace_back(v);
  }
  std::sort(vars.begin(), vars.end());
  return fmt::format("{}", fmt::join(vars, " "));
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("model name")) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

}  // namespace

std::string absolute_codec_spec(const std::string& spec, double value_range) {
  const auto pos = spec.find("rel=");
  if (pos == std::string::npos) return spec;
  auto end = spec.find(',', pos);
  const std::string text = spec.substr(pos + 4, end == std::string::npos ? std::string::npos : end - pos - 4);
  const double rel = parse_double_or_throw(text, "--codec", "rel");
  if (!(rel > 0)) throw InputError("--codec", 0, "rel", fmt::format("expected a positive bound, got \"{}\"", text));
  return spec.substr(0, pos) + fmt::format("abs={:.9g}", rel * value_range) +
         (end == std::string::npos ? "" : spec.substr(end));
}

namespace {

/// The kind of compressed all_reduce a real codec allows (as collective::compression_of does
/// for a compressor model).
collective::Compression codec_compression(const compress::Codec& codec) {
  if (codec.homomorphic()) return collective::Compression::kHomomorphic;
  if (codec.error_bound() >= 0) return collective::Compression::kErrorBounded;
  return collective::Compression::kNonSummable;
}

bool is_compressed(Collective op, const std::string& algorithm) {
  const collective::AlgorithmInfo* info = collective::find_algorithm(op, algorithm);
  return info != nullptr && info->compresses();
}

/// One series: an operation, an implementation, a group kind and a size, repeated.
class SeriesRunner {
 public:
  SeriesRunner(const MeasureOptions& options, const InputSource& source, const Communicator& world, Group& group,
               Collective op, std::uint64_t bytes)
      : options_(options), world_(world), group_(group), op_(op), count_(bytes / sizeof(float)) {
    const int p = group.comm.size();
    counts_.resize(static_cast<std::size_t>(p));
    collective::RingAllGather shape(p, count_, 4);
    for (int i = 0; i < p; ++i) {
      const auto c = shape.chunk(i, p).count;
      if (c > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) throw std::runtime_error("chunk too large for MPI");
      counts_[static_cast<std::size_t>(i)] = static_cast<int>(c);
    }
    own_ = shape.chunk(group.comm.rank(), p);
    input_.resize(count_);
    source.fill(input_, world.rank(), world.size());
    // The references of the MPI library, once per size, and the sum of magnitudes that bounds
    // the rounding of any summation order.
    reference_.resize(count_);
    if (op_ == Collective::kAllGather) {
      group.comm.all_gather(std::span<const float>(input_).subspan(own_.offset, own_.count), reference_, counts_);
    } else {
      std::vector<float> sum = input_;
      group.comm.all_reduce_sum(sum);
      abs_sum_.resize(count_);
      for (std::size_t i = 0; i < count_; ++i) abs_sum_[i] = std::abs(input_[i]);
      group.comm.all_reduce_sum(abs_sum_);
      if (op_ == Collective::kReduceScatter) {
        std::vector<float> mine(own_.count);
        group.comm.reduce_scatter(input_, mine, counts_);
        std::copy(mine.begin(), mine.end(), reference_.begin() + static_cast<std::ptrdiff_t>(own_.offset));
      } else {
        reference_ = std::move(sum);
      }
    }
    float lo = std::numeric_limits<float>::max();
    float hi = std::numeric_limits<float>::lowest();
    for (float v : input_) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    value_range_ = world.max(static_cast<double>(hi)) - world.min(static_cast<double>(lo));
    work_.resize(count_);
  }

  /// Runs the series `reps` times (fewer, at least 3, when they would take longer than
  /// `max_seconds`) after the warm-up.
  ordered_json run(const std::string& algorithm, const std::string& transport, int reps, double max_seconds) {
    const bool mpi = algorithm == "mpi";
    const int p = group_.comm.size();
    std::unique_ptr<compress::Codec> codec;
    std::unique_ptr<collective::Schedule> schedule;
    if (!mpi) {
      collective::Request request;
      request.op = op_;
      request.algorithm = algorithm;
      request.size = p;
      request.count = count_;
      request.element_bytes = 4;
      request.node_of_rank = group_.node_of_rank;
      if (is_compressed(op_, algorithm)) {
        codec = compress::make_codec(absolute_codec_spec(options_.codec, value_range_), "--codec");
        request.compression = codec_compression(*codec);
      }
      schedule = collective::make_schedule(request);
    }
    std::vector<float> residual(options_.error_feedback && codec ? count_ : 0, 0.0f);
    std::vector<float> mine(op_ == Collective::kReduceScatter ? own_.count : 0);
    std::vector<double> samples;
    RealStats stats;
    Check check;
    const int wanted = reps;
    // One executor for every repetition: its buffers keep their memory between calls.
    std::optional<RealExecutor> executor;
    if (!mpi) executor.emplace(group_.transport(transport), work_, codec.get(), residual);
    for (int rep = 0; rep < options_.warmup + reps; ++rep) {
      prepare();
      std::fill(residual.begin(), residual.end(), 0.0f);
      if (executor) executor->start_call();
      world_.barrier();
      const double t0 = Communicator::now_s();
      if (mpi) {
        run_library(mine);
      } else {
        collective::run_rank(*schedule, group_.comm.rank(), *executor);
        stats = executor->stats();
      }
      const double elapsed = world_.max(Communicator::now_s() - t0);
      if (mpi && op_ == Collective::kReduceScatter) {
        std::copy(mine.begin(), mine.end(), work_.begin() + static_cast<std::ptrdiff_t>(own_.offset));
      }
      check.merge(verify(algorithm, codec.get()));
      if (rep == 0 && elapsed > 0) {
        // Fewer repetitions (at least 3) when the series would take longer than allowed.
        const int affordable = static_cast<int>(max_seconds / elapsed);
        reps = std::max(std::min(wanted, affordable), std::min(3, wanted));
      }
      if (rep >= options_.warmup) samples.push_back(elapsed);
    }
    ordered_json out;
    out["op"] = std::string(collective::to_string(op_));
    out["implementation"] = mpi ? "mpi-library" : "ccsim-schedule";
    out["algorithm"] = mpi ? library_call() : algorithm;
    out["transport"] = mpi ? "mpi" : transport;
    out["codec"] = codec ? ordered_json(codec->spec()) : ordered_json(nullptr);
    out["error_feedback"] = codec ? ordered_json(options_.error_feedback) : ordered_json(nullptr);
    out["group"] = group_.kind;
    out["group_size"] = p;
    out["groups"] = group_.count;
    out["bytes"] = count_ * sizeof(float);
    out["count"] = count_;
    out["dtype"] = "fp32";
    out["warmup"] = options_.warmup;
    out["reps"] = samples.size();
    out["time_s"] = summary_json(summarize(samples));
    out["samples_s"] = samples;
    if (!mpi) {
      const auto wire = group_.comm.sum(stats.bytes_sent);
      const auto raw = group_.comm.sum(stats.raw_bytes_sent);
      out["wire_bytes_per_rank"] = static_cast<double>(wire) / p;
      out["ratio"] = wire > 0 ? static_cast<double>(raw) / static_cast<double>(wire) : 1.0;
      out["messages_per_rank"] = static_cast<double>(group_.comm.sum(stats.messages)) / p;
    }
    out["check"] = check.json();
    passed_ = check.passed;
    return out;
  }

  bool passed() const { return passed_; }
  double value_range() const { return value_range_; }

 private:
  /// The worst error of the series against its bound.
  struct Check {
    std::string kind;
    double bound_eb = 0;  ///< compressions x eb (error-bounded), 0 for plain
    double max_abs_error = 0;
    double max_error_over_bound = 0;  ///< <= 1 passes
    double rms_error = 0;
    double rms_value = 0;
    std::uint64_t violations = 0;
    bool passed = true;
    bool any = false;

    void merge(const Check& other) {
      if (!any) {
        *this = other;
        any = true;
        return;
      }
      max_abs_error = std::max(max_abs_error, other.max_abs_error);
      max_error_over_bound = std::max(max_error_over_bound, other.max_error_over_bound);
      rms_error = std::max(rms_error, other.rms_error);
      violations += other.violations;
      passed = passed && other.passed;
    }

    ordered_json json() const {
      ordered_json out;
      out["kind"] = kind;
      out["passed"] = passed;
      out["violations"] = violations;
      out["max_abs_error"] = max_abs_error;
      if (kind != "none") out["max_error_over_bound"] = max_error_over_bound;
      if (bound_eb > 0) out["error_bound_abs"] = bound_eb;
      out["rms_error"] = rms_error;
      out["rms_value"] = rms_value;
      return out;
    }
  };

  std::string library_call() const {
    switch (op_) {
      case Collective::kAllReduce: return "MPI_Allreduce";
      case Collective::kAllGather: return "MPI_Allgatherv";
      case Collective::kReduceScatter: return "MPI_Reduce_scatter";
      default: return "?";
    }
  }

  void prepare() {
    if (op_ == Collective::kAllGather) {
      std::fill(work_.begin(), work_.end(), 0.0f);
      std::copy_n(input_.begin() + static_cast<std::ptrdiff_t>(own_.offset), own_.count,
                  work_.begin() + static_cast<std::ptrdiff_t>(own_.offset));
    } else {
      std::copy(input_.begin(), input_.end(), work_.begin());
    }
  }

  void run_library(std::vector<float>& mine) {
    switch (op_) {
      case Collective::kAllReduce: group_.comm.all_reduce_sum(work_); break;
      case Collective::kAllGather:
        group_.comm.all_gather(std::span<const float>(input_).subspan(own_.offset, own_.count), work_, counts_);
        break;
      case Collective::kReduceScatter: group_.comm.reduce_scatter(input_, mine, counts_); break;
      default: throw std::logic_error("run_library: unsupported collective");
    }
  }

  /// Checks the result in work_ (this rank's part of it) against the library's reference.
  Check verify(const std::string& algorithm, const compress::Codec* codec) const {
    Check c;
    const int p = group_.comm.size();
    std::uint64_t first = 0;
    std::uint64_t last = count_;
    if (op_ == Collective::kReduceScatter) {
      first = own_.offset;
      last = own_.offset + own_.count;
    }
    int compressions = 0;
    double eb = 0;
    if (codec != nullptr) {
      compressions = collective::all_reduce_error(algorithm, p).compressions;
      eb = codec->error_bound();
    }
    // Plain: the same data summed in another order differs by at most 2 gamma_(p-1) sum|x|
    // (Higham, Accuracy and Stability of Numerical Algorithms, 4.2), and is identical for
    // p <= 2 (addition commutes), for all_gather (no arithmetic) and for the library itself.
    const bool exact = codec == nullptr && (op_ == Collective::kAllGather || p <= 2 || algorithm == "mpi");
    if (codec == nullptr) {
      c.kind = exact ? "bitwise" : "rounding";
    } else {
      c.kind = eb >= 0 ? "error-bound" : "none";
      c.bound_eb = eb >= 0 ? compressions * eb : 0;
    }
    const double gamma = 2.0 * (p + compressions) * kUnitRoundoff;
    double sq_err = 0;
    double sq_val = 0;
    for (std::uint64_t i = first; i < last; ++i) {
      const double got = work_[i];
      const double want = reference_[i];
      const double err = std::abs(got - want);
      sq_err += err * err;
      sq_val += want * want;
      c.max_abs_error = std::max(c.max_abs_error, err);
      bool ok = true;
      if (exact) {
        ok = std::memcmp(&work_[i], &reference_[i], sizeof(float)) == 0;
        if (!ok) c.max_error_over_bound = std::numeric_limits<double>::infinity();
      } else if (c.kind != "none") {
        const double magnitude = abs_sum_.empty() ? 0.0 : abs_sum_[i];
        const double bound = c.bound_eb * (1 + 0x1p-20) + gamma * (magnitude + c.bound_eb);
        ok = err <= bound;
        if (bound > 0) c.max_error_over_bound = std::max(c.max_error_over_bound, err / bound);
        else if (err > 0) c.max_error_over_bound = std::numeric_limits<double>::infinity();
      }
      if (!ok || !std::isfinite(got)) {
        ++c.violations;
        c.passed = false;
      }
    }
    const auto n = static_cast<double>(std::max<std::uint64_t>(last - first, 1));
    c.rms_error = std::sqrt(sq_err / n);
    c.rms_value = std::sqrt(sq_val / n);
    // Every rank of the world agrees on the outcome and the worst figures.
    c.max_abs_error = world_.max(c.max_abs_error);
    c.max_error_over_bound = world_.max(c.max_error_over_bound);
    c.rms_error = world_.max(c.rms_error);
    c.rms_value = world_.max(c.rms_value);
    c.violations = world_.sum(c.violations);
    c.passed = c.violations == 0;
    return c;
  }

  const MeasureOptions& options_;
  const Communicator& world_;
  Group& group_;
  Collective op_;
  std::uint64_t count_;
  std::vector<int> counts_;
  collective::Block own_;
  std::vector<float> input_;
  std::vector<float> reference_;
  std::vector<float> abs_sum_;
  std::vector<float> work_;
  double value_range_ = 0;
  bool passed_ = true;
};

/// World rank w of a tp x pp x dp layout: (colour, key) of its group of `kind`.
std::pair<int, int> group_of(const std::string& kind, const Layout& l, int w) {
  const int t = w % l.tp;
  const int s = (w / l.tp) % l.pp;
  const int d = w / (l.tp * l.pp);
  if (kind == "world") return {0, w};
  if (kind == "tp") return {w / l.tp, t};
  if (kind == "pp") return {t + l.tp * d, s};
  if (kind == "dp") return {t + l.tp * s, d};
  throw InputError("--groups", 0, "", fmt::format("unknown group kind \"{}\"; choices: world, tp, pp, dp", kind));
}

int group_count(const std::string& kind, const Layout& l) {
  if (kind == "tp") return l.pp * l.dp;
  if (kind == "pp") return l.tp * l.dp;
  if (kind == "dp") return l.tp * l.pp;
  return 1;
}

Layout resolve_layout(Layout l, int world) {
  const int known = std::max(l.tp, 1) * std::max(l.pp, 1) * std::max(l.dp, 1);
  if (l.pp < 1) throw InputError("--layout", 0, "pp", fmt::format("expected a positive size, got {}", l.pp));
  if (l.tp == 0 && l.dp == 0) l.dp = 1;
  if (l.tp == 0) l.tp = world / (l.pp * l.dp);
  if (l.dp == 0) l.dp = world / (l.tp * l.pp);
  if (l.tp * l.pp * l.dp != world || l.tp < 1 || l.dp < 1) {
    throw InputError("--layout", 0, "",
                     fmt::format("tp x pp x dp must equal the {} processes of the job (given factors multiply to {})",
                                 world, known));
  }
  return l;
}

/// Ping-pong between ranks 0 and 1 of the world, and concurrent bidirectional exchanges of
/// the pairs (0, 1), (2, 3), ... over one transport.
ordered_json measure_p2p(const MeasureOptions& options, const Communicator& world, Transport& transport) {
  ordered_json out = ordered_json::array();
  const int rank = world.rank();
  const int pairs = world.size() / 2;
  for (const char* pattern : {"ping-pong", "pairs"}) {
    for (std::uint64_t bytes : options.sizes) {
      std::vector<std::byte> send(bytes, std::byte{1});
      std::vector<std::byte> recv(bytes);
      std::vector<double> samples;
      int reps = options.reps;
      const bool ping = std::string_view(pattern) == "ping-pong";
      const int peer = rank ^ 1;
      const bool active = ping ? rank < 2 : peer < world.size();
      for (int rep = 0; rep < options.warmup + reps; ++rep) {
        world.barrier();
        const double t0 = Communicator::now_s();
        if (active && ping) {
          if (rank == 0) {
            transport.exchange(1, send, -1, {});
            transport.exchange(-1, {}, 1, recv);
          } else {
            transport.exchange(-1, {}, 0, recv);
            transport.exchange(0, send, -1, {});
          }
        } else if (active) {
          transport.exchange(peer, send, peer, recv);
        }
        double elapsed = Communicator::now_s() - t0;
        if (ping) elapsed /= 2;  // one way
        elapsed = world.max(active ? elapsed : 0.0);
        if (rep == 0 && elapsed > 0) {
          reps = std::max(std::min(options.reps, static_cast<int>(options.max_seconds_per_size / elapsed)),
                          std::min(3, options.reps));
        }
        if (rep >= options.warmup) samples.push_back(elapsed);
      }
      ordered_json s;
      s["pattern"] = pattern;
      s["transport"] = std::string(transport.name());
      s["pairs"] = ping ? 1 : pairs;
      s["bytes"] = bytes;
      s["reps"] = samples.size();
      s["time_s"] = summary_json(summarize(samples));
      s["samples_s"] = samples;
      out.push_back(s);
      if (rank == 0) {
        const double t = summarize(samples).median;
        fmt::print(stderr, "  p2p {:<9} {:<4} {:>12} B  {:>10.3f} us  {:>8.3f} GB/s per direction\n", pattern,
                   transport.name(), bytes, t * 1e6, t > 0 ? static_cast<double>(bytes) / t / 1e9 : 0.0);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> available_transports() {
#ifdef CCSIM_HAVE_UCX
  return {"mpi", "ucx"};
#else
  return {"mpi"};
#endif
}

std::string transports_note() {
#ifdef CCSIM_HAVE_UCX
  std::string out = "transports in this build: mpi, ucx (UCX tag messages, bootstrapped over MPI)";
#else
  std::string out = "transports in this build: mpi (UCX was not found when ccsim was configured)";
#endif
#ifdef CCSIM_HAVE_UCC
  out += "; UCC found";
#else
  out += "; UCC: not built (not found at configure time; Debian does not package it)";
#endif
  return out;
}

nlohmann::ordered_json run_measurements(const MeasureOptions& options) {
  Communicator world = Communicator::world();
  const bool root = world.rank() == 0;
  const Layout layout = resolve_layout(options.layout, world.size());
  const auto available = available_transports();
  for (const auto& t : options.transports) {
    if (std::find(available.begin(), available.end(), t) == available.end()) {
      throw InputError("--transport", 0, "", fmt::format("transport \"{}\" is not in this build; {}", t, transports_note()));
    }
  }
  for (std::uint64_t bytes : options.sizes) {
    if (bytes < sizeof(float) || bytes % sizeof(float) != 0) {
      throw InputError("--sizes", 0, "", fmt::format("expected sizes that are a positive multiple of 4 bytes (fp32), got {}", bytes));
    }
  }
  const InputSource source(options.data, options.seed);

  ordered_json doc;
  doc["format"] = "ccsim-measurements";
  doc["version"] = 1;
  doc["command"] = options.command_line;
  const auto hosts = world.all_gather(Communicator::processor_name());
  ordered_json machine;
  machine["processes"] = world.size();
  machine["nodes"] = std::set<std::string>(hosts.begin(), hosts.end()).size();
  machine["hosts"] = hosts;
  machine["cpu"] = cpu_model();
  // The cores the processes could run on (their affinity), which is what they shared.
  machine["cores_per_node"] = static_cast<int>(world.min(static_cast<double>(Communicator::usable_cores())));
  machine["mpi_library"] = Communicator::library_version();
  {
    nlohmann::ordered_json limits = nlohmann::ordered_json::object();
    for (const auto& [name, bytes] : Communicator::protocol_limits()) limits[name] = bytes;
    machine["protocol_limits"] = std::move(limits);
  }
  machine["transports"] = transports_note();
  machine["environment"] = env_summary();
#ifdef CCSIM_HAVE_UCX
  machine["ucx"] = UcxWorld::describe();
#endif
  doc["machine"] = machine;
  ordered_json layout_json;
  layout_json["tp"] = layout.tp;
  layout_json["pp"] = layout.pp;
  layout_json["dp"] = layout.dp;
  doc["layout"] = layout_json;
  doc["data"] = source.describe();

#ifdef CCSIM_HAVE_UCX
  std::unique_ptr<UcxWorld> ucx;
  if (std::find(options.transports.begin(), options.transports.end(), "ucx") != options.transports.end()) {
    ucx = std::make_unique<UcxWorld>();
  }
#endif

  // Process groups: construction time (MPI_Comm_split, repeated), then the groups used below.
  ordered_json groups_json = ordered_json::array();
  std::vector<Group> groups;
  std::uint32_t context = 1;
  for (const std::string& kind : options.groups) {
    const auto [color, key] = group_of(kind, layout, world.rank());
    std::vector<double> split_samples;
    for (int rep = 0; rep < std::max(options.reps, 3); ++rep) {
      world.barrier();
      const double t0 = Communicator::now_s();
      Communicator c = world.split(color, key);
      split_samples.push_back(world.max(Communicator::now_s() - t0));
    }
    Group group{kind, world.split(color, key), group_count(kind, layout), {}, {}};
    const auto group_hosts = group.comm.all_gather(Communicator::processor_name());
    for (const auto& host : group_hosts) {
      group.node_of_rank.push_back(static_cast<int>(std::find(group_hosts.begin(), group_hosts.end(), host) - group_hosts.begin()));
    }
    for (const auto& t : options.transports) {
      if (t == "mpi") group.transports.emplace_back("mpi", group.comm.transport());
#ifdef CCSIM_HAVE_UCX
      if (t == "ucx") group.transports.emplace_back("ucx", ucx->group(group.comm.world_ranks(), context));
#endif
    }
    ++context;
    ordered_json g;
    g["kind"] = kind;
    g["size"] = group.comm.size();
    g["count"] = group.count;
    g["construction"] = "MPI_Comm_split";
    g["construction_s"] = summary_json(summarize(split_samples));
    groups_json.push_back(g);
    if (root) {
      fmt::print(stderr, "group {}: {} groups of {} ranks, MPI_Comm_split {:.1f} us (median)\n", kind, group.count,
                 group.comm.size(), summarize(split_samples).median * 1e6);
    }
    groups.push_back(std::move(group));
  }
  doc["groups"] = groups_json;

  // Every series in sweep order, pooled over the rounds (MeasureOptions::rounds).
  ordered_json series = ordered_json::array();
  std::vector<bool> series_failed;
  const int rounds = std::max(1, options.rounds);
  for (int round = 0; round < rounds; ++round) {
    const int reps = options.reps / rounds + (round < options.reps % rounds ? 1 : 0);
    const bool last = round + 1 == rounds;
    std::size_t index = 0;
    for (Group& group : groups) {
      for (Collective op : options.ops) {
        for (std::uint64_t bytes : options.sizes) {
          SeriesRunner runner(options, source, world, group, op, bytes);
          for (const std::string& algorithm : options.algorithms) {
            // Algorithm names are per collective: the others run what they have of the list.
            if (algorithm != "mpi" && collective::find_algorithm(op, algorithm) == nullptr) continue;
            const std::vector<std::string> library{"mpi"};
            for (const std::string& transport : algorithm == "mpi" ? library : options.transports) {
              ordered_json s = runner.run(algorithm, transport, reps, options.max_seconds_per_size / rounds);
              if (round == 0) {
                series.push_back(std::move(s));
                series_failed.push_back(!runner.passed());
              } else {
                ordered_json& pooled = series[index];
                std::vector<double> samples = pooled["samples_s"].get<std::vector<double>>();
                for (const auto& v : s["samples_s"]) samples.push_back(v.get<double>());
                pooled["reps"] = samples.size();
                pooled["time_s"] = summary_json(summarize(samples));
                pooled["samples_s"] = samples;
                if (!runner.passed() && !series_failed[index]) pooled["check"] = s["check"];  // the first failure
                series_failed[index] = series_failed[index] || !runner.passed();
              }
              if (rounds > 1) series[index]["rounds"] = rounds;
              const ordered_json& done = series[index];
              ++index;
              if (root && last) {
                const auto& t = done["time_s"];
                fmt::print(stderr, "  {:<14} {:<3} {:<20} {:<4} {:>11} B  {:>10.3f} ms  [{:.3f}, {:.3f}]  ratio {:>6}  {} {}\n",
                           done["op"].get<std::string>(), group.kind, done["algorithm"].get<std::string>(),
                           done["transport"].get<std::string>(), bytes, t["median"].get<double>() * 1e3,
                           t["p10"].get<double>() * 1e3, t["p90"].get<double>() * 1e3,
                           done.contains("ratio") ? fmt::format("{:.2f}", done["ratio"].get<double>()) : "-",
                           done["check"]["kind"].get<std::string>(), series_failed[index - 1] ? "FAILED" : "ok");
              }
            }
          }
        }
      }
    }
    if (root && !last) fmt::print(stderr, "round {} of {} done\n", round + 1, rounds);
  }
  const int failed = static_cast<int>(std::count(series_failed.begin(), series_failed.end(), true));
  doc["series"] = series;
  if (options.p2p && world.size() >= 2) {
    // Over the world, whatever groups were measured (UCX context 0 is reserved for it).
    ordered_json p2p = ordered_json::array();
    for (const auto& t : options.transports) {
      std::unique_ptr<Transport> transport;
      if (t == "mpi") transport = world.transport();
#ifdef CCSIM_HAVE_UCX
      if (t == "ucx") transport = ucx->group(world.world_ranks(), 0);
#endif
      for (auto& s : measure_p2p(options, world, *transport)) p2p.push_back(std::move(s));
    }
    doc["p2p"] = p2p;
  }
  doc["failed_checks"] = failed;
  return root ? doc : ordered_json();
}

}  // namespace ccsim::measure
