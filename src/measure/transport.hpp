#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim::measure {

/// Point-to-point messaging between the processes of one communicator, as the real
/// executors of measure/ need it: one exchange at a time per process, a send and a receive
/// posted together and completed together (MPI_Sendrecv semantics, no ordering between the
/// two). Peers are ranks of the transport's communicator. Messages between one pair on one
/// transport are matched in order. Implementations: MPI (always), UCX (when built with it).
class Transport {
 public:
  virtual ~Transport() = default;

  /// "mpi", "ucx".
  virtual std::string_view name() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// Sends `send` to `send_peer` and receives into `recv` from `recv_peer` concurrently
  /// (a peer of -1: no send / no receive). The message received may be shorter than
  /// `recv` (compressed data); returns its length in bytes. Throws std::runtime_error with
  /// the library's message on failure, and when a message is longer than `recv`.
  virtual std::size_t exchange(int send_peer, std::span<const std::byte> send, int recv_peer,
                               std::span<std::byte> recv) = 0;
  /// All processes of the communicator reach this point before any leaves it.
  virtual void barrier() = 0;
};

}  // namespace ccsim::measure
