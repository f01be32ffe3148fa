#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim::topology {

/// One size interval of a message-cost curve: messages of at least `min_bytes` (up to the
/// next segment's) cost latency_s + bytes / bandwidth_Bps on an otherwise idle path.
struct CostSegment {
  std::uint64_t min_bytes = 0;
  double latency_s = 0;
  double bandwidth_Bps = 0;
  /// A step (false): the values hold up to the next segment, where the cost jumps (a protocol
  /// switch such as an eager limit). A ramp (true): from min_bytes to the next segment's
  /// min_bytes the latency and the time per byte go along a straight line in log(bytes) from
  /// this segment's values to the next one's (a gradual change, such as messages outgrowing a
  /// cache). Needs a next segment and min_bytes > 0.
  bool ramp = false;
};

/// Where a message of `bytes` lies on a ramp from `from` to `to` bytes (0 < from < to): 0 at
/// `from`, 1 at `to`, linear in log(bytes), clamped to [0, 1].
double ramp_weight(double bytes, double from, double to);

/// Limits of a model's figures (models/README.md), which keep every message cost finite and
/// meaningful: a bandwidth of 1e-300 made every message last forever.
inline constexpr double kMaxModelTime_s = 1.0;  ///< a per-message overhead or latency
inline constexpr double kMinModelBandwidth_Bps = 1e3;
inline constexpr double kMaxModelBandwidth_Bps = 1e15;
inline constexpr double kMaxModelReduce_s_per_byte = 1e-3;

/// The cost of a message between two ranks of one tier, in the spirit of SMPI's calibrated
/// factors and LogGP: per-message CPU overheads on the sender and the receiver, plus a
/// piecewise-linear latency and bandwidth by message size (segments sorted by min_bytes, the
/// first at 0).
struct TierModel {
  double send_overhead_s = 0;
  double recv_overhead_s = 0;
  std::vector<CostSegment> segments;
  /// Processes that outnumber their cores hand a core over at every message: the receiver
  /// runs only once the sender yields. Seconds per message on the critical path, paid on top
  /// of the costs stretched by the sharing (on_shared_cores); fitted on 2 processes pinned to
  /// one core (`calibrate network --shared-core`); 0 when not measured. Optional key
  /// `shared_core_handoff_s`.
  double handoff_s = 0;
  /// The smallest message the tier was fitted on (0: none said). Below it the model
  /// extrapolates, continuing the regime its data show at floor_bytes (floor_latency_bound):
  /// where a message of floor_bytes costs mostly latency, a smaller one costs what it does (on
  /// a loopback link a 189-byte message took what a 512-byte one did, not less as the line
  /// gives); where it costs mostly bytes, a smaller one follows the line, latency plus its
  /// bytes at the bandwidth (a 64 KiB compressed chunk on a 1 Gbit/s link fitted from 512 KiB
  /// up does not cost what 512 KiB does). Optional key `floor_bytes`; `calibrate network`
  /// writes it.
  std::uint64_t floor_bytes = 0;
  /// The rate of a link each process has to itself (bytes/s; 0: none), as a NIC per process
  /// or the per-port link of scripts/slowlink.sh: the part of a byte's cost that is the link's
  /// serialisation, 1 / link_Bps, is not stretched when processes share a core
  /// (on_shared_cores); only the rest, the CPU's, is. Optional key `link_bandwidth_Bps`;
  /// `calibrate network` writes it for a series measured through a per-port emulated link.
  double link_Bps = 0;

  /// The latency and bandwidth that apply to a message of `bytes`: its segment's (the last one
  /// whose min_bytes <= bytes; the first also covers smaller messages), or on a ramp the
  /// interpolation between that segment and the next; below floor_bytes, those of floor_bytes,
  /// and when floor_latency_bound() the latency raised by the bytes short of it at the
  /// bandwidth (so that the message costs what one of floor_bytes does). min_bytes and ramp of
  /// the result are the segment's.
  CostSegment at(double bytes) const;
  /// Whether a message of `bytes` lies below the data the tier was fitted on (its cost is an
  /// extrapolation).
  bool extrapolates(double bytes) const { return bytes < static_cast<double>(floor_bytes); }
  /// Whether a message of floor_bytes costs more in latency and overheads than in bytes at the
  /// bandwidth: smaller ones then cost what it does, else they follow the line.
  bool floor_latency_bound() const;
  /// How messages below floor_bytes are priced, as a phrase for notes ("" without a floor).
  std::string extrapolation() const;
  /// send overhead + latency + bytes / bandwidth + receive overhead.
  double message_s(std::uint64_t bytes) const;
};

/// The tier as processes see it that share their cores, `sharing` processes per core (> 1):
/// every overhead and latency `sharing` times longer plus the hand-off, every bandwidth
/// `sharing` times lower (shared memory and loopback TCP move every byte with a CPU). With a
/// link of its own per process (link_Bps > 0), a segment slower than that link pays its
/// seconds per byte as 1 / link_Bps + sharing x (1 / bandwidth - 1 / link_Bps): the wire is
/// not time-shared, the CPU's part is; a segment faster than the link (bytes that left within
/// the link's burst) keeps its bandwidth. The tier itself when `sharing` <= 1.
TierModel on_shared_cores(const TierModel& tier, double sharing);

/// Which measured points a model was fitted on: a series of a measurement file, on one
/// group size, at some buffer sizes.
struct FitRecord {
  std::string file;  ///< the measurement file, as given to the fit
  /// core/fingerprint.hpp's fingerprint of that file's bytes: validate tells the points it was
  /// fitted on by it, whatever the path; "" in models written before it was recorded.
  std::string content;
  std::string series;  ///< ALGORITHM/TRANSPORT, e.g. ring/mpi
  std::string group;   ///< the group kind chosen with --group; "" when none was (the series ran on one)
  int ranks = 0;
  std::vector<std::uint64_t> bytes;  ///< each rank's buffer, one per fitted point
  /// The measured processes' CPU affinity (calibrate::affinity_summary: "per process: 0 | 1"),
  /// "" when the measurement did not record it.
  std::string affinity;
};

/// A size-dependent network model (models/network/NAME.json, format "ccsim-network-model"):
/// a TierModel between ranks of one node (`intra`) and between nodes (`inter`), with where
/// and how it was measured. A platform references one by name; without one the engine runs
/// SimGrid's plain flow model.
struct NetworkModel {
  std::string name;
  std::string description;
  std::string hardware;  ///< where it was measured
  std::string source;    ///< the measurement file(s) and the command that fitted it
  bool has_intra = false;
  bool has_inter = false;
  TierModel intra;
  TierModel inter;
  /// Reduction time per byte found by the fit alongside the network (0 when the fit could
  /// not tell it from the bandwidth and folded it in there); optional key `reduce_s_per_byte`.
  double reduce_s_per_byte = 0;
  /// The measured points the model was fitted on, so that a validation can keep fitted and
  /// held-out points apart; optional key `fitted_on`.
  std::optional<FitRecord> fitted_on;
  std::string file;  ///< where it was read from; empty when built in memory
};

inline constexpr const char* kNetworkModelFormat = "ccsim-network-model";
inline constexpr int kNetworkModelVersion = 1;

/// Reads a network model file strictly (unknown keys, negative or non-finite values,
/// unsorted segments are InputError naming file, line and field).
NetworkModel read_network_model(const std::string& path);
/// read_network_model() of text already in memory; `source` names it in messages.
NetworkModel parse_network_model(std::string_view text, const std::string& source);
/// The JSON text of a model, in the layout read_network_model() reads.
std::string write_network_model(const NetworkModel& model);

}  // namespace ccsim::topology
