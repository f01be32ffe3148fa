#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "measure/transport.hpp"

namespace ccsim::measure {

/// An MPI communicator (a process group), owned; the only way measure/ code outside the MPI
/// sources talks to MPI. MPI must be initialised (see MpiSession) while one exists. Every
/// collective method must be called by all members, as in MPI.
class Communicator {
 public:
  /// MPI_COMM_WORLD (not freed).
  static Communicator world();
  ~Communicator();
  Communicator(Communicator&&) noexcept;
  Communicator& operator=(Communicator&&) noexcept;

  int rank() const;
  int size() const;
  /// The MPI_COMM_WORLD rank of each member, in group order.
  const std::vector<int>& world_ranks() const;

  /// MPI_Comm_split: members with the same colour form a group, ordered by key.
  Communicator split(int color, int key) const;
  /// A point-to-point Transport over a duplicate of this communicator (its own context,
  /// so its messages never match anything else).
  std::unique_ptr<Transport> transport() const;

  void barrier() const;
  /// The library's references, in place where MPI allows: MPI_Allreduce (sum),
  /// MPI_Allgatherv (rank i contributes `mine`, its counts[i] elements, into `all` at the
  /// offset of the counts before it), MPI_Reduce_scatter (sum; rank i receives counts[i]
  /// elements of the reduced `in`).
  void all_reduce_sum(std::span<float> data) const;
  void all_gather(std::span<const float> mine, std::span<float> all, const std::vector<int>& counts) const;
  void reduce_scatter(std::span<const float> in, std::span<float> out, const std::vector<int>& counts) const;

  /// Reductions of one scalar, for timing and checks.
  double max(double value) const;
  double min(double value) const;
  double sum(double value) const;
  std::uint64_t sum(std::uint64_t value) const;
  /// Every member's `value`, in group order.
  std::vector<double> all_gather(double value) const;
  /// Every member's string, in group order.
  std::vector<std::string> all_gather(const std::string& value) const;

  /// MPI_Wtime.
  static double now_s();
  /// "Open MPI v4.1.4, ..." (MPI_Get_library_version), first line.
  static std::string library_version();
  /// The MPI library's point-to-point protocol limits that it exposes as MPI_T control
  /// variables: the eager limits of its byte-transfer layers ("btl_vader_eager_limit",
  /// "btl_tcp_eager_limit", ...; rendezvous limits excluded) with their values in bytes.
  /// Empty when the library exposes none (or MPI_T is unavailable).
  static std::vector<std::pair<std::string, std::uint64_t>> protocol_limits();
  /// This process's host name (MPI_Get_processor_name).
  static std::string processor_name();
  /// The cores the processes of this node may run on together: the union of their CPU
  /// affinities (mpirun binding 2 processes to a core each: 2; `taskset -c 0 mpirun -np 2
  /// --bind-to none`: 1; a process whose affinity cannot be read counts the machine's cores).
  /// With `across_nodes`, the smallest over the nodes. Collective over MPI_COMM_WORLD.
  static int node_cores(bool across_nodes);
  /// The CPUs this process may run on, as a list of ids and ranges ("0", "0-1", "0,2-3").
  static std::string affinity_cpus();

 private:
  struct Impl;
  explicit Communicator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// MPI_Init / MPI_Finalize for the life of the object (MPI_THREAD_SINGLE). Errors of MPI
/// calls are returned to ccsim (MPI_ERRORS_RETURN) and thrown as std::runtime_error.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  /// Ends every process of the job (MPI_Abort), for an error on one rank that the others
  /// cannot know about; only executables call it.
  [[noreturn]] static void abort_job(int code);
};

}  // namespace ccsim::measure
