#pragma once

#include "collective/schedule.hpp"

namespace ccsim::collective {

// Splitting a block into near-equal contiguous parts, the way Schedule::chunk() splits the
// whole buffer: the first count % parts parts get one more element. Algorithms that split
// a part again (hierarchical, recursive halving) use these so that every level agrees.

/// Part i of `whole` split into `parts` parts (0 <= i < parts).
Block part(Block whole, int i, int parts);

/// Parts [first, last) of `whole` split into `parts` parts, as one contiguous block
/// (empty, at the offset of part `first`, when first == last).
Block parts_span(Block whole, int first, int last, int parts);

/// The whole buffer of a schedule as one block.
inline Block whole(const Schedule& schedule) { return Block{0, schedule.count()}; }

}  // namespace ccsim::collective
