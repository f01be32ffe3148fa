#pragma once

#include <cstdint>

#include "core/units.hpp"

namespace ccsim {

/// The matrix product(s) of one compute operator: C[m, n] = A[m, k] B[k, n], `batch` times.
/// A forward operator runs that one product; a backward one runs its two gradients, the data
/// gradient dA[m, k] = dC B^T (m x k x n) and the weight gradient dB[k, n] = A^T dC (k x n x m),
/// each with the forward's FLOPs.
struct GemmShape {
  std::uint32_t m = 0;
  std::uint32_t n = 0;
  std::uint32_t k = 0;
  std::uint32_t batch = 1;
  DType dtype = DType::kBF16;
  bool backward = false;

  /// 2 m n k batch per product, twice that for a backward operator.
  double flops() const { return 2.0 * m * n * k * batch * (backward ? 2.0 : 1.0); }
  bool operator==(const GemmShape&) const = default;
};

/// The largest m, n, k or batch a shape may have (2^31 - 1, a tensor dimension's limit).
inline constexpr std::uint32_t kMaxGemmDimension = 2147483647u;

}  // namespace ccsim
