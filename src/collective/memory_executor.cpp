#include "collective/memory_executor.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "collective/step_driver.hpp"
#include "core/index.hpp"

namespace ccsim::collective {
namespace {

/// The cooperative StepExecutor on numbers in memory: eager messages, buffered per
/// (sender, receiver) pair and matched in order.
class MemoryExecutor final : public StepExecutor {
 public:
  MemoryExecutor(const Schedule& schedule, std::vector<std::vector<double>>& buffers, const Quantizer& quantize)
      : schedule_(schedule),
        raw_(buffers),
        quantize_(quantize),
        element_bytes_(static_cast<std::uint64_t>(schedule.element_bytes())) {
    const auto p = static_cast<std::size_t>(schedule.size());
    if (raw_.size() != p) throw std::logic_error("execute_in_memory: one buffer per rank");
    for (const auto& buffer : raw_) {
      if (buffer.size() != schedule.count()) throw std::logic_error("execute_in_memory: buffers of count() elements");
    }
    compressed_.assign(p, std::vector<double>(schedule.count(), 0.0));
    started_.assign(p, 0);
    received_.resize(p);
    auto zeros = std::vector<std::uint64_t>(p, 0);
    stats_.bytes_sent = stats_.bytes_received = stats_.compressed_bytes_sent = stats_.compressed_bytes_received = zeros;
    stats_.bytes_reduced = stats_.bytes_added_compressed = stats_.bytes_compressed = stats_.bytes_decompressed = zeros;
  }

  ExecutionStats run() {
    run_all_ranks(schedule_, *this);
    for (const auto& [channel, queue] : channels_) {
      if (!queue.empty()) {
        throw std::logic_error(fmt::format("{}: {} message(s) from rank {} to rank {} never received", schedule_.name(),
                                           queue.size(), channel.first, channel.second));
      }
    }
    return std::move(stats_);
  }

  void start_exchange(int rank, const Step& step) override {
    begin_step(rank);
    if (step.send_peer < 0) return;
    check_block(rank, step.send);
    const auto& source = buffer(rank, step.compressed);
    auto first = source.begin() + static_cast<std::ptrdiff_t>(step.send.offset);
    channels_[{rank, step.send_peer}].push_back(
        Message{step.compressed, std::vector<double>(first, first + static_cast<std::ptrdiff_t>(step.send.count))});
    auto& counter = step.compressed ? stats_.compressed_bytes_sent : stats_.bytes_sent;
    at(counter, rank) += step.send.count * element_bytes_;
    ++stats_.messages;
  }

  bool finish_exchange(int rank, const Step& step) override {
    if (step.recv_peer < 0) return true;
    auto& queue = channels_[{step.recv_peer, rank}];
    if (queue.empty()) return false;
    Message message = std::move(queue.front());
    queue.pop_front();
    check_block(rank, step.recv);
    if (message.values.size() != step.recv.count || message.compressed != step.compressed) {
      throw std::logic_error(fmt::format("{}: rank {} step {} expects {} {} elements from rank {}, got {} {}",
                                         schedule_.name(), rank, step_index(rank), step.recv.count,
                                         step.compressed ? "compressed" : "raw", step.recv_peer, message.values.size(),
                                         message.compressed ? "compressed" : "raw"));
    }
    const auto ur = static_cast<std::size_t>(rank);
    (step.compressed ? stats_.compressed_bytes_received : stats_.bytes_received)[ur] +=
        step.recv.count * element_bytes_;
    if (step.mode == RecvMode::kCopy) {
      apply(buffer(rank, step.compressed), step.recv, message.values, RecvMode::kCopy);
    } else {
      received_[ur] = std::move(message.values);  // reduce() adds it
    }
    return true;
  }

  void reduce(int rank, const Step& step) override {
    const auto ur = static_cast<std::size_t>(rank);
    apply(buffer(rank, step.compressed), step.recv, received_[ur], RecvMode::kReduce);
    received_[ur].clear();
    (step.compressed ? stats_.bytes_added_compressed : stats_.bytes_reduced)[ur] += step.recv.count * element_bytes_;
  }

  void compress(int rank, const Step& step) override {
    begin_step(rank);
    check_block(rank, step.local);
    const auto ur = static_cast<std::size_t>(rank);
    auto first = static_cast<std::ptrdiff_t>(step.local.offset);
    auto last = first + static_cast<std::ptrdiff_t>(step.local.count);
    std::copy(raw_[ur].begin() + first, raw_[ur].begin() + last, compressed_[ur].begin() + first);
    if (quantize_) quantize_(std::span<double>(compressed_[ur].data() + first, step.local.count));
    stats_.bytes_compressed[ur] += step.local.count * element_bytes_;
  }

  void decompress(int rank, const Step& step) override {
    begin_step(rank);
    check_block(rank, step.local);
    const auto ur = static_cast<std::size_t>(rank);
    auto first = compressed_[ur].begin() + static_cast<std::ptrdiff_t>(step.local.offset);
    std::vector<double> values(first, first + static_cast<std::ptrdiff_t>(step.local.count));
    apply(raw_[ur], step.local, values, step.mode);
    const auto bytes = step.local.count * element_bytes_;
    stats_.bytes_decompressed[ur] += bytes;
    if (step.mode == RecvMode::kReduce) stats_.bytes_reduced[ur] += bytes;
  }

 private:
  struct Message {
    bool compressed;
    std::vector<double> values;
  };

  /// Every step begins with exactly one of start_exchange(), compress() or decompress(), so
  /// counting them gives the index of the step in progress, for messages.
  void begin_step(int rank) { ++at(started_, rank); }
  std::size_t step_index(int rank) const { return at(started_, rank) - 1; }

  void check_block(int rank, const Block& block) const {
    if (block.offset + block.count > schedule_.count()) {
      throw std::logic_error(fmt::format("{}: rank {} step {} touches elements [{}, {}) of a buffer of {}",
                                         schedule_.name(), rank, step_index(rank), block.offset,
                                         block.offset + block.count, schedule_.count()));
    }
  }

  std::vector<double>& buffer(int rank, bool compressed) { return compressed ? at(compressed_, rank) : at(raw_, rank); }

  static void apply(std::vector<double>& target, const Block& block, const std::vector<double>& values, RecvMode mode) {
    for (std::uint64_t i = 0; i < block.count; ++i) {
      double& slot = target[block.offset + i];
      slot = mode == RecvMode::kReduce ? slot + values[i] : values[i];
    }
  }

  const Schedule& schedule_;
  std::vector<std::vector<double>>& raw_;
  std::vector<std::vector<double>> compressed_;
  const Quantizer& quantize_;
  std::uint64_t element_bytes_;
  std::vector<std::size_t> started_;           ///< per rank: steps begun
  std::vector<std::vector<double>> received_;  ///< per rank: the block awaiting reduce()
  std::map<std::pair<int, int>, std::deque<Message>> channels_;
  ExecutionStats stats_;
};

}  // namespace

ExecutionStats execute_in_memory(const Schedule& schedule, std::vector<std::vector<double>>& buffers,
                                 const Quantizer& quantize) {
  return MemoryExecutor(schedule, buffers, quantize).run();
}

}  // namespace ccsim::collective
