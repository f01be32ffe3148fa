#pragma once

#include <ostream>

#include "trace/trace.hpp"

namespace ccsim::trace {

/// Writes `trace` in the native format (traces/README.md), so that what the readers accept
/// round-trips: read(write(t)) describes t. Version 2 writes the trace's programs as they are
/// (one per line, with the ranks that run them); version 1 expands them, one rank per line,
/// every partner resolved to a global rank.
void write_native(const Trace& trace, std::ostream& out, int version);

}  // namespace ccsim::trace
