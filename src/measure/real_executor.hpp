#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "collective/step_driver.hpp"
#include "compress/codec.hpp"
#include "measure/transport.hpp"

namespace ccsim::measure {

/// What one rank's real execution moved and computed (bytes; compressed streams counted at
/// their real length).
struct RealStats {
  std::uint64_t bytes_sent = 0;      ///< on the wire, raw or compressed
  std::uint64_t raw_bytes_sent = 0;  ///< the raw size of what was sent
  std::uint64_t messages = 0;
  std::uint64_t compressions = 0;
  std::uint64_t compressed_input_bytes = 0;
};

/// Executes one rank's steps of a schedule for real, on fp32 data, over a Transport, with
/// a real codec for the compressed steps: the blocking StepExecutor of measure/. The raw
/// buffer is the caller's; compressed blocks live in the executor, keyed by the block's
/// first element (a compressed block is produced by a compress step or received whole, and
/// consumed by a send, a decompress or a homomorphic add of the same block). With
/// `feedback`, compress steps use error feedback with a residual of the raw buffer's size
/// that the caller keeps between calls.
class RealExecutor final : public collective::StepExecutor {
 public:
  RealExecutor(Transport& transport, std::span<float> buffer, const compress::Codec* codec = nullptr,
               std::span<float> feedback = {});

  void start_exchange(int rank, const collective::Step& step) override;
  bool finish_exchange(int rank, const collective::Step& step) override;
  void reduce(int rank, const collective::Step& step) override;
  void compress(int rank, const collective::Step& step) override;
  void decompress(int rank, const collective::Step& step) override;

  const RealStats& stats() const { return stats_; }

  /// Starts another call of the schedule on the same buffer: statistics restart and the
  /// compressed blocks of the last call are forgotten, while every buffer keeps its memory,
  /// so repeated calls time the collective and not the allocator (glibc maps blocks of
  /// 32 MiB and more afresh on every allocation, page faults included).
  void start_call();

 private:
  std::span<float> block(const collective::Block& block) const;
  const std::vector<std::byte>& compressed(const collective::Block& block, const char* use) const;
  const compress::Codec& codec(const char* use) const;

  Transport& transport_;
  std::span<float> buffer_;
  const compress::Codec* codec_;
  std::span<float> feedback_;
  /// A compressed block and the call that produced it (older ones are stale).
  struct Compressed {
    std::vector<std::byte> bytes;
    std::uint64_t call = 0;
  };
  std::vector<std::byte>& fresh(std::uint64_t offset);
  std::map<std::uint64_t, Compressed> compressed_;
  std::uint64_t call_ = 0;
  std::vector<std::byte> received_;  ///< the last exchange's incoming message
  std::size_t received_bytes_ = 0;
  std::vector<std::byte> scratch_bytes_;
  std::vector<float> scratch_;
  RealStats stats_;
};

}  // namespace ccsim::measure
