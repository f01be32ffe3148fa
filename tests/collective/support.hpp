#pragma once

#include <cstdint>
#include <vector>

#include "collective/memory_executor.hpp"
#include "collective/schedule.hpp"

// Helpers shared by the tests of src/collective/.
namespace ccsim::collective::testing {

using Buffers = std::vector<std::vector<double>>;

/// The group sizes every schedule is checked on.
inline const std::vector<int> kSizes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 16};

/// Buffer lengths worth checking for a group of p: empty, one element, p - 1, multiples of p
/// and non-multiples.
std::vector<std::uint64_t> counts_for(int p);

/// Rank r holds r * 1000 + i at element i, so every element of a sum is distinct and exact.
Buffers distinct_inputs(int p, std::uint64_t count);
/// Element i of the sum of distinct_inputs(p, ...) over the ranks.
double distinct_sum(int p, std::uint64_t i);

/// Values off the quantization grid: r * 10 + 0.37 i + 0.1 (mod 50, to stay small).
Buffers off_grid_inputs(int p, std::uint64_t count);

/// The error-bounded quantizer x -> 2 eb round(x / (2 eb)): |error| <= eb, and quantized values
/// lie on one grid, so compressed blocks add exactly (homomorphic). Pick eb a power of two.
Quantizer grid_quantizer(double eb);
/// The same on one value.
double quantize(double x, double eb);

/// Runs `schedule` on distinct_inputs() and REQUIREs that every rank ends with the sum of every
/// element (all_reduce); returns the execution's statistics.
ExecutionStats require_all_reduced(const Schedule& schedule);

/// Element-wise sum over the ranks.
std::vector<double> sum_over_ranks(const Buffers& buffers);

/// The raw bytes on the wire of every compressed send of the schedule, rounded per message
/// as the engine rounds them (compressor.wire_bytes), summed over all ranks.
std::uint64_t compressed_wire_bytes(const Schedule& schedule, const compress::CompressorCost& compressor);

/// A schedule of explicit steps per rank, to feed the executors hand-made (broken) ones;
/// it passes for the ring all_reduce.
class ListedSchedule final : public Schedule {
 public:
  ListedSchedule(std::uint64_t count, std::vector<std::vector<Step>> steps)
      : Schedule(static_cast<int>(steps.size()), count, 4), steps_(std::move(steps)) {}
  Algorithm algorithm() const override { return Algorithm::kRingAllReduce; }  // named "ring" in messages
  std::vector<Step> steps(int rank) const override { return steps_[static_cast<std::size_t>(rank)]; }
  double cost(const CostParams&) const override { return 0; }

 private:
  std::vector<std::vector<Step>> steps_;
};

/// A rank's share of `bytes` that the textbook figure k/p * n gives, exact when p divides n.
inline std::uint64_t share(std::uint64_t n, int k, int p) {
  return n * static_cast<std::uint64_t>(k) / static_cast<std::uint64_t>(p);
}

}  // namespace ccsim::collective::testing
