#include "calibrate/compute_backend.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "calibrate/network_fit.hpp"
#include "core/input_error.hpp"

namespace ccsim::calibrate {
namespace {

constexpr const char* kAlgorithm = "ring";

topology::TierModel one_segment(double latency_s, double bandwidth_Bps) {
  topology::TierModel tier;
  tier.segments.push_back({0, latency_s, bandwidth_Bps});
  return tier;
}

/// Latency count, bytes on the critical path and reduction time of one call under the
/// replay's schedule: the call costs a * latency + b / bandwidth + c.
struct Terms {
  double latencies = 0;
  double bytes = 0;
  double reduce_s = 0;
};

Terms terms_of(const CallSample& call, double reduce_s_per_byte) {
  if (call.kind == trace::OpKind::kSend) return {1, call.bytes, 0};
  SeriesPoint point;
  point.op = "all_reduce";
  point.implementation = "mpi-library";
  point.algorithm = "gloo";
  point.group_size = call.ranks;
  point.bytes = static_cast<std::uint64_t>(call.bytes);
  SeriesChoice choice;
  choice.algorithm = "gloo";
  choice.library_schedule = kAlgorithm;
  const auto schedule = schedule_for(point, choice);
  constexpr double kInfinite = 1e300;
  Terms t;
  t.reduce_s = predict_s(*schedule, one_segment(0, kInfinite), reduce_s_per_byte);
  t.latencies = predict_s(*schedule, one_segment(1, kInfinite), 0);
  t.bytes = predict_s(*schedule, one_segment(0, 1), 0);
  return t;
}

}  // namespace

BackendFit fit_backend(const std::vector<CallSample>& calls, double reduce_s_per_byte, double fallback_bandwidth_Bps,
                       const std::string& hardware, const std::string& source, const std::string& what) {
  BackendFit fit;
  fit.algorithm = kAlgorithm;
  std::vector<CallSample> used;
  int other = 0;
  for (const CallSample& c : calls) {
    if (c.kind == trace::OpKind::kSend || c.kind == trace::OpKind::kAllReduce)
      used.push_back(c);
    else
      ++other;
  }
  if (other > 0)
    fit.notes.push_back(
        fmt::format("{} calls of other collectives than all_reduce left out of the backend fit", other));
  if (used.empty()) {
    throw InputError(what, 0, "calls",
                     "no all_reduce or send/recv call with a measured time (measured_ms): the traced backend's cost "
                     "cannot be fitted");
  }
  std::vector<std::vector<double>> cols(2, std::vector<double>(used.size()));
  std::vector<double> y(used.size());
  std::vector<Terms> terms;
  std::set<double> sizes;
  for (std::size_t i = 0; i < used.size(); ++i) {
    terms.push_back(terms_of(used[i], reduce_s_per_byte));
    cols[0][i] = terms[i].latencies;
    cols[1][i] = terms[i].bytes;
    // The reduction is the platform's; what remains is the messages' (at least a microsecond).
    y[i] = std::max(used[i].time_s - terms[i].reduce_s, 1e-6);
    sizes.insert(used[i].bytes);
  }
  double latency_s = 0;
  double bandwidth_Bps = 1e15;  // no size term: bytes cost nothing measurable
  if (sizes.size() >= 2) {
    const NnlsResult r = fit_relative_nnls(cols, y, {true, true}, 2, FitObjective::kTotal);
    if (!r.ok) throw InputError(what, 0, "calls", "no least-squares solution for the traced calls");
    latency_s = r.x[0];
    if (r.x[1] > 0) bandwidth_Bps = 1 / r.x[1];
  } else {
    // One size cannot tell latency from bandwidth: the bandwidth is the platform's, the
    // latency takes the rest (least squares: the mean over the calls).
    bandwidth_Bps = fallback_bandwidth_Bps;
    double sum = 0, weight = 0;
    for (std::size_t i = 0; i < used.size(); ++i) {
      sum += cols[0][i] * (y[i] - cols[1][i] / bandwidth_Bps);
      weight += cols[0][i] * cols[0][i];
    }
    latency_s = std::max(0.0, sum / weight);
    fit.notes.push_back(
        fmt::format("the traced calls have one size ({} B): the latency is fitted, the bandwidth is the "
                    "platform's ({:.4g} MB/s)",
                    *sizes.begin(), bandwidth_Bps / 1e6));
  }
  double log_sum = 0;
  for (std::size_t i = 0; i < used.size(); ++i) {
    const double p = terms[i].latencies * latency_s + terms[i].bytes / bandwidth_Bps + terms[i].reduce_s;
    fit.measured_s += used[i].time_s;
    fit.predicted_s += p;
    log_sum += std::fabs(std::log(std::max(p, 1e-300) / used[i].time_s));
  }
  fit.calls = static_cast<int>(used.size());
  fit.gmean_error = std::exp(log_sum / static_cast<double>(used.size())) - 1;

  topology::NetworkModel& m = fit.model;
  m.name = "traced-backend";
  m.description = fmt::format(
      "the traced backend's calls as one intra-node tier: latency + bytes / bandwidth per message, fitted by least "
      "squares on {} calls through the {} schedule (all_reduce) and one message (send/recv)",
      fit.calls, kAlgorithm);
  m.hardware = hardware;
  m.source = source;
  m.has_intra = true;
  m.intra = one_segment(latency_s, bandwidth_Bps);
  m.reduce_s_per_byte = reduce_s_per_byte;
  return fit;
}

double model_call_s(const topology::NetworkModel& model, const CallModel& call, std::uint64_t bytes) {
  const topology::TierModel& tier = model.has_intra ? model.intra : model.inter;
  if (call.kind == trace::OpKind::kSend) return tier.message_s(bytes);
  if (call.kind != trace::OpKind::kAllReduce) return std::nan("");
  SeriesPoint point;
  point.op = "all_reduce";
  point.implementation = "mpi-library";
  point.algorithm = "MPI_Allreduce";
  point.transport = "mpi";
  point.group_size = call.ranks;
  point.bytes = bytes;
  SeriesChoice choice;
  choice.algorithm = "MPI_Allreduce";
  auto schedule = schedule_for(point, choice);
  return predict_s(*schedule, tier, model.reduce_s_per_byte);
}

}  // namespace ccsim::calibrate
