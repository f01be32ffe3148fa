#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "collective/registry.hpp"
#include "collective/schedule.hpp"

namespace ccsim::collective {

/// A closed-form time as a function of the message size n in bytes, for a fixed group:
/// T(n) = fixed_s + per_byte_s * n. Every closed form here is affine in n: alpha terms and the
/// compressor's t0 terms are fixed, beta, gamma and throughput terms per byte.
struct AffineCost {
  double fixed_s = 0;
  double per_byte_s = 0;
  double at(double bytes) const { return fixed_s + per_byte_s * bytes; }
};

/// Builds the schedule of one collective on one group for a buffer of `count` elements.
using ScheduleFactory = std::function<std::unique_ptr<Schedule>(std::uint64_t count)>;

/// The affine form of the closed-form cost of the schedules `make` builds, read off cost() at
/// two sizes and checked at a third (std::logic_error if the closed form is not affine).
AffineCost affine_cost(const ScheduleFactory& make, const CostParams& params);

/// Where compression starts to pay. With T_plain(n) = a_p + b_p n and T_comp(n) = a_c + b_c n,
/// the compressed collective is faster iff (b_p - b_c) n > a_c - a_p. For the ring against the
/// decompress-add-recompress ring (equal gamma terms, m = n/p):
///   2(p-1)/p n beta (1 - 1/r) > p C(m) + 2(p-1) D(m),
/// i.e. the wire time saved must beat the compress and decompress time added; with
/// throughputs Bc, Bd and no t0 this holds for all n or for none, and the t0 terms alone
/// set a break-even size.
struct BreakEven {
  /// Compressed is faster for every n > bytes: 0 when it is faster for every n > 0, +inf when
  /// it is not faster for large n (b_c > b_p, or b_c = b_p and a_c >= a_p).
  double bytes = 0;
  /// lim n -> inf T_plain / T_comp = b_p / b_c (+inf when b_c = 0 < b_p; 1 when both are 0).
  double speedup_limit = 1;
};

BreakEven break_even(const AffineCost& plain, const AffineCost& compressed);
BreakEven break_even(const ScheduleFactory& plain, const ScheduleFactory& compressed, const CostParams& params);
/// The two requests' collectives, at the requests' group and element size (their counts are
/// ignored); throws as make_schedule().
BreakEven break_even(const Request& plain, const Request& compressed, const CostParams& params);

}  // namespace ccsim::collective
