#pragma once

#include <string>

#include "report/summary.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::study {

/// What the summary block needs of the job (report/summary.hpp): the trace's workload and the
/// FLOPs its compute operators carry, and the peak FLOP rate of `platform`'s accelerator.
report::JobFacts job_facts(const trace::Trace& trace, const topology::Platform& platform);

/// `platform`'s accelerator as the hardware a trace was measured on (trace::Hardware: its model,
/// peak FLOP/s and memory bandwidth), its source "NAMED_BY: the accelerator of platform NAME".
trace::Hardware accelerator_hardware(const topology::Platform& platform, const std::string& named_by);

}  // namespace ccsim::study
