#pragma once

#include <cstdint>
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

/// Matrix products: aten::linear, matmul, mm, addmm, addmm_, bmm, baddbmm (2 m n k per
/// product, plus the bias/beta addition); elementwise: relu, clamp_min, gelu, softmax,
/// _softmax, layer_norm, native_layer_norm (flops per element approximate, bytes = read
/// plus write). Anything else is not known.
OpCost op_cost(std::string_view name, const std::vector<std::vector<std::int64_t>>& dims, int elem_bytes);

}  // namespace ccsim::import
