#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "compress/compressor_model.hpp"
#include "engine/result.hpp"
#include "topology/compute_cost.hpp"
#include "topology/network_model.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine {

/// How SimGrid's flow model is configured. The defaults give a lone flow the nominal
/// bandwidth of its bottleneck and the sum of its links' latencies: no TCP-gamma window
/// cap, no cross-traffic, no correction factors. A calibration may set the factors, or give
/// a size-dependent model (then the two constant factors must stay 1).
struct NetworkModel {
  double bandwidth_factor = 1.0;
  double latency_factor = 1.0;
  std::string source = "default";  ///< where the factors come from
  /// A calibrated size-dependent model (models/network/): a lone message of s bytes between
  /// two ranks costs send overhead (sender's CPU) + latency_k + s / bandwidth_k + receive
  /// overhead (receiver's CPU) of its tier k (same node: intra, else inter) and segment,
  /// whatever the platform's nominal link figures; concurrent flows still share the links.
  /// nullptr: the plain flow model.
  std::shared_ptr<const topology::NetworkModel> calibrated;
  /// The calibrated model describes processes with a core each (`calibrate network` divides a
  /// run on shared cores by its sharing). On a platform of CPU ranks whose nodes run more
  /// ranks than cores, its intra tier is then stretched by that sharing
  /// (topology::on_shared_cores: every cost x ranks per core, plus the tier's core hand-off
  /// per message). false: the model was fitted on runs that shared their cores as the replay
  /// does (`ccsim predict --traced` of such a run), and applies as it is.
  bool per_core = true;

  /// The configuration as a sentence, printed with every result.
  std::string describe() const;
};

/// Which collectives are compressed, with which compressor at which operating point.
struct CompressionOptions {
  std::shared_ptr<const compress::CompressorModel> model;  ///< nullptr: no compression
  compress::Query query;
  /// all_reduces of fewer bytes stay plain (compression cannot pay on latency-bound sizes).
  std::uint64_t min_bytes = 0;
  /// false: an all_reduce of at least min_bytes is compressed only where the closed forms on
  /// its group's links predict the compressed collective faster than the plain one
  /// (CollectivePlanner::decide_compression); true (--compress-all): every such all_reduce is.
  /// Either way the report's notes give both predicted times of each distinct all_reduce.
  bool all = false;

  bool enabled() const { return model != nullptr; }
  /// "cuszp eb=0.001 on the accelerator, where predicted faster", for reports.
  std::string describe() const;
};

struct ReplayOptions {
  NetworkModel network;
  /// Algorithm for all_reduce: a name of collective::algorithms(kAllReduce) or "auto" (the
  /// lowest predicted cost on the platform, CollectivePlanner::choose_by_cost). Other collectives: auto.
  std::string all_reduce_algorithm = "auto";
  /// Compression of all_reduce (the other collectives have no compressed algorithm and run plain).
  CompressionOptions compression;
  /// Placement policy (engine/placement.hpp): "auto", "rank-order", "tp,pp,dp", "map:...".
  std::string placement = "auto";
  /// Allow more ranks than accelerators (they share accelerators; see place_ranks).
  bool oversubscribe = false;
  /// Let SimGrid print its own log (off: only ccsim's messages).
  bool simgrid_log = false;
  /// How the trace's compute durations were obtained (kept, rescaled, from a compute model:
  /// calibrate::adjust_compute), copied into the Result for the report; "" when not said.
  std::string compute;
  /// Compute this many times faster (`--set compute.scale=F`): measured compute durations are
  /// divided by it (operators in FLOPs follow the platform's FLOP rate, which the setting scales).
  double compute_scale = 1.0;
  /// Prices every compute operator (topology/compute_cost.hpp); null: the measured duration /
  /// compute_scale where there is one, else the platform's peak rates (PeakCost).
  std::shared_ptr<const topology::ComputeCost> compute_cost;
  /// The trace's compute durations are those of a rank with a core of its own (a compute
  /// model's, `--compute model:FILE`, predict), not measured under the traced run's sharing:
  /// on a platform of CPU ranks they time-share their node's cores as operators given in
  /// FLOPs do (SimGrid executions on a host of cores_per_node cores: a rank computing while
  /// more ranks than cores compute gets cores / computing ranks of a core).
  bool dedicated_durations = false;
  /// Stack of each simulated rank (SimGrid context), KiB.
  int stack_kib = 256;
  /// The exact shortcuts (the CLI's default; `--full` turns them off): a rank alone on its
  /// accelerator runs each of its runs of consecutive compute operators as one busy period
  /// (one SimGrid activity instead of one per operator; each operator's times follow by
  /// addition), and a collective whose messages cannot slow one another down runs as its
  /// critical path (CollectiveShortcuts, engine/collective_shortcuts.hpp). The times are those of
  /// the full replay up to floating-point rounding and SimGrid's timing precision (the last
  /// digits of a printed time may differ). Fabric links that the job cannot fill are left out
  /// of SimGrid's sharing (leave_out_links in engine/simulation.cpp: same times, smaller systems to solve).
  bool fast = false;
  /// With `fast`, the one shortcut that is not exact (the CLI's `--fast`): an uncompressed ring
  /// of more than 16 steps whose messages may share links, reached by its members together,
  /// runs in 16 coarse steps (CoarseRings, engine/coarse_rings.hpp; within 1 % of the full replay's iteration in
  /// the tests), and the report notes it.
  bool coarse_rings = false;
  /// With `fast`: a collective whose messages cross fabric links that the whole job could fill
  /// runs as its critical path on the speculation that nothing else crosses them meanwhile,
  /// checked once the replay is over (GuardedLinks, engine/guarded_links.hpp); replay() runs a
  /// job that breaks it again with this off, and notes why. Off: such collectives run message
  /// by message.
  bool guarded_links = true;
  /// With `fast`: data-parallel replicas that are copies of another replica in simulated time
  /// are simulated once (engine/replica_fold.hpp). Off only to compare with the replay that
  /// simulates every replica.
  bool fold_replicas = true;
  /// A collective that runs message by message runs as events of SimGrid's kernel, without its
  /// members' actors (EventSteps, engine/event_steps.hpp: the same messages and busy periods at
  /// the same times, without a context switch per message), where no message has a bound of its
  /// own. Off only to compare with the replay through the actors.
  bool event_steps = true;
  /// Record each interval a rank waits for its peers (Result::waits, for timelines); the total
  /// per operator (OpRecord::wait_s) is always recorded. Off by default: a large replay waits
  /// in many collective steps.
  bool wait_spans = false;
  /// Show the replay's progress on stderr ("replay: 42 % ...", core/progress.hpp) when it runs
  /// longer than two seconds: the CLI sets it when stderr is a terminal.
  bool progress = false;
};

/// A simulation that cannot progress: names the blocked ranks, their operator (index and
/// name) and what each waits for.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Replays a validated trace on a platform with SimGrid and returns per-operator timings.
/// The simulation runs in a child process, because SimGrid's engine is a process-wide
/// singleton that cannot be reset: so replay() may be called any number of times.
/// Throws SimulationError (deadlock), InputError (a trace that does not fit the platform)
/// or std::runtime_error (the simulation process died).
Result replay(const trace::Trace& trace, const topology::Platform& platform, const ReplayOptions& options);

}  // namespace ccsim::engine
