#pragma once

#include <cstddef>
#include <vector>

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// What executes the steps of a schedule: the in-memory executor (exact numbers), the
/// critical-path executor (closed-form costs), the SimGrid engine (simulated time) and the
/// real executors of measure/ (MPI, UCX). The driver (RankCursor) is the only code that
/// interprets a Step; an executor only carries out the primitives below, for the
/// group-local rank it is given.
///
/// A blocking executor (one thread, actor or process per rank) completes every call before
/// returning. A cooperative executor (all ranks in one thread) may answer "not yet" from
/// finish_exchange(); the driver then moves on to another rank and asks again later.
class StepExecutor {
 public:
  virtual ~StepExecutor() = default;

  /// Posts the send of `step.send` to `step.send_peer` and the receive of `step.recv` from
  /// `step.recv_peer` (either may be absent: peer -1), compressed when `step.compressed`.
  /// The block sent is read before any received data lands. Called once per exchange step.
  virtual void start_exchange(int rank, const Step& step) = 0;
  /// Completes the exchange posted by start_exchange(): true when both the send and the
  /// receive are done; false when the received data has not arrived yet (cooperative
  /// executors only). When the mode is kCopy, the received block is in place on true; when
  /// it is kReduce the driver calls reduce() next.
  virtual bool finish_exchange(int rank, const Step& step) = 0;
  /// Adds the block just received by `step` into the rank's buffer (raw, or compressed
  /// homomorphically when `step.compressed`).
  virtual void reduce(int rank, const Step& step) = 0;
  /// Compresses `step.local` of the raw buffer into the compressed buffer.
  virtual void compress(int rank, const Step& step) = 0;
  /// Decompresses `step.local` of the compressed buffer into the raw buffer, overwriting it
  /// (kCopy) or adding to it (kReduce).
  virtual void decompress(int rank, const Step& step) = 0;
};

/// One rank's walk through its steps of a schedule: the one step interpreter.
class RankCursor {
 public:
  RankCursor(const Schedule& schedule, int rank);

  int rank() const { return rank_; }
  bool done() const { return next_ >= steps_.size(); }
  /// Index of the step in progress (== steps().size() when done).
  std::size_t position() const { return next_; }
  const std::vector<Step>& steps() const { return steps_; }

  /// Runs steps until done or until an exchange's data has not arrived; returns whether
  /// any step was started or finished.
  bool advance(StepExecutor& executor);

 private:
  int rank_;
  std::vector<Step> steps_;
  std::size_t next_ = 0;
  bool started_ = false;  ///< the current exchange step has been posted
};

/// Runs all steps of `rank` with a blocking executor. Throws std::logic_error if the
/// executor answers "not yet" (it is not blocking).
void run_rank(const Schedule& schedule, int rank, StepExecutor& executor);

/// Runs every rank of the schedule in this thread, round-robin, with a cooperative
/// executor. Throws std::logic_error naming the schedule, rank, step and awaited peer when
/// no rank can progress (a schedule that deadlocks).
void run_all_ranks(const Schedule& schedule, StepExecutor& executor);

}  // namespace ccsim::collective
