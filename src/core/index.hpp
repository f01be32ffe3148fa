#pragma once

#include <cassert>
#include <concepts>
#include <cstddef>

namespace ccsim {

/// Element `i` of a random-access container indexed by a count that the code keeps signed or
/// narrow (a rank, a group, an accelerator, a link): the conversion to std::size_t in one
/// place, and the bound checked where assertions are on (the sanitizer tree). Unlike
/// std::vector::at it never throws: an index out of range is a bug, not an input error.
template <class Container, std::integral Index>
constexpr decltype(auto) at(Container& c, Index i) {
  if constexpr (std::signed_integral<Index>) assert(i >= 0);
  assert(static_cast<std::size_t>(i) < c.size());
  return c[static_cast<std::size_t>(i)];
}

/// `i`, a count that the code keeps signed or narrow (a rank, a group, a lane, an actor's
/// pid), as the std::size_t that indexes a container or sizes one: the conversion in one
/// place, checked non-negative where assertions are on, for the calls that take an index
/// rather than a container (RankRecords::share, a span's subspan, std::vector::assign).
template <std::integral Index>
constexpr std::size_t as_index(Index i) {
  if constexpr (std::signed_integral<Index>) assert(i >= 0);
  return static_cast<std::size_t>(i);
}

}  // namespace ccsim
