#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "measure/transport.hpp"

namespace ccsim::measure {

/// UCX for every process of MPI_COMM_WORLD: one context (tag matching), one worker per
/// process, an endpoint to every world rank; hands out a Transport per process group.
///
/// MPI only bootstraps it (the worker addresses are exchanged with MPI_Allgatherv); the
/// messages of its transports, barriers included, go through UCX alone, so that MPI progress
/// does not mix into UCX timings. Construction and destruction are collective over
/// MPI_COMM_WORLD: MPI must be initialised before and finalised after. Not thread safe.
class UcxWorld {
 public:
  /// Throws std::runtime_error with UCX's or MPI's message when a step fails.
  UcxWorld();
  /// Closes the endpoints (flushing what is in flight), then waits for every process before
  /// the worker goes, so that no peer loses an endpoint it is still closing.
  ~UcxWorld();
  UcxWorld(const UcxWorld&) = delete;
  UcxWorld& operator=(const UcxWorld&) = delete;

  int rank() const;
  int size() const;

  /// A transport over the processes `world_ranks_of_group` (distinct world ranks; group rank
  /// i is world_ranks_of_group[i]); the calling process must be one of them. Messages carry
  /// `context_id`, so groups with different ids never match each other's messages; ids must
  /// be distinct among the groups in use at a time. Every member creates it with the same
  /// arguments. The transport must not outlive this world. Throws std::invalid_argument.
  std::unique_ptr<Transport> group(std::vector<int> world_ranks_of_group, std::uint32_t context_id);

  /// The transports and devices UCX chose to reach `world_rank`, e.g. "tcp/lo" or
  /// "posix/memory,cma/memory" (from ucp_ep_print_info).
  std::string transports_to(int world_rank) const;

  /// "UCX 1.13.1, UCX_TLS=..., UCX_NET_DEVICES=..." (the library version and the selection
  /// from the environment; "all" where unset).
  static std::string describe();

  class Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace ccsim::measure
