#pragma once

#include <string>
#include <vector>

#include "topology/network.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine {

/// Maps the ranks of a trace onto the accelerators of a platform.
///
/// Policies (the `--placement` option):
///   "auto"         the trace's own "placement" if it has one, else "tp,pp,dp"
///   "tp,pp,dp"     nesting order, innermost first: tensor-parallel groups on consecutive
///                  accelerators (inside a node; where nodes cannot hold whole groups, such as
///                  one-accelerator nodes, on neighbouring nodes under one switch: a supernode),
///                  then pipeline stages, data parallel outermost; any permutation of tp, pp
///                  and dp is accepted
///   "rank-order"   rank r on accelerator r
///   "map:a,b,..."  rank r on accelerator a_r
/// Ranks are sorted by their (dp, pp, tp) coordinates in the requested nesting (rank id breaks
/// ties) and take accelerators in that order, so any trace gets a permutation. Returns the
/// accelerator of each rank; a placement that does not fit the platform is an InputError
/// saying why (too few accelerators, a tensor-parallel group that can stay neither inside a
/// node nor under one switch, a map that is not a permutation).
/// With `oversubscribe`, a trace with more ranks than accelerators wraps around (slot s on
/// accelerator s % accelerators): ranks on one accelerator share its compute, as processes
/// share the cores of an oversubscribed machine, and talk through its memory (a loopback at
/// half its memory bandwidth).
std::vector<int> place_ranks(const trace::Trace& trace, const topology::Network& network, const std::string& policy,
                             bool oversubscribe = false);

/// The policy place_ranks() applies for `policy` ("auto" resolved), for reports.
std::string resolve_placement(const trace::Trace& trace, const std::string& policy);

/// On a platform of CPU ranks (AcceleratorSpec::cpu_core), the ranks per core of the node
/// that `placement` loads most, when they outnumber its cores; 1 otherwise.
double cpu_core_sharing(const topology::Network& network, const std::vector<int>& placement);

}  // namespace ccsim::engine
