#include "support.hpp"

#include <catch2/catch.hpp>

#include <cmath>

namespace ccsim::collective::testing {

std::vector<std::uint64_t> counts_for(int p) {
  auto up = static_cast<std::uint64_t>(p);
  return {0, 1, up - 1 > 1 ? up - 1 : 2, up, up + 1, 3 * up + 2, 64, 101};
}

Buffers distinct_inputs(int p, std::uint64_t count) {
  Buffers buffers(static_cast<std::size_t>(p), std::vector<double>(count));
  for (int r = 0; r < p; ++r) {
    for (std::uint64_t i = 0; i < count; ++i)
      buffers[static_cast<std::size_t>(r)][i] = r * 1000.0 + static_cast<double>(i);
  }
  return buffers;
}

double distinct_sum(int p, std::uint64_t i) {
  return 1000.0 * p * (p - 1) / 2 + static_cast<double>(p) * static_cast<double>(i);
}

Buffers off_grid_inputs(int p, std::uint64_t count) {
  Buffers buffers(static_cast<std::size_t>(p), std::vector<double>(count));
  for (int r = 0; r < p; ++r) {
    for (std::uint64_t i = 0; i < count; ++i) {
      buffers[static_cast<std::size_t>(r)][i] = std::fmod(r * 10.0 + 0.37 * static_cast<double>(i), 50.0) + 0.1;
    }
  }
  return buffers;
}

double quantize(double x, double eb) { return 2 * eb * std::round(x / (2 * eb)); }

Quantizer grid_quantizer(double eb) {
  return [eb](std::span<double> values) {
    for (double& x : values) x = quantize(x, eb);
  };
}

ExecutionStats require_all_reduced(const Schedule& schedule) {
  const int p = schedule.size();
  Buffers buffers = distinct_inputs(p, schedule.count());
  ExecutionStats stats = execute_in_memory(schedule, buffers);
  for (int r = 0; r < p; ++r) {
    for (std::uint64_t i = 0; i < schedule.count(); ++i) {
      INFO(schedule.name() << ": p=" << p << " count=" << schedule.count() << " rank=" << r << " i=" << i);
      REQUIRE(buffers[static_cast<std::size_t>(r)][i] == distinct_sum(p, i));
    }
  }
  return stats;
}

std::vector<double> sum_over_ranks(const Buffers& buffers) {
  std::vector<double> sum(buffers.empty() ? 0 : buffers.front().size(), 0.0);
  for (const auto& buffer : buffers) {
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += buffer[i];
  }
  return sum;
}

std::uint64_t compressed_wire_bytes(const Schedule& schedule, const compress::CompressorCost& compressor) {
  std::uint64_t total = 0;
  const auto element_bytes = static_cast<std::uint64_t>(schedule.element_bytes());
  for (int r = 0; r < schedule.size(); ++r) {
    for (const Step& step : schedule.steps(r)) {
      if (step.kind == StepKind::kExchange && step.compressed && step.send_peer >= 0) {
        total += compressor.wire_bytes(step.send.count * element_bytes);
      }
    }
  }
  return total;
}

}  // namespace ccsim::collective::testing
