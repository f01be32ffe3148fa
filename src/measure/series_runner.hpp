#pragma once
// Internal to src/measure/measurement.cpp: the process groups measured on, the inputs every
// series reduces, and the runner of one series (an operation, an implementation, a group kind
// and a size, repeated and checked against the MPI library's reference).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collective/algorithm.hpp"
#include "collective/error_model.hpp"
#include "collective/ring_all_gather.hpp"
#include "compress/codec.hpp"
#include "core/input_error.hpp"
#include "measure/communicator.hpp"
#include "measure/measurement.hpp"
#include "measure/real_executor.hpp"
#include "measure/statistics.hpp"

namespace ccsim::measure::detail {

using collective::Collective;
using nlohmann::ordered_json;

inline constexpr double kUnitRoundoff = 0x1p-24;  // fp32

/// A process group of one kind, this process's member of it, and its transports.
struct Group {
  std::string kind;
  Communicator comm;
  int count = 1;                  ///< groups of this kind in the world
  std::vector<int> node_of_rank;  ///< per group rank, numbered by distinct host name
  std::vector<std::pair<std::string, std::unique_ptr<Transport>>> transports;

  Transport& transport(const std::string& name) {
    for (auto& [n, t] : transports) {
      if (n == name) return *t;
    }
    throw std::logic_error("no transport " + name);
  }
};

inline std::uint64_t splitmix64(std::uint64_t x) {
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
    check_data_file(file);  // a regular file of a non-zero multiple of 4 bytes, noted as an input
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    const auto bytes = static_cast<std::uint64_t>(in.tellg());
    values_.resize(bytes / sizeof(float));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(values_.data()), static_cast<std::streamsize>(bytes));
    if (!in) throw InputError(file, 0, "--data", "cannot read the file");
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
    return values_.empty()
               ? "synthetic gradients: zero mean, standard deviation 1e-3 (Irwin-Hall of 4 uniforms)"
               : fmt::format("{} fp32 values from a file, a different window on every rank", values_.size());
  }

 private:
  std::uint64_t seed_;
  std::vector<float> values_;
};

/// The repetitions of `wanted` that `max_seconds` allows at `elapsed` seconds each: all of them,
/// or fewer but at least 3 (or `wanted`, if fewer). In double: a budget of an hour over a few
/// microseconds is more repetitions than an int holds, and a larger budget must never give fewer.
inline int affordable_reps(int wanted, double max_seconds, double elapsed) {
  const double affordable = max_seconds / elapsed;
  if (!(affordable < wanted)) return wanted;
  return std::max(static_cast<int>(affordable), std::min(3, wanted));
}

/// The global value range of every rank's `values` (a collective call over `world`).
inline double value_range(std::span<const float> values, const Communicator& world) {
  float lo = std::numeric_limits<float>::max();
  float hi = std::numeric_limits<float>::lowest();
  for (float v : values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return world.max(static_cast<double>(hi)) - world.min(static_cast<double>(lo));
}

/// The kind of compressed all_reduce a real codec allows (as collective::compression_of does
/// for a compressor model).
inline collective::Compression codec_compression(const compress::Codec& codec) {
  if (codec.homomorphic()) return collective::Compression::kHomomorphic;
  if (codec.error_bound() >= 0) return collective::Compression::kErrorBounded;
  return collective::Compression::kNonSummable;
}

inline bool is_compressed(Collective op, const std::string& algorithm) {
  const collective::AlgorithmInfo* info = collective::find_algorithm(op, algorithm);
  return info != nullptr && info->compresses();
}

/// A JSON figure: a number, or the string "inf" (also for NaN: an error that is no finite
/// number) or "-inf", which JSON numbers cannot hold.
inline ordered_json figure(double value) {
  if (std::isfinite(value)) return value;
  return value < 0 ? "-inf" : "inf";
}

/// The check of a series against its bound, over its repetitions (and rounds): the worst
/// figures and the elements over the bound (see "check" in measure/README.md).
struct SeriesCheck {
  std::string kind;
  double bound_eb = 0;              ///< compressions x eb (error-bounded), 0 for plain
  double max_abs_error = 0;         ///< +inf for an error that is not a finite number (an overflow, NaN)
  double max_error_over_bound = 0;  ///< <= 1 passes
  double rms_error = 0;
  double rms_value = 0;
  /// Elements of the result over the bound, summed over the timed repetitions: per repetition,
  /// each group's result counted once (all_reduce, all_gather: on the group's rank with the
  /// most, since every rank holds all of it; reduce_scatter: every rank's part), summed over
  /// the groups that ran at once.
  std::uint64_t violations = 0;
  std::uint64_t warmup_violations = 0;  ///< the same over the warm-up repetitions
  bool any = false;

  bool passed() const { return violations == 0 && warmup_violations == 0; }

  void merge(const SeriesCheck& other) {
    if (!any) {
      kind = other.kind;
      bound_eb = other.bound_eb;
      rms_value = other.rms_value;
      any = true;
    }
    max_abs_error = std::max(max_abs_error, other.max_abs_error);
    max_error_over_bound = std::max(max_error_over_bound, other.max_error_over_bound);
    rms_error = std::max(rms_error, other.rms_error);
    violations += other.violations;
    warmup_violations += other.warmup_violations;
  }

  ordered_json json() const {
    ordered_json out;
    out["kind"] = kind;
    out["passed"] = passed();
    out["violations"] = violations;
    if (warmup_violations > 0) out["warmup_violations"] = warmup_violations;
    out["max_abs_error"] = figure(max_abs_error);
    if (kind != "none") out["max_error_over_bound"] = figure(max_error_over_bound);
    if (bound_eb > 0) out["error_bound_abs"] = bound_eb;
    out["rms_error"] = figure(rms_error);
    out["rms_value"] = figure(rms_value);
    return out;
  }
};

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
      if (c > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw std::runtime_error("chunk too large for MPI");
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
    value_range_ = detail::value_range(input_, world);
    work_.resize(count_);
  }

  /// Runs the series `reps` times (fewer, at least 3, when they would take longer than
  /// `max_seconds`) after the warm-up.
  /// Long: warm-up, timed repetitions and the check of the result share the buffers of one series.
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
    SeriesCheck check;
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
      const SeriesCheck outcome = verify(algorithm, codec.get());
      if (rep < options_.warmup) {
        check.warmup_violations += outcome.violations;  // the figures are the timed repetitions'
      } else {
        check.merge(outcome);
      }
      if (rep == 0 && elapsed > 0) reps = affordable_reps(wanted, max_seconds, elapsed);
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
    check_ = check;
    return out;
  }

  /// The check of the last run().
  const SeriesCheck& check() const { return check_; }
  double value_range() const { return value_range_; }

 private:
  std::string library_call() const {
    switch (op_) {
      case Collective::kAllReduce:
        return "MPI_Allreduce";
      case Collective::kAllGather:
        return "MPI_Allgatherv";
      case Collective::kReduceScatter:
        return "MPI_Reduce_scatter";
      default:
        return "?";
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
      case Collective::kAllReduce:
        group_.comm.all_reduce_sum(work_);
        break;
      case Collective::kAllGather:
        group_.comm.all_gather(std::span<const float>(input_).subspan(own_.offset, own_.count), work_, counts_);
        break;
      case Collective::kReduceScatter:
        group_.comm.reduce_scatter(input_, mine, counts_);
        break;
      default:
        throw std::logic_error("run_library: unsupported collective");
    }
  }

  /// Checks the result in work_ (this rank's part of it) against the library's reference.
  SeriesCheck verify(const std::string& algorithm, const compress::Codec* codec) const {
    SeriesCheck c;
    c.any = true;
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
      double err = std::abs(got - want);
      // An overflowed element (inf, or inf - inf = NaN) has no finite error: count it as
      // infinite, which every maximum keeps (std::max drops a NaN).
      if (!std::isfinite(err)) err = std::numeric_limits<double>::infinity();
      sq_err += err * err;
      sq_val += want * want;
      c.max_abs_error = std::max(c.max_abs_error, err);
      bool ok = true;
      if (exact) {
        // Bit for bit (a NaN equals its own pattern, -0 differs from +0): what "exact" promises.
        // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
        ok = std::memcmp(&work_[i], &reference_[i], sizeof(float)) == 0;
        if (!ok) c.max_error_over_bound = std::numeric_limits<double>::infinity();
      } else if (c.kind != "none") {
        const double magnitude = abs_sum_.empty() ? 0.0 : abs_sum_[i];
        const double bound = c.bound_eb * (1 + 0x1p-20) + gamma * (magnitude + c.bound_eb);
        ok = err <= bound;
        if (bound > 0)
          c.max_error_over_bound = std::max(c.max_error_over_bound, err / bound);
        else if (err > 0)
          c.max_error_over_bound = std::numeric_limits<double>::infinity();
      }
      if (!std::isfinite(err)) c.max_error_over_bound = std::numeric_limits<double>::infinity();
      if (!ok || !std::isfinite(got) || !std::isfinite(err)) ++c.violations;
    }
    const auto n = static_cast<double>(std::max<std::uint64_t>(last - first, 1));
    c.rms_error = std::sqrt(sq_err / n);
    c.rms_value = std::sqrt(sq_val / n);
    // Every rank of the world agrees on the outcome and the worst figures.
    c.max_abs_error = world_.max(c.max_abs_error);
    c.max_error_over_bound = world_.max(c.max_error_over_bound);
    c.rms_error = world_.max(c.rms_error);
    c.rms_value = world_.max(c.rms_value);
    // The elements of each group's result once: reduce_scatter's parts are every rank's own;
    // all_reduce and all_gather give every rank all of it (the rank with the most counts).
    const auto mine = static_cast<double>(c.violations);
    const double worst = group_.comm.max(mine);
    const double per_group = op_ == Collective::kReduceScatter ? mine : group_.comm.rank() == 0 ? worst : 0.0;
    c.violations = static_cast<std::uint64_t>(world_.sum(per_group));
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
  SeriesCheck check_;
};

}  // namespace ccsim::measure::detail
