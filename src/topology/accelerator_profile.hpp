#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/gemm_shape.hpp"
#include "core/units.hpp"

namespace ccsim::topology {

/// Format tag and version of an accelerator profile file (models/README.md, "Accelerator profiles").
inline constexpr std::string_view kAcceleratorProfileFormat = "ccsim-accelerator-profile";
inline constexpr int kAcceleratorProfileVersion = 1;

/// An output tile a matrix-product library may choose, with its rate relative to the best tile's.
struct GemmTile {
  int m = 128;
  int n = 128;
  double efficiency = 1;  ///< [0.001, 1]: smaller tiles reuse operands less
};

/// The dense peak rate of one element type's matrix products.
struct DTypePeak {
  DType dtype = DType::kBF16;
  double flops = 0;
};

/// How long matrix products take: the library splits C into tiles, the tiles run in waves of
/// `multiprocessors` at once, and a tile of depth k runs at
///   peak / multiprocessors * efficiency * tile.efficiency * k / (k + k_fill)
/// (the software pipeline fills before it streams). When the tiles do not fill the machine, a
/// split-K kernel may divide k into slices of at least `split_k_min`. The library is assumed
/// to choose the fastest tile and split; operands that move slower than `operand_Bps` bound it.
struct GemmModel {
  int multiprocessors = 0;
  std::vector<DTypePeak> peaks;
  std::vector<GemmTile> tiles;
  double efficiency = 1;               ///< of peak, the best tile at full depth, [0.001, 1]
  double k_fill = 0;                   ///< elements of depth
  double split_k_min = 0;              ///< least depth of a split-K slice; 0: no split-K
  double overhead_s = 0;               ///< per product kernel, on the device
  double operand_Bps = 0;              ///< achieved bandwidth for A, B and C; 0: not bounded
  DType default_dtype = DType::kBF16;  ///< for operators given in FLOPs only

  /// The peak of `dtype`'s products, 0 when the profile has none.
  double peak(DType dtype) const;
  /// Device time of one product of `shape` (one of a backward's two), without overhead_s.
  double product_s(std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t batch, DType dtype) const;
};

/// A memory-bound operator kind: overhead_s + bytes / bandwidth_Bps (bytes: the least traffic).
struct MemoryCurve {
  std::string kind;  ///< operator name ("softmax", "layernorm", ...) or "default"
  double overhead_s = 0;
  double bandwidth_Bps = 0;
};

/// Residuals of a fit, per data set (e.g. "gemm bf16", "memory softmax").
struct FitResidual {
  std::string what;
  int points = 0;
  double gmean_error = 0;  ///< exp(mean |ln(predicted / measured)|) - 1
  double worst_error = 0;  ///< the farthest point's predicted / measured - 1 (signed)
};

/// How fast kernels run on one accelerator model (models/compute/NAME.json).
struct AcceleratorProfile {
  std::string file;  ///< where it was read from (for messages), empty when built in memory
  std::string name;
  std::string accelerator;  ///< the accelerator model it describes
  std::string description;
  std::string command;               ///< the command that made it, when fitted
  std::vector<std::string> sources;  ///< where each figure comes from
  GemmModel gemm;
  std::vector<MemoryCurve> memory;  ///< "default" among them
  /// Host time to issue one kernel: a stream of kernels shorter than this waits for the host
  /// (eager PyTorch); 0 when launches are hidden (CUDA graphs).
  double launch_s = 0;
  std::vector<FitResidual> residuals;

  /// Seconds of a compute operator on this accelerator: its matrix products when it has a
  /// shape (two for a backward one), else `flops` at the default dtype's rate as a square
  /// product would run, or `bytes` on the memory curve of `name` (default: "default"), the
  /// longer; every kernel waits at least launch_s.
  double seconds(std::string_view name, const GemmShape* gemm, double flops, double bytes) const;
  /// Device time of a shape's products, overheads included.
  double gemm_s(const GemmShape& shape) const;
  const MemoryCurve& memory_curve(std::string_view kind) const;
  /// "profile NAME (FILE)" for reports.
  std::string describe() const;
};

/// Reads a profile strictly: unknown keys, a wrong format or version, a dtype or tile out of
/// range, a missing "default" memory curve are InputErrors naming file, line, field.
AcceleratorProfile read_accelerator_profile(const std::string& path);
AcceleratorProfile parse_accelerator_profile(std::string_view text, const std::string& source);
std::string write_accelerator_profile(const AcceleratorProfile& profile);

}  // namespace ccsim::topology
