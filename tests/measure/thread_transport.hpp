#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

#include "measure/transport.hpp"

namespace ccsim::measure::testing {

/// Messages between threads of one process, one thread per rank: a real (shared-memory)
/// Transport for running schedules with the real executor without MPI. Sends are buffered
/// (copied), so an exchange never waits for its send.
class ThreadNetwork {
 public:
  explicit ThreadNetwork(int size) : size_(size) {}
  std::unique_ptr<Transport> endpoint(int rank);

 private:
  friend class ThreadEndpoint;
  int size_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<std::pair<int, int>, std::deque<std::vector<std::byte>>> queues_;
  int barrier_waiting_ = 0;
  int barrier_generation_ = 0;
};

}  // namespace ccsim::measure::testing
