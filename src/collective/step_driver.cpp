#include "collective/step_driver.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace ccsim::collective {

RankCursor::RankCursor(const Schedule& schedule, int rank)
    : rank_(rank), generated_(schedule.steps(rank)), steps_(generated_) {}

RankCursor::RankCursor(std::span<const Step> steps, int rank) : rank_(rank), steps_(steps) {}

bool RankCursor::advance(StepExecutor& executor) {
  bool progress = false;
  while (next_ < steps_.size()) {
    const Step& step = steps_[next_];
    switch (step.kind) {
      case StepKind::kCompress:
        executor.compress(rank_, step);
        break;
      case StepKind::kDecompress:
        executor.decompress(rank_, step);
        break;
      case StepKind::kExchange:
        if (!started_) {
          executor.start_exchange(rank_, step);
          started_ = true;
          progress = true;
        }
        if (!executor.finish_exchange(rank_, step)) return progress;
        started_ = false;
        if (step.recv_peer >= 0 && step.mode == RecvMode::kReduce) executor.reduce(rank_, step);
        break;
    }
    ++next_;
    progress = true;
  }
  return progress;
}

void run_rank(const Schedule& schedule, int rank, StepExecutor& executor) {
  run_rank(schedule, schedule.steps(rank), rank, executor);
}

void run_rank(const Schedule& schedule, std::span<const Step> steps, int rank, StepExecutor& executor) {
  RankCursor cursor(steps, rank);
  cursor.advance(executor);
  if (!cursor.done()) {
    throw std::logic_error(fmt::format("{}: rank {} step {}: a blocking executor returned before the exchange finished",
                                       schedule.name(), rank, cursor.position()));
  }
}

void run_all_ranks(const Schedule& schedule, StepExecutor& executor) {
  std::vector<RankCursor> cursors;
  cursors.reserve(static_cast<std::size_t>(schedule.size()));
  for (int r = 0; r < schedule.size(); ++r) cursors.emplace_back(schedule, r);
  for (;;) {
    bool progress = false;
    bool all_done = true;
    for (auto& cursor : cursors) {
      if (cursor.advance(executor)) progress = true;
      if (!cursor.done()) all_done = false;
    }
    if (all_done) return;
    if (!progress) {
      for (const auto& cursor : cursors) {
        if (cursor.done()) continue;
        const Step& step = cursor.steps()[cursor.position()];
        // A send-only step waits for its receiver (rendezvous executors).
        const int peer = step.recv_peer >= 0 ? step.recv_peer : step.send_peer;
        throw std::logic_error(fmt::format("{}: deadlock, rank {} waits at step {} for rank {}", schedule.name(),
                                           cursor.rank(), cursor.position(), peer));
      }
    }
  }
}

}  // namespace ccsim::collective
