#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collective/algorithm.hpp"
#include "compress/compressor_cost.hpp"

namespace ccsim::collective {

/// A contiguous range of elements of the collective's buffer.
struct Block {
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
};

/// What a step does.
enum class StepKind : std::uint8_t {
  kExchange,    ///< send a block to a peer and/or receive a block from a peer, concurrently
  kCompress,    ///< compress `local` of the raw buffer into the compressed buffer
  kDecompress,  ///< decompress `local` of the compressed buffer into the raw buffer
};

/// What a rank does with a block it receives (kExchange) or decompresses (kDecompress).
enum class RecvMode : std::uint8_t {
  kCopy,    ///< overwrite the block
  kReduce,  ///< add into the block: gamma per byte for raw data, a homomorphic add for compressed data
};

/// One step of one rank. Every rank has a raw buffer and a compressed buffer of the same
/// element layout (a compressed block stands for the compressor's representation of those
/// elements). A kExchange step sends `send` and receives `recv`; with `compressed`, both
/// travel compressed (read from and written to the compressed buffer, count / ratio bytes
/// on the wire). The block sent is read before the received one is applied; the step ends
/// when both are done and the received block is applied.
struct Step {
  StepKind kind = StepKind::kExchange;
  RecvMode mode = RecvMode::kCopy;
  bool compressed = false;
  std::int32_t send_peer = -1;  ///< group-local rank, -1 for none
  std::int32_t recv_peer = -1;  ///< group-local rank, -1 for none
  Block send;
  Block recv;
  Block local;  ///< kCompress / kDecompress: the block processed
};

/// Parameters of the alpha-beta-gamma cost model with compression, with no contention:
/// a message of n bytes costs alpha + n * beta, reducing n bytes costs n * gamma, and the
/// compressor's costs are in `compressor` (default: no compression). Two-level algorithms
/// (hierarchical) use intra_alpha_s / intra_beta_s_per_byte between ranks of one node and
/// alpha_s / beta_s_per_byte between nodes; a negative intra value means "same as inter".
struct CostParams {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
  double gamma_s_per_byte = 0;
  compress::CompressorCost compressor;
  double intra_alpha_s = -1;
  double intra_beta_s_per_byte = -1;

  double intra_alpha() const { return intra_alpha_s < 0 ? alpha_s : intra_alpha_s; }
  double intra_beta() const { return intra_beta_s_per_byte < 0 ? beta_s_per_byte : intra_beta_s_per_byte; }
};

/// CostParams without a brace list (which -Wextra flags for the omitted compressor).
inline CostParams cost_params(double alpha_s, double beta_s_per_byte, double gamma_s_per_byte,
                              const compress::CompressorCost& compressor = {}) {
  CostParams params;
  params.alpha_s = alpha_s;
  params.beta_s_per_byte = beta_s_per_byte;
  params.gamma_s_per_byte = gamma_s_per_byte;
  params.compressor = compressor;
  return params;
}

/// A collective algorithm on a group of `size` ranks and a buffer of `count` elements of
/// `element_bytes` each, written once and executed three ways: in closed form (cost()),
/// in the SimGrid engine and for real (measure/). Steps are generated per rank on demand,
/// so a schedule costs O(1) memory whatever the group size.
class Schedule {
 public:
  Schedule(int size, std::uint64_t count, int element_bytes);
  virtual ~Schedule() = default;

  int size() const { return size_; }
  std::uint64_t count() const { return count_; }
  int element_bytes() const { return element_bytes_; }
  std::uint64_t bytes() const { return count_ * static_cast<std::uint64_t>(element_bytes_); }

  /// The algorithm this schedule is (its row of algorithm_table()).
  virtual Algorithm algorithm() const = 0;
  /// Short algorithm name, e.g. "ring", from the algorithm table.
  std::string_view name() const { return algorithm_info(algorithm()).name; }
  /// The steps of group-local rank `rank`, in order.
  virtual std::vector<Step> steps(int rank) const = 0;
  /// The ranks that `rank` sends to, each once, in the order of its first send to them: by
  /// default read off steps(rank); the ring schedules, whose O(p) steps all go to the same
  /// neighbour, say so in O(1) (planning a group of 1,024 ranks walked 2 million steps).
  virtual std::vector<int> send_peers(int rank) const;
  /// True when every rank walks the same ring: rank r's steps are rank 0's with each peer
  /// shifted by r (mod size) and with blocks of the same sizes, and each exchange sends to
  /// r + 1 and receives from r - 1. Started together on links of equal cost, the ranks then
  /// move in lockstep, and rank 0's walk is every rank's (uniform_ring_ends_s). False unless a
  /// schedule says so; the ring schedules say so when their chunks are of equal size.
  virtual bool uniform_ring() const { return false; }
  /// Closed-form time of the whole collective under the alpha-beta-gamma model.
  virtual double cost(const CostParams& params) const = 0;

  /// Block i of the buffer split into `parts` near-equal parts (the first count % parts
  /// blocks get one more element).
  Block chunk(int i, int parts) const;

 private:
  int size_;
  std::uint64_t count_;
  int element_bytes_;
};

/// Builders for steps, so that schedules read like their textbook description.
/// The ranks `steps` send to, each once, in the order of the first send to each.
std::vector<int> send_peers_of(const std::vector<Step>& steps);

Step exchange(int send_peer, Block send, int recv_peer, Block recv, RecvMode mode, bool compressed = false);
Step send_only(int peer, Block block, bool compressed = false);
Step recv_only(int peer, Block block, RecvMode mode, bool compressed = false);
Step compress_block(Block block);
Step decompress_block(Block block, RecvMode mode);

}  // namespace ccsim::collective
