#pragma once

#include "engine/result.hpp"
#include "trace/trace.hpp"

namespace ccsim::study {

/// A trace's own durations as an engine::Result, nothing simulated (`ccsim trace inspect`):
/// each stream's operators back to back from 0, each after the operators it names; compute
/// for its duration_ms, collectives and transfers for their measured_ms where the trace
/// records one (an import does), else 0. `algorithm` says which calls were measured, and a
/// note counts the compute operators without a duration (FLOPs only, 0 here). The ranks of
/// one program share one record list (RankRecords::share): a trace of many identical ranks
/// costs its programs, not its ranks.
engine::Result measured_result(const trace::Trace& trace);

}  // namespace ccsim::study
