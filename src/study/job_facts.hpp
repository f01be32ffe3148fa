#pragma once

#include "report/summary.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::study {

/// What the summary block needs of the job (report/summary.hpp): the trace's workload and the
/// FLOPs its compute operators carry, and the peak FLOP rate of `platform`'s accelerator.
report::JobFacts job_facts(const trace::Trace& trace, const topology::Platform& platform);

}  // namespace ccsim::study
