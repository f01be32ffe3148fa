#include "collective/schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace ccsim::collective {

Schedule::Schedule(int size, std::uint64_t count, int element_bytes)
    : size_(size), count_(count), element_bytes_(element_bytes) {
  if (size < 1) throw std::invalid_argument("Schedule: a group has at least one rank");
  if (element_bytes < 1) throw std::invalid_argument("Schedule: elements have at least one byte");
}

Block Schedule::chunk(int i, int parts) const {
  auto p = static_cast<std::uint64_t>(parts);
  auto index = static_cast<std::uint64_t>(i);
  std::uint64_t base = count_ / p;
  std::uint64_t extra = count_ % p;
  std::uint64_t offset = index * base + std::min(index, extra);
  return Block{offset, base + (index < extra ? 1 : 0)};
}

}  // namespace ccsim::collective
