#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collective/algorithm.hpp"
#include "collective/schedule.hpp"

namespace ccsim::collective {

/// A collective to build a schedule for: what, on how many ranks, how big, and how.
struct Request {
  Collective op = Collective::kAllReduce;
  std::string algorithm = "auto";  ///< one of algorithms(op)
  int size = 1;                    ///< ranks in the group
  std::uint64_t count = 0;         ///< elements in the buffer (see each schedule for its meaning)
  int element_bytes = 4;
  int root = 0;                                  ///< broadcast only: group-local root
  std::vector<int> node_of_rank;                 ///< node of each group-local rank; empty when unknown
  Compression compression = Compression::kNone;  ///< all_reduce only; kNone for the others
};

// The automatic choice without a platform (a replay's --algo auto instead takes the lowest
// predicted cost on the platform's links: algorithm_choice.hpp), as MPI libraries make it (MPICH's allreduce selection:
// recursive doubling up to MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE = 2 KiB, Rabenseifner above it; ring for large messages
// as in Open MPI's tuned decision and NCCL, because it only talks to neighbours, which the contention-free alpha-beta
// model does not reward):
//   all_reduce, no compression, by buffer bytes n:
//     p = 1                                                     -> ring (no steps)
//     n <= kShortAllReduceBytes                                 -> recursive-doubling
//     node_of_rank known, >= 2 nodes, >= 2 ranks on each, equal -> hierarchical
//     p a power of two, n <= kLargeAllReduceBytes, count >= p   -> rabenseifner
//     otherwise                                                 -> ring
//   all_reduce, compressed: kHomomorphic -> homomorphic-ring, kErrorBounded -> compressed-ring,
//     kNonSummable -> compressed-allgather
//   broadcast -> binomial-tree; all_gather, reduce_scatter -> ring; all_to_all -> pairwise.

/// Up to this many bytes, all_reduce is latency-bound: recursive doubling.
inline constexpr std::uint64_t kShortAllReduceBytes = 2048;
/// Up to this many bytes, a power-of-two group uses Rabenseifner rather than the ring.
inline constexpr std::uint64_t kLargeAllReduceBytes = 1 << 20;

/// The valid algorithm names for `op`, "auto" first (for command-line validation).
std::vector<std::string_view> algorithms(Collective op);

/// Whether the node of every rank is known where an algorithm list is offered.
enum class NodeLayout : std::uint8_t { kKnown, kUnknown };

/// The all_reduce algorithms that run without a compressor, in table order, without "auto";
/// with an unknown node layout (closed forms on one link tier), not those that need one.
std::vector<std::string_view> plain_all_reduce_algorithms(NodeLayout layout = NodeLayout::kKnown);
/// The all_reduce algorithms that run with a compressor, in table order, without "auto".
std::vector<std::string_view> compressed_all_reduce_algorithms();

/// The algorithm make_schedule() uses: request.algorithm when it names one, else the
/// automatic choice above. Throws InputError (field "--algo") for an unknown name, naming the
/// choices, and for a name that does not fit the request: a compressed algorithm without a
/// compressor, a plain all_reduce algorithm with one, homomorphic-ring with a compressor that
/// is not homomorphic, hierarchical without a usable node layout. Hierarchical on a layout
/// of one node, or of one rank per node, is one ring: the answer is then "ring". Throws
/// std::invalid_argument for compression on a collective other than all_reduce (none has a
/// compressed algorithm: the caller decides to run it plain, and says so).
std::string choose_algorithm(const Request& request);

/// The schedule of choose_algorithm(request) for the request's group and buffer; throws as
/// choose_algorithm(), and std::invalid_argument for a size, element size or root out of range.
std::unique_ptr<Schedule> make_schedule(const Request& request);

}  // namespace ccsim::collective
