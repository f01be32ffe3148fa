#include "collective/block_parts.hpp"

#include <algorithm>

namespace ccsim::collective {
namespace {

std::uint64_t part_offset(Block whole, int i, int parts) {
  const auto p = static_cast<std::uint64_t>(parts);
  const auto index = static_cast<std::uint64_t>(i);
  return whole.offset + index * (whole.count / p) + std::min(index, whole.count % p);
}

}  // namespace

Block part(Block whole, int i, int parts) { return parts_span(whole, i, i + 1, parts); }

Block parts_span(Block whole, int first, int last, int parts) {
  const std::uint64_t begin = part_offset(whole, first, parts);
  return Block{begin, part_offset(whole, last, parts) - begin};
}

}  // namespace ccsim::collective
