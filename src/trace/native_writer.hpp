#pragma once

#include <ostream>

#include "trace/trace.hpp"

namespace ccsim::trace {

/// Writes `trace` in the native format (ccsim-trace version 1, traces/README.md), one rank
/// per line, so that what the readers accept round-trips: read(write(t)) describes t.
void write_native(const Trace& trace, std::ostream& out);

}  // namespace ccsim::trace
