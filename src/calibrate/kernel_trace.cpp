#include "calibrate/kernel_trace.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "import/kineto_reader.hpp"
#include "import/shapes.hpp"

namespace ccsim::calibrate {
namespace {

using Dims = std::vector<std::vector<std::int64_t>>;
using Types = std::vector<std::string_view>;
using import::numel;

/// Bytes per element of a profiler Input type ("c10::BFloat16", "float", "bool", ...); 0 for
/// a non-tensor ("Scalar", "") or a type not listed.
double element_bytes(std::string_view type) {
  static const std::map<std::string_view, double> kBytes = {
      {"c10::BFloat16", 2},     {"c10::Half", 2}, {"float", 4}, {"double", 8},   {"bool", 1}, {"unsigned char", 1},
      {"signed char", 1},       {"short", 2},     {"int", 4},   {"long int", 8}, {"long", 8}, {"int64_t", 8},
      {"c10::Float8_e4m3fn", 1}};
  const auto it = kBytes.find(type);
  return it == kBytes.end() ? 0 : it->second;
}

/// The ccsim dtype of a product's operands, from the profiler's type name.
std::optional<DType> product_dtype(std::string_view type) {
  if (type == "c10::BFloat16") return DType::kBF16;
  if (type == "c10::Half") return DType::kF16;
  if (type == "float") return DType::kF32;
  if (type == "double") return DType::kF64;
  return std::nullopt;
}

/// Input i's bytes (extent times element size), 0 when absent or not a tensor.
double input_bytes(const Dims& dims, const Types& types, std::size_t i) {
  if (i >= dims.size() || i >= types.size() || dims[i].empty()) return 0;
  return numel(dims[i]) * element_bytes(types[i]);
}

/// A memory-bound operator: its kind, and the least traffic it must move from its inputs'
/// bytes: `reads` of the inputs listed, and `writes` outputs of input 0's size.
struct MemoryRule {
  std::string_view op;
  std::string_view kind;
  std::vector<std::size_t> reads;
  double writes;  ///< outputs of input 0's extent and type
  double mask;    ///< one-byte mask elements of input 0's extent written (dropout)
};

const std::vector<MemoryRule>& memory_rules() {
  // Counted as bench/device/measure_gpu.py counts its sweep: copy 2, add 3, gelu 2, dropout
  // 2 + a one-byte mask, layer norm 2, softmax 2 tensor-sized transfers; a backward kernel
  // reads the gradient and what the forward saved, and is a kind of its own (on an H200 the
  // unfused softmax's backward moves its bytes 4x as fast as its forward).
  static const std::vector<MemoryRule> kRules = {
      {"aten::copy_", "copy", {1}, 1, 0},
      {"aten::add", "add", {0, 1}, 1, 0},
      {"aten::add_", "add", {0, 1}, 1, 0},
      {"aten::gelu", "gelu", {0}, 1, 0},
      {"aten::gelu_backward", "gelu_backward", {0, 1}, 1, 0},
      {"aten::native_dropout", "dropout", {0}, 1, 1},
      {"aten::native_dropout_backward", "dropout_backward", {0, 1}, 1, 0},
      {"aten::native_layer_norm", "layernorm", {0}, 1, 0},
      {"aten::native_layer_norm_backward", "layernorm_backward", {0, 1}, 1, 0},
      {"aten::_softmax", "softmax", {0}, 1, 0},
      {"aten::_softmax_backward_data", "softmax_backward", {0, 1}, 1, 0},
      {"aten::masked_fill_", "masked_fill", {0, 1}, 1, 0},
  };
  return kRules;
}

/// The least bytes an operator of `rule` moves, or nullopt when its inputs are not the
/// tensors the rule expects (a scalar added, an element size unknown, a read input larger
/// than input 0 other than a broadcast mask).
std::optional<double> memory_bytes(const MemoryRule& rule, const Dims& dims, const Types& types) {
  const double out = input_bytes(dims, types, 0);
  if (!(out > 0)) return std::nullopt;
  double bytes = rule.writes * out + rule.mask * numel(dims[0]);
  for (const std::size_t i : rule.reads) {
    const double b = input_bytes(dims, types, i);
    if (!(b > 0)) return std::nullopt;
    bytes += b;
  }
  return bytes;
}

/// Device time and kernel count of one host operator.
struct Launched {
  double us = 0;
  int kernels = 0;
};

/// The median of a list (the mean of the middle two for an even count).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::uint64_t whole(double v) { return static_cast<std::uint64_t>(std::llround(v)); }

/// What read_kernel_trace collects before taking medians.
struct Collected {
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, DType>, std::vector<double>> gemm;
  std::map<std::pair<std::string, double>, std::vector<double>> memory;
  std::map<std::string, std::pair<int, double>> other;  ///< op -> kernels, device seconds
  std::map<std::string, int> unusable;                  ///< "aten::mm (dtype int8)" -> operators
  int gemm_ops = 0, memory_ops = 0;
};

void collect(const import::RankProfile& profile, const import::Event& e, const Launched& launched, Collected& c) {
  const std::string_view name = profile.name(e);
  const Dims dims = profile.input_dims(e);
  const Types types = profile.input_types(e);
  const double seconds = launched.us * 1e-6;
  if (!(seconds > 0)) {
    ++c.unusable[fmt::format("{} (kernels of no device time)", name)];
    return;
  }
  if (const auto g = import::gemm_shape(name, dims)) {
    const std::size_t a = name == "aten::addmm" || name == "aten::addmm_" || name == "aten::baddbmm" ? 1 : 0;
    const std::optional<DType> dtype = a < types.size() ? product_dtype(types[a]) : std::nullopt;
    if (!dtype || g->m < 1 || g->n < 1 || g->k < 1 || g->batch < 1 ||
        std::max({g->m, g->n, g->k, g->batch}) > static_cast<double>(kMaxGemmDimension)) {
      ++c.unusable[fmt::format("{} ({})", name, dtype ? "an extent out of range" : "operand type not a float type")];
      return;
    }
    c.gemm[{whole(g->m), whole(g->n), whole(g->k), whole(g->batch), *dtype}].push_back(seconds);
    ++c.gemm_ops;
    return;
  }
  for (const MemoryRule& rule : memory_rules()) {
    if (rule.op != name) continue;
    if (const auto bytes = memory_bytes(rule, dims, types)) {
      // A broadcast add is a bias's (Megatron's bias_add), not a residual add.
      const bool bias = rule.kind == "add" && numel(dims[1]) < numel(dims[0]);
      c.memory[{std::string(bias ? "bias_add" : rule.kind), *bytes}].push_back(seconds);
      ++c.memory_ops;
    } else {
      ++c.unusable[fmt::format("{} (inputs not the tensors of a {} kernel)", name, rule.kind)];
    }
    return;
  }
  auto& [kernels, total] = c.other[std::string(name)];
  kernels += launched.kernels;
  total += seconds;
}

/// The trace's kernels by the External id of the host operator that launched them.
std::unordered_map<std::int64_t, Launched> kernels_by_operator(const import::RankProfile& profile, int& kernels,
                                                               int& unlinked) {
  std::unordered_map<std::int64_t, Launched> by_id;
  for (const import::Event& e : profile.events) {
    if (!e.kernel) continue;
    ++kernels;
    if (e.external_id < 0) {
      ++unlinked;
      continue;
    }
    Launched& l = by_id[e.external_id];
    l.us += e.dur_us;
    ++l.kernels;
  }
  return by_id;
}

std::string summary_line(const std::string& path, int kernels, int unlinked, const Collected& c, KernelTrace& out,
                         Skipped& skipped) {
  std::string line = fmt::format("{}: {} kernels; {} products of {} shapes, {} memory-bound operators of {} sizes",
                                 path, kernels, c.gemm_ops, out.gemm.size(), c.memory_ops, out.memory.size());
  if (unlinked > 0) {
    skipped.notes.push_back(fmt::format("{}: {} kernels without an External id (no host operator)", path, unlinked));
  }
  for (const auto& [what, count] : c.unusable) {
    skipped.notes.push_back(fmt::format("{}: {} operators {}", path, count, what));
  }
  if (!c.other.empty()) {
    std::vector<std::pair<double, std::string>> by_time;
    int other_kernels = 0;
    for (const auto& [op, kt] : c.other) {
      by_time.emplace_back(kt.second, op);
      other_kernels += kt.first;
    }
    std::sort(by_time.rbegin(), by_time.rend());
    std::string names;
    for (std::size_t i = 0; i < by_time.size() && i < 4; ++i) {
      names += fmt::format("{}{} {:.3g} ms", i == 0 ? "" : ", ", by_time[i].second, by_time[i].first * 1e3);
    }
    skipped.notes.push_back(fmt::format("{}: {} kernels of {} other operators, not fitted ({}{})", path, other_kernels,
                                        by_time.size(), names, by_time.size() > 4 ? ", ..." : ""));
  }
  return line;
}

}  // namespace

KernelTrace read_kernel_trace(const std::string& path, Skipped& skipped) {
  const import::RankProfile profile = import::read_rank_profile_file(path);
  int kernels = 0, unlinked = 0;
  const auto by_id = kernels_by_operator(profile, kernels, unlinked);
  if (kernels == 0) {
    throw InputError(path, 0, "traceEvents",
                     "no device kernels (events of cat \"kernel\"): record the trace with torch.profiler's "
                     "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
  }
  Collected c;
  bool any_dims = false;
  for (const import::Event& e : profile.events) {
    if (e.kernel || e.runtime || e.external_id < 0 || profile.streams[e.stream].kind == import::StreamKind::kGpu)
      continue;
    const auto it = by_id.find(e.external_id);
    if (it == by_id.end()) continue;
    any_dims = any_dims || e.dims != 0;
    collect(profile, e, it->second, c);
  }
  if (!any_dims) {
    throw InputError(path, 0, "traceEvents",
                     "the operators that launched kernels have no args \"Input Dims\": record the trace with "
                     "torch.profiler's record_shapes=True");
  }
  KernelTrace out;
  for (const auto& [key, seconds] : c.gemm) {
    const auto& [m, n, k, batch, dtype] = key;
    out.gemm.push_back(GemmPoint{m, n, k, batch, dtype, median(seconds), path, 0});
  }
  for (const auto& [key, seconds] : c.memory)
    out.memory.push_back(MemoryPoint{key.first, key.second, median(seconds), path, 0});
  out.summary = summary_line(path, kernels, unlinked, c, out, skipped);
  return out;
}

ProfileFit fit_profile_files(const ProfileFiles& files, ProfileFitOptions options) {
  std::string names;
  for (const auto* list : {&files.gemm, &files.memory, &files.traces}) {
    for (const std::string& f : *list) names += (names.empty() ? "" : ", ") + f;
  }
  if (!files.launch.empty()) names += ", " + files.launch;
  options.sources.push_back(
      fmt::format("fitted by ccsim calibrate compute to {} (the command is in \"command\")", names));
  Skipped skipped;
  std::vector<std::vector<GemmPoint>> gemm;
  for (const std::string& f : files.gemm) gemm.push_back(read_gemm_csv(f, skipped));
  std::vector<std::vector<MemoryPoint>> memory;
  for (const std::string& f : files.memory) memory.push_back(read_memory_csv(f));
  std::string summaries;
  for (const std::string& f : files.traces) {
    KernelTrace kt = read_kernel_trace(f, skipped);
    gemm.push_back(std::move(kt.gemm));
    memory.push_back(std::move(kt.memory));
    summaries += kt.summary + "\n";
  }
  const LaunchData launch = files.launch.empty() ? LaunchData{} : read_launch_csv(files.launch);
  ProfileFit fit = fit_profile(gemm, memory, launch, skipped, options);
  fit.report = summaries + fit.report;
  return fit;
}

namespace {

/// "bf16=9.894e14" -> {bf16, 9.894e14}.
topology::DTypePeak parse_peak(const std::string& text) {
  const auto eq = text.find('=');
  std::optional<DType> dtype = eq == std::string::npos ? std::nullopt : parse_dtype(text.substr(0, eq));
  std::optional<double> flops = eq == std::string::npos ? std::nullopt : parse_double(text.substr(eq + 1));
  if (!dtype || !flops || !(*flops > 0)) {
    throw InputError(
        "command line", 0, "--peak",
        fmt::format("expected DTYPE=FLOPS with DTYPE one of {} and FLOPS positive, got \"{}\"", dtype_choices(), text));
  }
  return {*dtype, *flops};
}

std::string profile_command_line(const ProfileFitArgs& args) {
  std::string out = "ccsim calibrate compute";
  for (const std::string& f : args.files.gemm) out += " --gemm " + f;
  for (const std::string& f : args.files.memory) out += " --memory " + f;
  for (const std::string& f : args.files.traces) out += " --profile " + f;
  if (!args.files.launch.empty()) out += " --launch " + args.files.launch;
  out += fmt::format(" --name {} --accelerator \"{}\" --multiprocessors {}", args.name, args.accelerator,
                     args.multiprocessors);
  for (const std::string& p : args.peaks) out += " --peak " + p;
  if (args.default_dtype != "bf16") out += " --default-dtype " + args.default_dtype;
  if (!args.description.empty()) out += fmt::format(" --description \"{}\"", args.description);
  for (const std::string& s : args.sources) out += fmt::format(" --source \"{}\"", s);
  if (args.output_given) out += " -o " + args.output;
  return out;
}

}  // namespace

ProfileFitOptions profile_fit_options(const ProfileFitArgs& args) {
  ProfileFitOptions options;
  options.name = args.name;
  options.accelerator = args.accelerator;
  options.multiprocessors = args.multiprocessors;
  for (const std::string& p : args.peaks) options.peaks.push_back(parse_peak(p));
  std::optional<DType> dtype = parse_dtype(args.default_dtype);
  if (!dtype) {
    throw InputError("command line", 0, "--default-dtype",
                     fmt::format("expected one of {}, got \"{}\"", dtype_choices(), args.default_dtype));
  }
  options.default_dtype = *dtype;
  options.sources = args.sources;
  options.description = args.description;
  options.command = profile_command_line(args);
  return options;
}

}  // namespace ccsim::calibrate
