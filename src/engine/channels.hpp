#pragma once

// Engine-internal (Simulation): the mailboxes that a simulation's messages travel through.

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <unordered_map>

#include <simgrid/s4u/Mailbox.hpp>

#include "core/flat_map.hpp"

namespace ccsim::engine::detail {

/// The mailbox of messages from `src` to `dst` on one channel: a process group's collectives
/// (context = group) or point-to-point messages with one tag (context = tag). Mailboxes exist
/// only for pairs that talk; messages on one are matched in order (MPI's non-overtaking).
class Channels {
 public:
  enum Kind : int { kPointToPoint = 0, kCollective = 1 };
  simgrid::s4u::Mailbox* get(Kind kind, int context, int src, int dst);

 private:
  /// Channels whose context and ranks fit 21 bits each, by their packed key (one lookup per
  /// message); the others by their fields.
  FlatMap64<simgrid::s4u::Mailbox*> packed_;
  using Key = std::tuple<int, int, int, int>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  std::unordered_map<Key, simgrid::s4u::Mailbox*, KeyHash> others_;
  static simgrid::s4u::Mailbox* create(Kind kind, int context, int src, int dst);
};

}  // namespace ccsim::engine::detail
