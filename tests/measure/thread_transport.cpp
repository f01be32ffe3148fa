#include "thread_transport.hpp"

#include <cstring>
#include <stdexcept>

namespace ccsim::measure::testing {

class ThreadEndpoint final : public Transport {
 public:
  ThreadEndpoint(ThreadNetwork& network, int rank) : network_(network), rank_(rank) {}
  std::string_view name() const override { return "threads"; }
  int rank() const override { return rank_; }
  int size() const override { return network_.size_; }

  std::size_t exchange(int send_peer, std::span<const std::byte> send, int recv_peer,
                       std::span<std::byte> recv) override {
    std::unique_lock lock(network_.mutex_);
    if (send_peer >= 0) {
      network_.queues_[{rank_, send_peer}].emplace_back(send.begin(), send.end());
      network_.arrived_.notify_all();
    }
    if (recv_peer < 0) return 0;
    auto& queue = network_.queues_[{recv_peer, rank_}];
    network_.arrived_.wait(lock, [&] { return !queue.empty(); });
    std::vector<std::byte> message = std::move(queue.front());
    queue.pop_front();
    if (message.size() > recv.size()) throw std::runtime_error("message longer than the receive buffer");
    if (!message.empty()) std::memcpy(recv.data(), message.data(), message.size());  // data() may be null when empty
    return message.size();
  }

  void barrier() override {
    std::unique_lock lock(network_.mutex_);
    const int generation = network_.barrier_generation_;
    if (++network_.barrier_waiting_ == network_.size_) {
      network_.barrier_waiting_ = 0;
      ++network_.barrier_generation_;
      network_.arrived_.notify_all();
      return;
    }
    network_.arrived_.wait(lock, [&] { return network_.barrier_generation_ != generation; });
  }

 private:
  ThreadNetwork& network_;
  int rank_;
};

std::unique_ptr<Transport> ThreadNetwork::endpoint(int rank) { return std::make_unique<ThreadEndpoint>(*this, rank); }

}  // namespace ccsim::measure::testing
