#pragma once

#include <string>
#include <vector>

#include "calibrate/compute_fit.hpp"
#include "topology/network_model.hpp"

namespace ccsim::calibrate {

/// The text of `ccsim calibrate trace` for `fit`: what was measured, a row per operator kind
/// (overhead, FLOP and byte rates, the exponent where fitted, errors), the fitted operators'
/// total against the measured, a row per kind of traced call (latency, bandwidth, errors and,
/// with `mpi`, what that MPI network model predicts for the same call), then the notes (what
/// was left out and why).
std::string compute_fit_report(const ComputeFit& fit, const topology::NetworkModel* mpi);

/// `ccsim calibrate trace`'s request as typed: the traces, the fit's choices in words, and the
/// model's file and name.
struct ComputeFitArgs {
  std::vector<std::string> traces;
  std::string objective = "total";    ///< "total" or "relative" (FitObjective)
  std::string flop_exponent = "fit";  ///< "fit" or "1" (FlopExponent)
  std::string output;                 ///< the model's file
  std::string name;                   ///< the model's name; empty: the output's stem, else "compute"
};

/// The model of `fit` as `calibrate trace` writes it: named as `args` says, described, and with
/// the command line that makes it again.
ComputeModel compute_model_of(const ComputeFit& fit, const ComputeFitArgs& args);

}  // namespace ccsim::calibrate
