#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/compute_fit.hpp"
#include "topology/network_model.hpp"

namespace ccsim::calibrate {

/// The traced communication backend (gloo over loopback in the shared runs) as a network
/// model the engine replays: one intra-node tier `latency + bytes / bandwidth` per message,
/// fitted to the traced calls through the schedules the replay runs (all_reduce: the
/// `algorithm` schedule of its group size, whose critical path counts its messages and
/// reductions; send/recv: one message), by least squares on absolute residuals (the calls'
/// total time is kept). The backend's cost is far above an MPI model's on the same machine:
/// this is what `ccsim predict` replays collectives and transfers with.
struct BackendFit {
  topology::NetworkModel model;
  std::string algorithm;  ///< the all_reduce schedule the fit assumed and the replay must run
  int calls = 0;
  double gmean_error = 0;  ///< over the fitted calls (exp(mean |ln(predicted / measured)|) - 1)
  double measured_s = 0;   ///< sum of the calls' times
  double predicted_s = 0;  ///< sum of the model's times for them
  std::vector<std::string> notes;
};

/// Fits the tier to `calls` (ComputeFit::call_samples). `reduce_s_per_byte`: the platform's
/// reduction cost, subtracted from each all_reduce; `hardware` and `source` describe the
/// model. Calls of other collective kinds than all_reduce are left out (said in notes). An
/// InputError (naming `what`) when no call is left.
/// `fallback_bandwidth_Bps`: the per-message bandwidth when the calls have one size (which
/// cannot tell latency from bandwidth): then only the latency is fitted (the platform's own
/// network model's bandwidth is what `ccsim predict` passes; said in notes).
BackendFit fit_backend(const std::vector<CallSample>& calls, double reduce_s_per_byte, double fallback_bandwidth_Bps,
                       const std::string& hardware, const std::string& source, const std::string& what);

/// What a calibrated network model of an MPI series predicts for one call of `call`'s kind and
/// group at `bytes`, on its intra tier (else its inter tier): the critical path of the schedule
/// ccsim chooses for MPI_Allreduce, or one message for send/recv; NaN for the other kinds.
double model_call_s(const topology::NetworkModel& model, const CallModel& call, std::uint64_t bytes);

}  // namespace ccsim::calibrate
