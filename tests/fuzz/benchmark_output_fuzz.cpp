// Measurements from other benchmarks (src/calibrate/benchmark_output): OSU osu_allreduce and
// osu_latency output, nccl-tests all_reduce_perf output, CSV, and ccsim's own JSON, as
// `calibrate network` and `validate` read them. Byte 0 gives the process count the command
// line would (--ranks), or none.

#include <cmath>
#include <optional>

#include "calibrate/benchmark_output.hpp"
#include "fuzz_target.hpp"

CCSIM_FUZZ_TARGET(benchmark_output) {
  if (size == 0) return 0;
  const std::optional<int> ranks = data[0] % 4 == 0 ? std::nullopt : std::optional<int>(1 + data[0] / 4);
  ccsim::fuzz::input_errors_only([&] {
    const ccsim::calibrate::MeasurementFile file =
        ccsim::calibrate::parse_benchmark_output(ccsim::fuzz::as_text(data + 1, size - 1), "fuzz.txt", ranks);
    // Every point read is a positive finite time of a group of at least one process.
    for (const auto& p : file.series) {
      if (!(p.median_s > 0) || !std::isfinite(p.median_s) || p.group_size < 1) __builtin_trap();
    }
    for (const auto& p : file.p2p) {
      if (!(p.median_s > 0) || !std::isfinite(p.median_s)) __builtin_trap();
    }
    (void)ccsim::calibrate::core_sharing(file);
    (void)ccsim::calibrate::affinity_summary(file);
  });
  return 0;
}
