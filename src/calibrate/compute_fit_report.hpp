#pragma once

#include <string>

#include "calibrate/compute_fit.hpp"
#include "topology/network_model.hpp"

namespace ccsim::calibrate {

/// The text of `ccsim calibrate trace` for `fit`: what was measured, a row per operator kind
/// (overhead, FLOP and byte rates, the exponent where fitted, errors), the fitted operators'
/// total against the measured, a row per kind of traced call (latency, bandwidth, errors and,
/// with `mpi`, what that MPI network model predicts for the same call), then the notes (what
/// was left out and why).
std::string compute_fit_report(const ComputeFit& fit, const topology::NetworkModel* mpi);

}  // namespace ccsim::calibrate
