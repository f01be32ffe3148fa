#include "collective/breakeven.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace ccsim::collective {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Sizes at which cost() is read; large enough that per-byte terms dominate rounding.
constexpr std::uint64_t kProbeCount = 1ull << 24;
constexpr std::uint64_t kCheckCount = 3ull << 20;

ScheduleFactory factory(Request request) {
  return [request = std::move(request)](std::uint64_t count) mutable {
    request.count = count;
    return make_schedule(request);
  };
}

}  // namespace

AffineCost affine_cost(const ScheduleFactory& make, const CostParams& params) {
  auto zero = make(0);
  auto probe = make(kProbeCount);
  auto check = make(kCheckCount);
  AffineCost cost;
  cost.fixed_s = zero->cost(params);
  cost.per_byte_s = (probe->cost(params) - cost.fixed_s) / static_cast<double>(probe->bytes());
  const double expected = cost.at(static_cast<double>(check->bytes()));
  const double actual = check->cost(params);
  if (std::abs(actual - expected) > 1e-9 * std::max(std::abs(actual), std::abs(expected))) {
    throw std::logic_error(
        fmt::format("{}: closed form is not affine in the message size ({} s at {} bytes, {} s "
                    "expected)",
                    check->name(), actual, check->bytes(), expected));
  }
  return cost;
}

BreakEven break_even(const AffineCost& plain, const AffineCost& compressed) {
  BreakEven result;
  const double slope_gain = plain.per_byte_s - compressed.per_byte_s;  // per byte saved by compressing
  const double fixed_loss = compressed.fixed_s - plain.fixed_s;        // paid once by compressing
  if (slope_gain > 0) {
    result.bytes = std::max(0.0, fixed_loss / slope_gain);
  } else {
    result.bytes = slope_gain == 0 && fixed_loss < 0 ? 0.0 : kInfinity;
  }
  if (compressed.per_byte_s > 0) {
    result.speedup_limit = plain.per_byte_s / compressed.per_byte_s;
  } else {
    result.speedup_limit = plain.per_byte_s > 0 ? kInfinity : 1.0;
  }
  return result;
}

BreakEven break_even(const ScheduleFactory& plain, const ScheduleFactory& compressed, const CostParams& params) {
  return break_even(affine_cost(plain, params), affine_cost(compressed, params));
}

BreakEven break_even(const Request& plain, const Request& compressed, const CostParams& params) {
  return break_even(factory(plain), factory(compressed), params);
}

}  // namespace ccsim::collective
