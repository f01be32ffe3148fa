#pragma once

// Engine-internal (Simulation): why a simulation that stopped with operators left cannot progress.

#include <string>

#include "trace/trace.hpp"

namespace ccsim::engine {

struct ReplicaFolding;

namespace detail {

class CollectiveRunner;
class StreamLanes;

/// The message of the SimulationError of a simulation whose actors all wait with operators
/// left (SimGrid ran out of events): at the current simulated time, how many ranks are
/// blocked and, for the first eight blocked lanes, the operator each is in and what it waits
/// for (an operator of another stream, a peer's send or receive, the members of a collective
/// that never reached it, a step's peer), with where that peer is. Ranks of folded replicas
/// (`folding`) are where their images are, and are not listed.
std::string explain_deadlock(const trace::Trace& trace, const StreamLanes& lanes, const CollectiveRunner& collectives,
                             const ReplicaFolding& folding);

}  // namespace detail
}  // namespace ccsim::engine
