#pragma once

// Engine-internal (Simulation): the mailboxes that a simulation's messages travel through.

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <unordered_map>

#include <simgrid/s4u/Mailbox.hpp>

namespace ccsim::engine::detail {

/// The mailbox of messages from `src` to `dst` on one channel: a process group's collectives
/// (context = group) or point-to-point messages with one tag (context = tag). Mailboxes exist
/// only for pairs that talk; messages on one are matched in order (MPI's non-overtaking).
class Channels {
 public:
  enum Kind : int { kPointToPoint = 0, kCollective = 1 };
  simgrid::s4u::Mailbox* get(Kind kind, int context, int src, int dst);

 private:
  using Key = std::tuple<int, int, int, int>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  std::unordered_map<Key, simgrid::s4u::Mailbox*, KeyHash> boxes_;
};

}  // namespace ccsim::engine::detail
