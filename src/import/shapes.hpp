#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ccsim::import {

/// Floating-point operations and bytes moved of one profiler op, from its recorded input
/// shapes (args["Input Dims"]).
struct OpCost {
  bool known = false;  ///< false: the op is not modelled or its shapes do not fit
  double flops = 0;
  double bytes = 0;  ///< inputs read plus output written, elem_bytes per element
};

/// Elements of a tensor of extents `shape` (1 for a scalar's empty shape).
double numel(const std::vector<std::int64_t>& shape);

/// One matrix product C[m,n] (+)= A[m,k] B[k,n], `batch` times; `extra` elements of a
/// bias or self tensor read (and, for addmm and linear, added).
struct GemmShape {
  double batch = 1, m = 0, n = 0, k = 0;
  double extra = 0;
  bool adds_extra = false;  ///< the extra tensor is added (addmm, linear), not only read (baddbmm)
};

/// The product an op's Input Dims describe: aten::linear, matmul, mm, addmm, addmm_, bmm,
/// baddbmm; nullopt for any other op, a negative extent, or shapes that do not multiply.
std::optional<GemmShape> gemm_shape(std::string_view name, const std::vector<std::vector<std::int64_t>>& dims);

/// Matrix products: aten::linear, matmul, mm, addmm, addmm_, bmm, baddbmm (2 m n k per
/// product, plus the bias/beta addition); elementwise: relu, clamp_min, gelu, softmax,
/// _softmax, layer_norm, native_layer_norm (flops per element approximate, bytes = read
/// plus write). Anything else is not known.
OpCost op_cost(std::string_view name, const std::vector<std::vector<std::int64_t>>& dims, int elem_bytes);

}  // namespace ccsim::import
