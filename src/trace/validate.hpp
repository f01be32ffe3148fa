#pragma once

#include <cstddef>
#include <functional>
#include <optional>

#include "core/input_error.hpp"
#include "trace/trace.hpp"

namespace ccsim::trace {

/// Cross-rank checks that every reader's output must pass before a replay:
/// every send has a matching recv (same peer pair and tag, in order) of the same size, and
/// the members of a group call the same sequence of collectives on it (kind, bytes, dtype,
/// root). Throws InputError at the offending operator's line.
void validate(const Trace& trace);

/// Where a reader took operator `index` of `rank` from, when that is not the trace's own file
/// and line (an importer's source event); nullopt: the trace's.
using OpOrigin = std::function<std::optional<SourceRef>(int rank, std::size_t index)>;
/// validate, naming the offending operator's origin (and its place in the trace as written).
void validate(const Trace& trace, const OpOrigin& origin);

}  // namespace ccsim::trace
