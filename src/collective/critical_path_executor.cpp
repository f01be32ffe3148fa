#include "collective/critical_path_executor.hpp"

#include <algorithm>
#include <unordered_map>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "collective/step_driver.hpp"
#include "core/index.hpp"

namespace ccsim::collective {
namespace {

/// Post times of the sends and receives between one ordered pair, matched in FIFO order.
struct Channel {
  std::vector<double> sends;
  std::vector<double> recvs;
};

/// The cooperative StepExecutor of simulated time without contention: a clock per rank,
/// rendezvous transfers that start when both sides have posted.
class CriticalPathExecutor final : public StepExecutor {
 public:
  CriticalPathExecutor(const Schedule& schedule, const CostParams& params, const MessageCost& message,
                       std::span<const double> starts_s)
      : params_(params),
        message_(message),
        element_bytes_(static_cast<std::uint64_t>(schedule.element_bytes())),
        clock_(starts_s.begin(), starts_s.end()),
        send_index_(clock_.size()),
        recv_index_(clock_.size()),
        send_channel_(clock_.size(), nullptr),
        recv_channel_(clock_.size(), nullptr) {}

  const std::vector<double>& clocks() const { return clock_; }
  /// Each rank's waits, recorded from construction with `record_waits`.
  std::vector<std::vector<WaitInterval>>& waits() { return waits_; }
  void record_waits() { waits_.assign(clock_.size(), {}); }

  double makespan_s() const { return clock_.empty() ? 0.0 : *std::max_element(clock_.begin(), clock_.end()); }

  void start_exchange(int rank, const Step& step) override {
    // The channels are looked up once per exchange (finish_exchange may be asked many times).
    const auto ur = static_cast<std::size_t>(rank);
    if (step.send_peer >= 0) {
      send_channel_[ur] = &channel(rank, step.send_peer);
      auto& sends = send_channel_[ur]->sends;
      send_index_[ur] = sends.size();
      sends.push_back(clock_[ur]);
    }
    if (step.recv_peer >= 0) {
      recv_channel_[ur] = &channel(step.recv_peer, rank);
      auto& recvs = recv_channel_[ur]->recvs;
      recv_index_[ur] = recvs.size();
      recvs.push_back(clock_[ur]);
    }
  }

  bool finish_exchange(int rank, const Step& step) override {
    const auto ur = static_cast<std::size_t>(rank);
    const double posted = clock_[ur];
    double end = posted;
    // The step's transfers, [start, finish] each: a transfer starts once both sides posted it.
    std::pair<double, double> transfers[2];
    int count = 0;
    if (step.send_peer >= 0) {
      const auto& recvs = send_channel_[ur]->recvs;
      if (recvs.size() <= send_index_[ur]) return false;
      const double start = std::max(posted, recvs[send_index_[ur]]);
      transfers[count++] = {start, start + transfer_s(rank, step.send_peer, step.send, step.compressed)};
    }
    if (step.recv_peer >= 0) {
      const auto& sends = recv_channel_[ur]->sends;
      if (sends.size() <= recv_index_[ur]) return false;
      const double start = std::max(posted, sends[recv_index_[ur]]);
      transfers[count++] = {start, start + transfer_s(step.recv_peer, rank, step.recv, step.compressed)};
    }
    for (int k = 0; k < count; ++k) end = std::max(end, transfers[k].second);
    if (!waits_.empty()) {
      if (count == 2 && transfers[1] < transfers[0]) std::swap(transfers[0], transfers[1]);
      double cursor = posted;
      for (int k = 0; k < count; ++k) {
        if (transfers[k].first > cursor) waits_[ur].push_back({cursor, transfers[k].first});
        cursor = std::max(cursor, transfers[k].second);
      }
    }
    clock_[ur] = end;
    return true;
  }

  void reduce(int rank, const Step& step) override {
    const double raw = raw_bytes(step.recv);
    at(clock_, rank) += step.compressed ? params_.compressor.add_s(raw) : raw * params_.gamma_s_per_byte;
  }

  void compress(int rank, const Step& step) override {
    at(clock_, rank) += params_.compressor.compress_s(raw_bytes(step.local));
  }

  void decompress(int rank, const Step& step) override {
    const double raw = raw_bytes(step.local);
    at(clock_, rank) +=
        params_.compressor.decompress_s(raw) + (step.mode == RecvMode::kReduce ? raw * params_.gamma_s_per_byte : 0);
  }

 private:
  double raw_bytes(const Block& block) const { return static_cast<double>(block.count * element_bytes_); }

  double transfer_s(int from, int to, const Block& block, bool compressed) const {
    const std::uint64_t raw = block.count * element_bytes_;
    return message_(from, to, compressed ? params_.compressor.wire_bytes(raw) : raw);
  }

  const CostParams& params_;
  const MessageCost& message_;
  std::uint64_t element_bytes_;
  std::vector<double> clock_;                            ///< per rank: when its current step began (or its end)
  std::vector<std::size_t> send_index_;                  ///< per rank: its current send's slot in its channel
  std::vector<std::size_t> recv_index_;                  ///< per rank: its current receive's slot in its channel
  std::vector<Channel*> send_channel_;                   ///< per rank: the channel of its current send
  std::vector<Channel*> recv_channel_;                   ///< per rank: the channel of its current receive
  std::unordered_map<std::uint64_t, Channel> channels_;  ///< by (from << 32 | to); nodes stay put
  std::vector<std::vector<WaitInterval>> waits_;         ///< per rank, when recorded (record_waits)

  Channel& channel(int from, int to) {
    return channels_[static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32 |
                     static_cast<std::uint32_t>(to)];
  }
};

}  // namespace

double critical_path_s(const Schedule& schedule, const CostParams& params, const LinkModel& link) {
  const MessageCost message = [&](int from, int to, std::uint64_t wire_bytes) {
    const LinkCost cost = link ? link(from, to) : LinkCost{params.alpha_s, params.beta_s_per_byte};
    return cost.alpha_s + static_cast<double>(wire_bytes) * cost.beta_s_per_byte;
  };
  return critical_path_by_message_s(schedule, params, message);
}

double critical_path_by_message_s(const Schedule& schedule, const CostParams& params, const MessageCost& message) {
  const std::vector<double> starts(static_cast<std::size_t>(schedule.size()), 0.0);
  CriticalPathExecutor executor(schedule, params, message, starts);
  run_all_ranks(schedule, executor);
  return executor.makespan_s();
}

namespace {

/// Runs `schedule` from `starts_s` (one per rank), recording the waits when asked; `caller`
/// names the function in the error for a wrong number of starts.
CriticalPathTimes run_from(const Schedule& schedule, const CostParams& params, const MessageCost& message,
                           std::span<const double> starts_s, bool waits, const char* caller) {
  if (starts_s.size() != static_cast<std::size_t>(schedule.size())) {
    throw std::logic_error(
        fmt::format("{}: {} starts for a schedule of {} ranks", caller, starts_s.size(), schedule.size()));
  }
  CriticalPathExecutor executor(schedule, params, message, starts_s);
  if (waits) executor.record_waits();
  run_all_ranks(schedule, executor);
  return {executor.clocks(), std::move(executor.waits())};
}

}  // namespace

std::vector<double> critical_path_ends_s(const Schedule& schedule, const CostParams& params, const MessageCost& message,
                                         std::span<const double> starts_s) {
  return run_from(schedule, params, message, starts_s, false, "critical_path_ends_s").ends_s;
}

CriticalPathTimes critical_path_times(const Schedule& schedule, const CostParams& params, const MessageCost& message,
                                      std::span<const double> starts_s) {
  return run_from(schedule, params, message, starts_s, true, "critical_path_times");
}

std::vector<double> uniform_ring_ends_s(const Schedule& schedule, const CostParams& params, const MessageCost& message,
                                        double start_s) {
  if (!schedule.uniform_ring()) {
    throw std::logic_error(
        fmt::format("uniform_ring_ends_s: {} of {} ranks is not a uniform ring", schedule.name(), schedule.size()));
  }
  // Rank 0 alone, its sends to its right neighbour and its receives from its left one both
  // going to itself: each exchange is matched at once, as each rank's is by its neighbours
  // reaching the same step at the same time.
  std::vector<Step> steps = schedule.steps(0);
  for (Step& step : steps) {
    if (step.send_peer >= 0) step.send_peer = 0;
    if (step.recv_peer >= 0) step.recv_peer = 0;
  }
  const int right = schedule.size() > 1 ? 1 : 0;
  const MessageCost to_right = [&](int, int, std::uint64_t wire_bytes) { return message(0, right, wire_bytes); };
  const double start[] = {start_s};
  CriticalPathExecutor executor(schedule, params, to_right, start);
  RankCursor cursor(steps, 0);
  cursor.advance(executor);
  if (!cursor.done()) throw std::logic_error("uniform_ring_ends_s: rank 0 stalled on itself");
  return std::vector<double>(static_cast<std::size_t>(schedule.size()), executor.clocks()[0]);
}

}  // namespace ccsim::collective
