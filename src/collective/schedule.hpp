#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim::collective {

/// A contiguous range of elements of the collective's buffer.
struct Block {
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
};

/// What a rank does with the block it receives.
enum class RecvMode : std::uint8_t {
  kCopy,    ///< overwrite the block
  kReduce,  ///< add into the block (costs gamma per byte on the rank)
};

/// One step of one rank: send a block to a peer and/or receive a block from a peer,
/// concurrently; the step ends when both are done (and the received block is reduced).
/// The block sent is read before the received one is applied.
struct Step {
  std::int32_t send_peer = -1;  ///< group-local rank, -1 for none
  Block send;
  std::int32_t recv_peer = -1;  ///< group-local rank, -1 for none
  Block recv;
  RecvMode mode = RecvMode::kCopy;
};

/// Parameters of the alpha-beta(-gamma) cost model, with no contention:
/// a message of n bytes costs alpha + n * beta, reducing n bytes costs n * gamma.
struct CostParams {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
  double gamma_s_per_byte = 0;
};

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

  /// Short algorithm name, e.g. "ring".
  virtual std::string_view name() const = 0;
  /// The steps of group-local rank `rank`, in order.
  virtual std::vector<Step> steps(int rank) const = 0;
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

}  // namespace ccsim::collective
