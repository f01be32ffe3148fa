#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "topology/accelerator_profile.hpp"

namespace ccsim::calibrate {

/// One timed matrix product of a GEMM sweep (m x n x k, `batch` times).
struct GemmPoint {
  std::uint64_t m = 0, n = 0, k = 0, batch = 1;
  DType dtype = DType::kBF16;
  double seconds = 0;
  std::string file;
  int line = 0;
};

/// One timed memory-bound kernel: `bytes` is the least traffic it must move.
struct MemoryPoint {
  std::string kind;
  double bytes = 0;
  double seconds = 0;
  std::string file;
  int line = 0;
};

/// What the CSV readers left out, for the report ("3 rows of dtype tf32 (not a dtype ccsim knows)").
struct Skipped {
  std::vector<std::string> notes;
};

/// A GEMM sweep CSV: a header naming the columns m, n, k, dtype, seconds (required) and batch
/// (optional, default 1), in any order; other columns are ignored. A row whose dtype is not
/// one of dtype_choices() is skipped and counted in `skipped` (tf32: the sweep's fp32 with
/// tensor cores); anything else that is not a positive number is an InputError naming file,
/// line and column.
std::vector<GemmPoint> read_gemm_csv(const std::string& path, Skipped& skipped);
/// A memory-kernel CSV: columns op (the operator kind), bytes and seconds.
std::vector<MemoryPoint> read_memory_csv(const std::string& path);
/// A launch CSV: columns mode and seconds_per_kernel; mode "eager" is the host's time to issue
/// one kernel (the profile's launch_s), "graph" the device's per-kernel gap (reported only).
struct LaunchData {
  double eager_s = 0;
  double graph_s = 0;
};
LaunchData read_launch_csv(const std::string& path);

/// What the fit does not take from the data: the hardware and the tile shapes to try.
struct ProfileFitOptions {
  std::string name;
  std::string accelerator;
  std::string description;
  std::string command;
  std::vector<std::string> sources;
  int multiprocessors = 0;
  std::vector<topology::DTypePeak> peaks;
  DType default_dtype = DType::kBF16;
  std::vector<topology::GemmTile> tiles;  ///< empty: kHopperTiles
};

/// The output tiles of cuBLAS's Hopper kernels seen in the H200 profiler traces (nvjet
/// 256x128, 128x256, 192x192 ... and smaller ones for small products), with the relative rates
/// of smaller tiles assumed from operand reuse.
std::vector<topology::GemmTile> default_tiles();

struct ProfileFit {
  topology::AcceleratorProfile profile;
  std::string report;  ///< human-readable: parameters, residuals per dtype and kind, what was skipped
};

/// Fits a profile: GEMM efficiency, k_fill, split_k_min and overhead by least squares on the
/// relative error over a grid of k_fill and split_k_min (each `gemm` file's points replace an
/// earlier file's of the same m, n, k, batch and dtype: CUDA-graph re-timings of small
/// products); a memory curve per kind and "default" over all kinds; launch_s from `launch`.
/// No GEMM point is an InputError; so is a dtype of the data without a peak in `options`.
ProfileFit fit_profile(const std::vector<std::vector<GemmPoint>>& gemm,
                       const std::vector<std::vector<MemoryPoint>>& memory, const LaunchData& launch,
                       const Skipped& skipped, const ProfileFitOptions& options);

/// exp(mean |ln(predicted / measured)|) - 1 and the signed error of the farthest point.
topology::FitResidual residual_of(const std::string& what, const std::vector<double>& predicted,
                                  const std::vector<double>& measured);

}  // namespace ccsim::calibrate
