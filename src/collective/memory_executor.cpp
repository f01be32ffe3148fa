#include "collective/memory_executor.hpp"

#include <deque>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace ccsim::collective {

ExecutionStats execute_in_memory(const Schedule& schedule, std::vector<std::vector<double>>& buffers) {
  const int p = schedule.size();
  if (buffers.size() != static_cast<std::size_t>(p)) throw std::logic_error("execute_in_memory: one buffer per rank");
  for (const auto& buffer : buffers) {
    if (buffer.size() != schedule.count()) throw std::logic_error("execute_in_memory: buffers of count() elements");
  }
  const auto element_bytes = static_cast<std::uint64_t>(schedule.element_bytes());
  std::vector<std::vector<Step>> steps(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) steps[static_cast<std::size_t>(r)] = schedule.steps(r);

  ExecutionStats stats;
  stats.bytes_sent.assign(static_cast<std::size_t>(p), 0);
  stats.bytes_received.assign(static_cast<std::size_t>(p), 0);
  stats.bytes_reduced.assign(static_cast<std::size_t>(p), 0);

  std::map<std::pair<int, int>, std::deque<std::vector<double>>> channels;  // (src, dst) -> messages
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<bool> sent(static_cast<std::size_t>(p), false);  // current step's send already posted
  std::size_t remaining = 0;
  for (const auto& s : steps) remaining += s.size();

  while (remaining > 0) {
    bool progress = false;
    for (int r = 0; r < p; ++r) {
      auto ur = static_cast<std::size_t>(r);
      while (next[ur] < steps[ur].size()) {
        const Step& step = steps[ur][next[ur]];
        auto& buffer = buffers[ur];
        if (step.send_peer >= 0 && !sent[ur]) {
          if (step.send.offset + step.send.count > buffer.size()) throw std::logic_error("send block out of range");
          channels[{r, step.send_peer}].emplace_back(buffer.begin() + static_cast<std::ptrdiff_t>(step.send.offset),
                                                     buffer.begin() + static_cast<std::ptrdiff_t>(step.send.offset + step.send.count));
          stats.bytes_sent[ur] += step.send.count * element_bytes;
          ++stats.messages;
          sent[ur] = true;
          progress = true;
        }
        if (step.recv_peer >= 0) {
          auto& queue = channels[{step.recv_peer, r}];
          if (queue.empty()) break;  // wait for the peer
          std::vector<double> message = std::move(queue.front());
          queue.pop_front();
          if (message.size() != step.recv.count || step.recv.offset + step.recv.count > buffer.size()) {
            throw std::logic_error(fmt::format("{}: rank {} step {} expects {} elements from rank {}, got {}",
                                               schedule.name(), r, next[ur], step.recv.count, step.recv_peer,
                                               message.size()));
          }
          for (std::uint64_t i = 0; i < step.recv.count; ++i) {
            double& slot = buffer[step.recv.offset + i];
            slot = step.mode == RecvMode::kReduce ? slot + message[i] : message[i];
          }
          stats.bytes_received[ur] += step.recv.count * element_bytes;
          if (step.mode == RecvMode::kReduce) stats.bytes_reduced[ur] += step.recv.count * element_bytes;
        }
        sent[ur] = false;
        ++next[ur];
        --remaining;
        progress = true;
      }
    }
    if (!progress) {
      for (int r = 0; r < p; ++r) {
        auto ur = static_cast<std::size_t>(r);
        if (next[ur] < steps[ur].size()) {
          throw std::logic_error(fmt::format("{}: deadlock, rank {} waits at step {} for rank {}", schedule.name(), r,
                                             next[ur], steps[ur][next[ur]].recv_peer));
        }
      }
    }
  }
  for (const auto& [channel, queue] : channels) {
    if (!queue.empty()) {
      throw std::logic_error(fmt::format("{}: {} message(s) from rank {} to rank {} never received", schedule.name(),
                                         queue.size(), channel.first, channel.second));
    }
  }
  return stats;
}

}  // namespace ccsim::collective
