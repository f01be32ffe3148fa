#pragma once

#include <string>
#include <vector>

#include "calibrate/profile_fit.hpp"

namespace ccsim::calibrate {

/// Kernel timings taken from a torch.profiler trace with device activities
/// (`ProfilerActivity.CUDA`, `record_shapes=True`; plain or gzip-compressed JSON).
struct KernelTrace {
  std::vector<GemmPoint> gemm;      ///< one per distinct product and dtype: the median of its calls
  std::vector<MemoryPoint> memory;  ///< one per distinct operator, shape and dtype: the median of its calls
  std::string summary;              ///< one line: kernels read, what they became, what was left out
};

/// Reads the device kernels of a trace and the host operators that launched them (they share
/// args["External id"]); an operator's time is the sum of its kernels' device durations, so
/// the host's launch gaps are not in it.
/// - Matrix products (aten::mm, addmm, bmm, baddbmm, linear, matmul) become GEMM points, m,
///   n, k and batch from the operator's Input Dims, the dtype from its first Input type.
/// - Memory-bound operators become memory points of the kinds the synthesized traces use
///   (add, bias_add for a broadcast add, copy, dropout, gelu, layernorm, softmax,
///   masked_fill; a backward kernel as KIND_backward), their bytes the least traffic from the
///   inputs' and outputs' extents and element sizes, as bench/device/measure_gpu.py counts them.
/// - Every other operator's kernels, and operators whose shapes or dtypes are not usable, are
///   counted in `summary` and `skipped`, never dropped silently.
/// A file without device kernels, or without Input Dims on the operators that launched them,
/// is an InputError saying how to record one.
KernelTrace read_kernel_trace(const std::string& path, Skipped& skipped);

/// The measurements `calibrate compute` fits a profile to, by file: GEMM sweeps, memory-bound
/// kernels, profiler traces (read after the CSVs: their timing of a product replaces theirs)
/// and the launch overheads ("": none).
struct ProfileFiles {
  std::vector<std::string> gemm;
  std::vector<std::string> memory;
  std::vector<std::string> traces;
  std::string launch;
};

/// Reads `files` (read_gemm_csv, read_memory_csv, read_kernel_trace, read_launch_csv) and fits
/// a profile to them (fit_profile); the report starts with each trace's summary, and the
/// profile's sources end with the files it was fitted to.
ProfileFit fit_profile_files(const ProfileFiles& files, ProfileFitOptions options);

/// `ccsim calibrate compute`'s request as typed: the files, and the hardware in words.
struct ProfileFitArgs {
  ProfileFiles files;
  std::string name;
  std::string accelerator;
  std::string description;
  int multiprocessors = 0;
  std::vector<std::string> peaks;  ///< DTYPE=FLOPS, e.g. bf16=9.894e14
  std::string default_dtype = "bf16";
  std::vector<std::string> sources;
  std::string output;
  bool output_given = false;  ///< -o was given (perhaps as "")
};

/// The fit's options of `args`: its peaks and default dtype parsed (InputError naming --peak or
/// --default-dtype), and `command`, the command line that makes the profile again.
ProfileFitOptions profile_fit_options(const ProfileFitArgs& args);

}  // namespace ccsim::calibrate
