#include "engine/channels.hpp"

#include <fmt/format.h>

namespace ccsim::engine::detail {

std::size_t Channels::KeyHash::operator()(const Key& k) const {
  std::uint64_t h = static_cast<std::uint32_t>(std::get<0>(k));
  for (int v : {std::get<1>(k), std::get<2>(k), std::get<3>(k)})
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(v);
  return static_cast<std::size_t>(h ^ (h >> 31));
}

simgrid::s4u::Mailbox* Channels::get(Kind kind, int context, int src, int dst) {
  const Key key{static_cast<int>(kind), context, src, dst};
  auto it = boxes_.find(key);
  if (it != boxes_.end()) return it->second;
  simgrid::s4u::Mailbox* box =
      simgrid::s4u::Mailbox::by_name(fmt::format("{}{}:{}>{}", kind == kCollective ? 'c' : 'p', context, src, dst));
  boxes_.emplace(key, box);
  return box;
}

}  // namespace ccsim::engine::detail
