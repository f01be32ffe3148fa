#include "collective/memory_executor.hpp"

#include <deque>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace ccsim::collective {
namespace {

class Executor {
 public:
  Executor(const Schedule& schedule, std::vector<std::vector<double>>& buffers, const Quantizer& quantize)
      : schedule_(schedule), raw_(buffers), quantize_(quantize), p_(schedule.size()),
        element_bytes_(static_cast<std::uint64_t>(schedule.element_bytes())) {
    if (raw_.size() != static_cast<std::size_t>(p_)) throw std::logic_error("execute_in_memory: one buffer per rank");
    for (const auto& buffer : raw_) {
      if (buffer.size() != schedule.count()) throw std::logic_error("execute_in_memory: buffers of count() elements");
    }
    compressed_.assign(static_cast<std::size_t>(p_), std::vector<double>(schedule.count(), 0.0));
    steps_.resize(static_cast<std::size_t>(p_));
    for (int r = 0; r < p_; ++r) steps_[static_cast<std::size_t>(r)] = schedule.steps(r);
    auto zeros = std::vector<std::uint64_t>(static_cast<std::size_t>(p_), 0);
    stats_.bytes_sent = stats_.bytes_received = stats_.compressed_bytes_sent = stats_.compressed_bytes_received = zeros;
    stats_.bytes_reduced = stats_.bytes_added_compressed = stats_.bytes_compressed = stats_.bytes_decompressed = zeros;
  }

  ExecutionStats run() {
    std::vector<std::size_t> next(static_cast<std::size_t>(p_), 0);
    std::vector<bool> sent(static_cast<std::size_t>(p_), false);  // current step's send already posted
    std::size_t remaining = 0;
    for (const auto& s : steps_) remaining += s.size();
    while (remaining > 0) {
      bool progress = false;
      for (int r = 0; r < p_; ++r) {
        auto ur = static_cast<std::size_t>(r);
        while (next[ur] < steps_[ur].size()) {
          const Step& step = steps_[ur][next[ur]];
          if (step.kind == StepKind::kExchange) {
            if (step.send_peer >= 0 && !sent[ur]) {
              post_send(r, next[ur], step);
              sent[ur] = true;
              progress = true;
            }
            if (step.recv_peer >= 0 && !try_receive(r, next[ur], step)) break;  // wait for the peer
          } else {
            local(r, next[ur], step);
          }
          sent[ur] = false;
          ++next[ur];
          --remaining;
          progress = true;
        }
      }
      if (!progress) {
        for (int r = 0; r < p_; ++r) {
          auto ur = static_cast<std::size_t>(r);
          if (next[ur] < steps_[ur].size()) {
            throw std::logic_error(fmt::format("{}: deadlock, rank {} waits at step {} for rank {}", schedule_.name(), r,
                                               next[ur], steps_[ur][next[ur]].recv_peer));
          }
        }
      }
    }
    for (const auto& [channel, queue] : channels_) {
      if (!queue.empty()) {
        throw std::logic_error(fmt::format("{}: {} message(s) from rank {} to rank {} never received",
                                           schedule_.name(), queue.size(), channel.first, channel.second));
      }
    }
    return std::move(stats_);
  }

 private:
  struct Message {
    bool compressed;
    std::vector<double> values;
  };

  void check_block(int rank, std::size_t index, const Block& block) const {
    if (block.offset + block.count > schedule_.count()) {
      throw std::logic_error(fmt::format("{}: rank {} step {} touches elements [{}, {}) of a buffer of {}",
                                         schedule_.name(), rank, index, block.offset, block.offset + block.count,
                                         schedule_.count()));
    }
  }

  std::vector<double>& buffer(int rank, bool compressed) {
    return compressed ? compressed_[static_cast<std::size_t>(rank)] : raw_[static_cast<std::size_t>(rank)];
  }

  void post_send(int rank, std::size_t index, const Step& step) {
    check_block(rank, index, step.send);
    const auto& source = buffer(rank, step.compressed);
    auto first = source.begin() + static_cast<std::ptrdiff_t>(step.send.offset);
    channels_[{rank, step.send_peer}].push_back(
        Message{step.compressed, std::vector<double>(first, first + static_cast<std::ptrdiff_t>(step.send.count))});
    auto& counter = step.compressed ? stats_.compressed_bytes_sent : stats_.bytes_sent;
    counter[static_cast<std::size_t>(rank)] += step.send.count * element_bytes_;
    ++stats_.messages;
  }

  bool try_receive(int rank, std::size_t index, const Step& step) {
    auto& queue = channels_[{step.recv_peer, rank}];
    if (queue.empty()) return false;
    Message message = std::move(queue.front());
    queue.pop_front();
    check_block(rank, index, step.recv);
    if (message.values.size() != step.recv.count || message.compressed != step.compressed) {
      throw std::logic_error(fmt::format("{}: rank {} step {} expects {} {} elements from rank {}, got {} {}",
                                         schedule_.name(), rank, index, step.recv.count,
                                         step.compressed ? "compressed" : "raw", step.recv_peer, message.values.size(),
                                         message.compressed ? "compressed" : "raw"));
    }
    apply(buffer(rank, step.compressed), step.recv, message.values, step.mode);
    const auto bytes = step.recv.count * element_bytes_;
    auto ur = static_cast<std::size_t>(rank);
    (step.compressed ? stats_.compressed_bytes_received : stats_.bytes_received)[ur] += bytes;
    if (step.mode == RecvMode::kReduce) (step.compressed ? stats_.bytes_added_compressed : stats_.bytes_reduced)[ur] += bytes;
    return true;
  }

  static void apply(std::vector<double>& target, const Block& block, const std::vector<double>& values, RecvMode mode) {
    for (std::uint64_t i = 0; i < block.count; ++i) {
      double& slot = target[block.offset + i];
      slot = mode == RecvMode::kReduce ? slot + values[i] : values[i];
    }
  }

  void local(int rank, std::size_t index, const Step& step) {
    check_block(rank, index, step.local);
    auto ur = static_cast<std::size_t>(rank);
    auto first = static_cast<std::ptrdiff_t>(step.local.offset);
    auto last = first + static_cast<std::ptrdiff_t>(step.local.count);
    const auto bytes = step.local.count * element_bytes_;
    if (step.kind == StepKind::kCompress) {
      std::copy(raw_[ur].begin() + first, raw_[ur].begin() + last, compressed_[ur].begin() + first);
      if (quantize_) quantize_(std::span<double>(compressed_[ur].data() + first, step.local.count));
      stats_.bytes_compressed[ur] += bytes;
    } else {
      std::vector<double> values(compressed_[ur].begin() + first, compressed_[ur].begin() + last);
      apply(raw_[ur], step.local, values, step.mode);
      stats_.bytes_decompressed[ur] += bytes;
      if (step.mode == RecvMode::kReduce) stats_.bytes_reduced[ur] += bytes;
    }
  }

  const Schedule& schedule_;
  std::vector<std::vector<double>>& raw_;
  std::vector<std::vector<double>> compressed_;
  const Quantizer& quantize_;
  int p_;
  std::uint64_t element_bytes_;
  std::vector<std::vector<Step>> steps_;
  std::map<std::pair<int, int>, std::deque<Message>> channels_;
  ExecutionStats stats_;
};

}  // namespace

ExecutionStats execute_in_memory(const Schedule& schedule, std::vector<std::vector<double>>& buffers,
                                 const Quantizer& quantize) {
  return Executor(schedule, buffers, quantize).run();
}

}  // namespace ccsim::collective
