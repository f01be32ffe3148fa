#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ccsim::topology {

/// One size interval of a message-cost curve: messages of at least `min_bytes` (up to the
/// next segment's) cost latency_s + bytes / bandwidth_Bps on an otherwise idle path.
struct CostSegment {
  std::uint64_t min_bytes = 0;
  double latency_s = 0;
  double bandwidth_Bps = 0;
};

/// The cost of a message between two ranks of one tier, in the spirit of SMPI's calibrated
/// factors and LogGP: per-message CPU overheads on the sender and the receiver, plus a
/// piecewise-linear latency and bandwidth by message size (segments sorted by min_bytes, the
/// first at 0).
struct TierModel {
  double send_overhead_s = 0;
  double recv_overhead_s = 0;
  std::vector<CostSegment> segments;

  /// The segment that applies to a message of `bytes`.
  const CostSegment& segment(std::uint64_t bytes) const;
  /// send overhead + latency + bytes / bandwidth + receive overhead.
  double message_s(std::uint64_t bytes) const;
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
  std::string file;  ///< where it was read from; empty when built in memory
};

/// Reads a network model file strictly (unknown keys, negative or non-finite values,
/// unsorted segments are InputError naming file, line and field).
NetworkModel read_network_model(const std::string& path);
/// The JSON text of a model, in the layout read_network_model() reads.
std::string write_network_model(const NetworkModel& model);

}  // namespace ccsim::topology
