#pragma once

#include "trace/trace.hpp"

namespace ccsim::trace {

/// Cross-rank checks that every reader's output must pass before a replay:
/// every send has a matching recv (same peer pair and tag, in order) of the same size, and
/// the members of a group call the same sequence of collectives on it (kind, bytes, dtype,
/// root). Throws InputError at the offending operator's line.
void validate(const Trace& trace);

}  // namespace ccsim::trace
