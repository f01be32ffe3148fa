#include "compress/quantizer.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace ccsim::compress {
namespace {

void check_block(std::size_t block_elements, const char* who) {
  if (block_elements == 0) throw std::invalid_argument(fmt::format("{}: block_elements must be positive", who));
}

/// Calls `fn` on consecutive blocks of `block_elements` (the last one may be shorter).
template <typename Fn>
void for_each_block(std::span<double> values, std::size_t block_elements, Fn fn) {
  for (std::size_t begin = 0; begin < values.size(); begin += block_elements) {
    fn(values.subspan(begin, std::min(block_elements, values.size() - begin)));
  }
}

}  // namespace

void quantize_error_bounded(std::span<double> values, double error_bound) {
  if (!(error_bound >= 0 && std::isfinite(error_bound))) {
    throw std::invalid_argument(
        fmt::format("quantize_error_bounded: bound must be finite and >= 0, got {}", error_bound));
  }
  if (error_bound == 0) return;
  const double step = 2.0 * error_bound;
  for (double& x : values) x = step * std::nearbyint(x / step);
}

void quantize_symmetric(std::span<double> values, int bits, std::size_t block_elements) {
  if (bits < 2 || bits > 32)
    throw std::invalid_argument(fmt::format("quantize_symmetric: bits must be 2..32, got {}", bits));
  check_block(block_elements, "quantize_symmetric");
  const double levels = std::ldexp(1.0, bits - 1) - 1.0;
  for_each_block(values, block_elements, [levels](std::span<double> block) {
    double max_abs = 0;
    for (double x : block) max_abs = std::max(max_abs, std::abs(x));
    if (max_abs == 0) return;
    const double scale = max_abs / levels;
    for (double& x : block) x = scale * std::clamp(std::nearbyint(x / scale), -levels, levels);
  });
}

void quantize_sign(std::span<double> values, std::size_t block_elements) {
  check_block(block_elements, "quantize_sign");
  for_each_block(values, block_elements, [](std::span<double> block) {
    double sum_abs = 0;
    for (double x : block) sum_abs += std::abs(x);
    const double scale = sum_abs / static_cast<double>(block.size());
    for (double& x : block) x = x < 0 ? -scale : scale;
  });
}

void sparsify_top_k(std::span<double> values, double density) {
  if (!(density > 0 && density <= 1)) {
    throw std::invalid_argument(fmt::format("sparsify_top_k: density must be in (0, 1], got {}", density));
  }
  const std::size_t n = values.size();
  const std::size_t keep = std::min(n, static_cast<std::size_t>(std::ceil(density * static_cast<double>(n))));
  if (keep == n) return;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto larger = [&values](std::size_t a, std::size_t b) {
    double abs_a = std::abs(values[a]);
    double abs_b = std::abs(values[b]);
    return abs_a > abs_b || (abs_a == abs_b && a < b);
  };
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(), larger);
  for (auto it = order.begin() + static_cast<std::ptrdiff_t>(keep); it != order.end(); ++it) values[*it] = 0;
}

void ErrorFeedback::apply(std::span<double> values) {
  if (residual_.empty()) {
    residual_.assign(values.size(), 0.0);
  } else if (residual_.size() != values.size()) {
    throw std::invalid_argument(
        fmt::format("ErrorFeedback: buffer of {} elements, expected {}", values.size(), residual_.size()));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] += residual_[i];
    residual_[i] = values[i];
  }
  round_trip_(values);
  for (std::size_t i = 0; i < values.size(); ++i) residual_[i] -= values[i];
}

std::function<void(std::span<double>)> make_round_trip(const CompressorModel& model, const Query& query,
                                                       double value_range) {
  switch (model.kind()) {
    case Kind::kErrorBounded: {
      double bound = model.absolute_error_bound(query, value_range);
      return [bound](std::span<double> values) { quantize_error_bounded(values, bound); };
    }
    case Kind::kQuantizer: {
      const int bits = static_cast<int>(model.evaluate(query, DType::kF32).parameter);
      const Setting& setting = *std::find_if(model.settings().begin(), model.settings().end(),
                                             [bits](const Setting& s) { return s.bits == bits; });
      const auto block = static_cast<std::size_t>(setting.block_elements);
      if (bits == 1) return [block](std::span<double> values) { quantize_sign(values, block); };
      return [bits, block](std::span<double> values) { quantize_symmetric(values, bits, block); };
    }
    case Kind::kSparsifier: {
      const double density = model.evaluate(query, DType::kF32).parameter;
      return [density](std::span<double> values) { sparsify_top_k(values, density); };
    }
  }
  return {};
}

}  // namespace ccsim::compress
