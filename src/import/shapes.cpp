#include "import/shapes.hpp"

#include <numeric>

namespace ccsim::import {
namespace {

using Shape = std::vector<std::int64_t>;

double numel(const Shape& s) {
  double n = 1;
  for (auto d : s) n *= static_cast<double>(d);
  return n;
}

bool all_positive(const Shape& s) {
  for (auto d : s)
    if (d < 0) return false;
  return true;
}

/// C[m,n] (+)= A[m,k] B[k,n], `batch` times; `extra` elements of bias/self read.
OpCost product(double batch, double m, double k, double n, double extra, int eb) {
  OpCost c;
  c.known = true;
  c.flops = 2 * batch * m * k * n + (extra > 0 ? batch * m * n : 0);
  c.bytes = (batch * (m * k + k * n + m * n) + extra) * eb;
  return c;
}

}  // namespace

OpCost op_cost(std::string_view name, const std::vector<Shape>& dims, int eb) {
  for (const auto& s : dims)
    if (!all_positive(s)) return {};
  auto has = [&](std::size_t i, std::size_t rank) { return dims.size() > i && dims[i].size() == rank; };
  if (name == "aten::mm" && has(0, 2) && has(1, 2) && dims[0][1] == dims[1][0]) {
    return product(1, double(dims[0][0]), double(dims[0][1]), double(dims[1][1]), 0, eb);
  }
  if ((name == "aten::addmm" || name == "aten::addmm_") && dims.size() >= 3 && has(1, 2) && has(2, 2) &&
      dims[1][1] == dims[2][0]) {
    return product(1, double(dims[1][0]), double(dims[1][1]), double(dims[2][1]), numel(dims[0]), eb);
  }
  if (name == "aten::bmm" && has(0, 3) && has(1, 3) && dims[0][0] == dims[1][0] && dims[0][2] == dims[1][1]) {
    return product(double(dims[0][0]), double(dims[0][1]), double(dims[0][2]), double(dims[1][2]), 0, eb);
  }
  if (name == "aten::baddbmm" && has(1, 3) && has(2, 3) && dims[1][0] == dims[2][0] && dims[1][2] == dims[2][1]) {
    // beta is not recorded (Megatron passes beta=0 on an uninitialised buffer): the self
    // tensor is counted as read, its addition is not.
    OpCost c = product(double(dims[1][0]), double(dims[1][1]), double(dims[1][2]), double(dims[2][2]), 0, eb);
    if (!dims[0].empty()) c.bytes += numel(dims[0]) * eb;
    return c;
  }
  if (name == "aten::linear" && dims.size() >= 2 && !dims[0].empty() && has(1, 2) && dims[0].back() == dims[1][1]) {
    const double k = double(dims[0].back());
    const double m = numel(dims[0]) / (k > 0 ? k : 1);
    const double bias = dims.size() >= 3 ? numel(dims[2]) * (dims[2].empty() ? 0 : 1) : 0;
    return product(1, m, k, double(dims[1][0]), bias, eb);
  }
  if (name == "aten::matmul" && dims.size() >= 2 && dims[0].size() >= 2 && dims[1].size() >= 2) {
    const Shape& a = dims[0];
    const Shape& b = dims[1];
    const double k = double(a.back());
    if (double(b[b.size() - 2]) != k) return {};
    if (b.size() == 2) {  // [..., m, k] x [k, n]: one product with the batch folded into m
      return product(1, numel(a) / (k > 0 ? k : 1), k, double(b[1]), 0, eb);
    }
    const double batch_b = numel(b) / (double(b[b.size() - 2]) * double(b.back()));
    const double batch_a = numel(a) / (double(a[a.size() - 2]) * k);
    return product(std::max(batch_a, batch_b), double(a[a.size() - 2]), k, double(b.back()), 0, eb);
  }
  // Elementwise and row-wise ops: flops per element are the usual estimates, bytes the input
  // read and the output written.
  double per_element = -1;
  if (name == "aten::relu" || name == "aten::clamp_min")
    per_element = 1;
  else if (name == "aten::gelu")
    per_element = 8;
  else if (name == "aten::softmax" || name == "aten::_softmax")
    per_element = 5;
  else if (name == "aten::layer_norm" || name == "aten::native_layer_norm")
    per_element = 8;
  if (per_element >= 0 && !dims.empty() && !dims[0].empty()) {
    OpCost c;
    c.known = true;
    c.flops = per_element * numel(dims[0]);
    c.bytes = 2 * numel(dims[0]) * eb;
    return c;
  }
  return {};
}

}  // namespace ccsim::import
