#pragma once

#include <cstdint>
#include <vector>

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// What an execution moved, per group-local rank.
struct ExecutionStats {
  std::vector<std::uint64_t> bytes_sent;
  std::vector<std::uint64_t> bytes_received;
  std::vector<std::uint64_t> bytes_reduced;
  std::size_t messages = 0;
};

/// Executes a schedule on numbers in memory, one buffer of schedule.count() elements per
/// rank, with buffered (eager) messages matched in order per (sender, receiver) pair.
/// It is the cheap oracle for schedules: a wrong schedule gives a wrong result, a
/// mismatched block size or a cyclic wait throws std::logic_error describing the step.
ExecutionStats execute_in_memory(const Schedule& schedule, std::vector<std::vector<double>>& buffers);

}  // namespace ccsim::collective
