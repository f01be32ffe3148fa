#include "engine/channels.hpp"

#include <fmt/format.h>

namespace ccsim::engine::detail {

std::size_t Channels::KeyHash::operator()(const Key& k) const {
  std::uint64_t h = static_cast<std::uint32_t>(std::get<0>(k));
  for (int v : {std::get<1>(k), std::get<2>(k), std::get<3>(k)})
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(v);
  return static_cast<std::size_t>(h ^ (h >> 31));
}

simgrid::s4u::Mailbox* Channels::create(Kind kind, int context, int src, int dst) {
  return simgrid::s4u::Mailbox::by_name(fmt::format("{}{}:{}>{}", kind == kCollective ? 'c' : 'p', context, src, dst));
}

simgrid::s4u::Mailbox* Channels::get(Kind kind, int context, int src, int dst) {
  constexpr int kBits = 21;
  constexpr int kLimit = (1 << kBits) - 1;  // a context of kLimit could pack to FlatMap64::kEmpty
  if (context >= 0 && context < kLimit && src >= 0 && src <= kLimit && dst >= 0 && dst <= kLimit) {
    const std::uint64_t key = static_cast<std::uint64_t>(kind) << (3 * kBits) |
                              static_cast<std::uint64_t>(context) << (2 * kBits) |
                              static_cast<std::uint64_t>(src) << kBits | static_cast<std::uint64_t>(dst);
    if (simgrid::s4u::Mailbox* const* box = packed_.find(key)) return *box;
    // Created before it is inserted: creating is a simcall, during which other actors run and
    // may insert (and move the table's values).
    simgrid::s4u::Mailbox* box = create(kind, context, src, dst);
    packed_.try_emplace(key, box);
    return box;
  }
  const Key key{static_cast<int>(kind), context, src, dst};
  auto it = others_.find(key);
  if (it != others_.end()) return it->second;
  simgrid::s4u::Mailbox* box = create(kind, context, src, dst);
  others_.emplace(key, box);
  return box;
}

}  // namespace ccsim::engine::detail
