#include "import/shapes.hpp"

#include <algorithm>
#include <numeric>

namespace ccsim::import {
namespace {

using Shape = std::vector<std::int64_t>;

bool all_positive(const Shape& s) {
  for (auto d : s)
    if (d < 0) return false;
  return true;
}

}  // namespace

double numel(const Shape& s) {
  double n = 1;
  for (auto d : s) n *= static_cast<double>(d);
  return n;
}

std::optional<GemmShape> gemm_shape(std::string_view name, const std::vector<Shape>& dims) {
  for (const auto& s : dims)
    if (!all_positive(s)) return std::nullopt;
  auto has = [&](std::size_t i, std::size_t rank) { return dims.size() > i && dims[i].size() == rank; };
  auto d = [](std::int64_t v) { return static_cast<double>(v); };
  if (name == "aten::mm" && has(0, 2) && has(1, 2) && dims[0][1] == dims[1][0]) {
    return GemmShape{1, d(dims[0][0]), d(dims[1][1]), d(dims[0][1])};
  }
  if ((name == "aten::addmm" || name == "aten::addmm_") && dims.size() >= 3 && has(1, 2) && has(2, 2) &&
      dims[1][1] == dims[2][0]) {
    return GemmShape{1, d(dims[1][0]), d(dims[2][1]), d(dims[1][1]), numel(dims[0]), true};
  }
  if (name == "aten::bmm" && has(0, 3) && has(1, 3) && dims[0][0] == dims[1][0] && dims[0][2] == dims[1][1]) {
    return GemmShape{d(dims[0][0]), d(dims[0][1]), d(dims[1][2]), d(dims[0][2])};
  }
  if (name == "aten::baddbmm" && has(1, 3) && has(2, 3) && dims[1][0] == dims[2][0] && dims[1][2] == dims[2][1]) {
    // beta is not recorded (Megatron passes beta=0 on an uninitialised buffer): the self
    // tensor is counted as read, its addition is not.
    return GemmShape{d(dims[1][0]), d(dims[1][1]), d(dims[2][2]), d(dims[1][2]), dims[0].empty() ? 0 : numel(dims[0]),
                     false};
  }
  if (name == "aten::linear" && dims.size() >= 2 && !dims[0].empty() && has(1, 2) && dims[0].back() == dims[1][1]) {
    const double k = d(dims[0].back());
    const double bias = dims.size() >= 3 && !dims[2].empty() ? numel(dims[2]) : 0;
    return GemmShape{1, numel(dims[0]) / (k > 0 ? k : 1), d(dims[1][0]), k, bias, true};
  }
  if (name == "aten::matmul" && dims.size() >= 2 && dims[0].size() >= 2 && dims[1].size() >= 2) {
    const Shape& a = dims[0];
    const Shape& b = dims[1];
    const double k = d(a.back());
    if (d(b[b.size() - 2]) != k) return std::nullopt;
    if (b.size() == 2) return GemmShape{1, numel(a) / (k > 0 ? k : 1), d(b[1]), k};  // batch folded into m
    const double batch_b = numel(b) / (d(b[b.size() - 2]) * d(b.back()));
    const double batch_a = numel(a) / (d(a[a.size() - 2]) * k);
    return GemmShape{std::max(batch_a, batch_b), d(a[a.size() - 2]), d(b.back()), k};
  }
  return std::nullopt;
}

OpCost op_cost(std::string_view name, const std::vector<Shape>& dims, int eb) {
  for (const auto& s : dims)
    if (!all_positive(s)) return {};
  if (const auto g = gemm_shape(name, dims)) {
    OpCost c;
    c.known = true;
    c.flops = 2 * g->batch * g->m * g->k * g->n + (g->adds_extra && g->extra > 0 ? g->batch * g->m * g->n : 0);
    c.bytes = (g->batch * (g->m * g->k + g->k * g->n + g->m * g->n) + g->extra) * eb;
    return c;
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
