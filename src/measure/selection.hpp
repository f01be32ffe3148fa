#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "measure/measurement.hpp"

namespace ccsim::measure {

/// What `ccsim measure` is asked to measure, as its options give it (text), before it is
/// checked: comma-separated lists and a size range.
struct Selection {
  std::string ops = "all_reduce";       ///< --op
  std::string algorithms = "mpi,ring";  ///< --algo
  std::string transports = "mpi";       ///< --transport
  std::string sizes = "1KiB:64MiB:x4";  ///< --sizes
  std::string layout;                   ///< --layout tp=T,pp=P,dp=D; empty: none
  std::string groups = "world";         ///< --groups
};

/// Checks `selection` and sets the collectives, algorithms, transports, sizes, groups and
/// layout of `options` (and checks its codec). A list that selects nothing, a malformed size,
/// layout or codec is an InputError naming the option ("command line", field --op, ...); an
/// unknown name is an UnknownNameError that lists the choices; an algorithm that runs on none
/// of the collectives asked for is an InputError.
void apply_selection(const Selection& selection, MeasureOptions& options);

/// "1KiB:256MiB" (powers of two), "1KiB:256MiB:x4" (every factor of 4), or a list
/// "4KiB,1MiB,3MB"; throws InputError (file "command line", field `field`).
std::vector<std::uint64_t> parse_size_list(const std::string& text, const std::string& field);

}  // namespace ccsim::measure
