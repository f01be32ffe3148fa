// The reader of a traced run's summary.json (gen_traces.py's, `ccsim predict --config`, and
// beside a native trace): its iteration times, timed steps, machine, configuration and the
// per-rank breakdown rows.

#include <cmath>
#include <sstream>
#include <string>

#include "fuzz_target.hpp"
#include "import/kineto.hpp"

CCSIM_FUZZ_TARGET(run_summary) {
  ccsim::fuzz::input_errors_only([&] {
    std::istringstream in{std::string(ccsim::fuzz::as_text(data, size))};
    const ccsim::import::RunSummary s = ccsim::import::read_run_summary(in, "fuzz.summary.json");
    // Rows are indexed by a rank of the run (at most 2^20 processes); steps are times.
    if (s.rows.size() > (std::size_t{1} << 20)) __builtin_trap();
    for (double ms : s.unprofiled_step_ms) {
      if (!(ms > 0) || !std::isfinite(ms)) __builtin_trap();
    }
    if (s.gemm_probe_gflops < 0 || !std::isfinite(s.gemm_probe_gflops)) __builtin_trap();
  });
  return 0;
}
