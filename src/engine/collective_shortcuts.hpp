#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collective/critical_path_executor.hpp"
#include "engine/collective_plan.hpp"
#include "engine/guarded_links.hpp"
#include "engine/network_factors.hpp"
#include "engine/replay.hpp"
#include "topology/network.hpp"
#include "trace/trace.hpp"
#include "core/index.hpp"

namespace ccsim::engine {

class WorldLoad;

/// The NIC link that accelerator `a`'s messages to other nodes take (Network::route: local
/// accelerator k uses NIC k mod nics); no link (the largest index) on a platform without NICs.
std::uint32_t nic_link_of(const topology::Network& network, int a);

/// The engine's shortcut for collectives whose messages are independent flows: each message
/// then takes what a lone message of its size takes on its path, whatever else is in flight,
/// so every rank's end follows from the ranks' starts by the critical path of the schedule
/// (collective::critical_path_ends_s) instead of one SimGrid activity per message. A message
/// is independent when
///  - no link of its path can bind: on every link (per direction for full-duplex links), the
///    lone rates of the group's senders that cross it add up to at most its capacity (a
///    sender has one send in flight at a time); a lone rate is its path's bottleneck;
///  - no other message can slow it down: accelerator links of the group's ranks, and NIC
///    links of one accelerator whose rank is in the group (a message has an end there, and a
///    rank moves data only in its own operators); any other link only when everything the
///    whole job can have in flight across it at once fits in its capacity (world_fits: each
///    rank sends one message and receives one at a time). A link shared by several members
///    is no exception: a member that has not reached the collective yet may still move its
///    own messages across it while early members' already do. With
///    ReplayOptions::guarded_links, a fabric link that fails that bound is guarded instead:
///    the collective runs as its critical path, and after the replay GuardedLinks checks that
///    nothing else crossed the link meanwhile (else replay() runs the job again without);
///  - its ranks each have an accelerator of their own, and a calibrated network model charges
///    no per-message CPU overheads and has data for every message (its latency and bandwidth by
///    size are then the message's lone time, Path::seconds);
/// and every rank's end depends on every rank's start (all_reduce, all_gather, reduce_scatter,
/// all_to_all): a rank that reaches the collective first waits for the last one, then all
/// end at the times of the critical path from their own starts, which is what the full
/// replay gives when no message can slow another down. It is part of `ReplayOptions::fast`:
/// the full replay reaches the same times through SimGrid's clock, whose rounding and timing
/// precision (1e-9 s per event) the critical path does not repeat digit for digit.
class CollectiveShortcuts {
 public:
  /// With `planner`, a link that ranks outside a group may use is no bar when everything the
  /// whole job can send across it at once fits in its capacity (see world_fits); without,
  /// such links refuse the shortcut.
  CollectiveShortcuts(const trace::Trace& trace, const topology::Network& network, const std::vector<int>& placement,
                      const ReplayOptions& options, CollectivePlanner* planner = nullptr);
  ~CollectiveShortcuts();  // WorldLoad is complete in the .cpp

  /// Why `plan` on group `group` must run message by message; "" when the shortcut applies.
  /// Decided once per (schedule, group).
  const std::string& refusal(const CollectivePlan& plan, int group);
  /// Each group rank's end time and waits when group rank r starts at starts_s[r]; refusal()
  /// must be "".
  collective::CriticalPathTimes times(const CollectivePlan& plan, int group, std::span<const double> starts_s);
  /// The guarded calls run so far (times() records each).
  const GuardedLinks& guarded() const { return guarded_; }
  /// The ranks that can send across a direction that the whole job could fill (WorldLoad::senders).
  std::span<const int> senders(std::uint32_t direction) const;
  /// Whether link direction `direction` (2 * link + d, d = 1 for the backward direction of a
  /// split-duplex link) can never bind a message: everything the whole job can have in
  /// flight across it at once fits in its capacity (world_fits; false without the planner).
  bool never_binds(std::uint32_t direction) { return world_fits(direction); }
  /// Per operator of `program`, whether no other stream of its rank can run while it does
  /// (trace::Program::alone()); empty for a program without streams (all alone).
  const std::vector<char>& alone(int program) const { return at(alone_, program); }
  /// Whether operator `i` of `rank` runs alone on the rank (no other stream can run meanwhile).
  bool runs_alone(int rank, std::size_t i) const {
    const std::vector<char>& table = alone(at(trace_.program_of, rank));
    return table.empty() || table[i] != 0;
  }
  /// Whether nothing but data moves on `rank`'s other streams while its operator `i` runs:
  /// whatever may overlap it is a send or a receive, which takes no time of the accelerator
  /// (none without a calibrated model's per-message overheads). Then a busy period of it is
  /// the only execution on the rank's accelerator, if the accelerator runs no other rank.
  bool computes_alone(int rank, std::size_t i) const {
    const std::vector<char>& table = at(quiet_, at(trace_.program_of, rank));
    return table.empty() || table[i] != 0;
  }

  /// Why the ranks of `group` may take different paths through one of its collectives ("" when
  /// they cannot): a rank with streams runs a collective as its critical path only where no
  /// other stream of its own can overlap it (trace::Program::alone()), so every member must see
  /// each call of the group alike. Ranks of one program do; the others are compared call by
  /// call (a version-1 trace). Decided once per group.
  const std::string& stream_disagreement(int group);
  /// A lone message between two accelerators: the sum of its links' latencies and the
  /// smallest per-flow bandwidth, as the engine's platform has them (factors applied); under a
  /// calibrated model, for a tier it describes, the tier's latency and bandwidth by size.
  struct Path {
    double latency_s = 0;  ///< 0 with a tier
    /// The lone rate; with a tier, the most of each link's capacity that the message takes
    /// (the smallest capacity of its ends' links, Path()), for the load checks.
    double rate_Bps = 0;
    /// The model's tier that prices the message (nullptr: the links' nominal figures), and
    /// its index: 1 intra, 0 inter, -1 none.
    const topology::TierModel* tier = nullptr;
    int tier_index = -1;
    double cap_Bps = std::numeric_limits<double>::infinity();  ///< the trunks' per-flow limit
    std::vector<std::uint32_t> directions;  ///< 2 * link + direction (0 for both directions of a shared link)
    /// A lone message of `wire_bytes` on it.
    double seconds(double wire_bytes) const;
    bool same_cost(const Path& o) const {
      return latency_s == o.latency_s && rate_Bps == o.rate_Bps && cap_Bps == o.cap_Bps && tier == o.tier;
    }
  };
  Path path(int src_accelerator, int dst_accelerator) const;
  /// Whether `link` belongs to the fabric: neither an accelerator's link nor a NIC's (those
  /// carry only messages with an end on the accelerators they serve).
  bool fabric_link(std::uint32_t link) const { return !accelerator_link_[link] && node_of_nic_link_[link] < 0; }
  /// A link's capacity as the engine's platform has it (bandwidth factor, and a calibrated
  /// model's floor: GraphZoneOptions).
  double capacity_Bps(std::uint32_t link) const;
  /// How many messages `rank` can have in flight at once in each direction: its program's
  /// streams that communicate (1 without streams).
  int communicating_streams(int rank) const;

 private:
  struct Entry {
    std::string refusal;
    std::map<std::pair<int, int>, Path> paths;               ///< by (group-local sender, receiver)
    std::unordered_map<std::uint64_t, const Path*> by_pair;  ///< the same by (sender << 32 | receiver), for lookups
    collective::CriticalPathTimes from_zero;      ///< ends and waits when all start at 0, computed on first use
    std::vector<GuardedLinks::Crossing> guarded;  ///< its guarded directions (GuardedLinks), with its load on each
  };
  Entry& entry(const CollectivePlan& plan, int group);
  /// Whether fabric links that the job could fill are guarded (GuardedLinks) rather than a
  /// refusal: with ReplayOptions::guarded_links, and the planner (WorldLoad names their senders).
  bool guards() const { return options_.guarded_links && planner_ != nullptr; }
  /// times() without recording a guarded call.
  collective::CriticalPathTimes walk(const CollectivePlan& plan, int group, std::span<const double> starts_s);
  /// Whether `schedule` is a uniform ring whose every message to the right neighbour takes a
  /// path of the same latency and rate as rank 0's.
  static bool uniform_ring_links(const collective::Schedule& schedule, const Entry& e);
  /// Why `plan` on `group` runs message by message; "" for its critical path. In order:
  /// ineligible, collect_paths, below_model_data, crossings_refusal.
  std::string decide(const CollectivePlan& plan, int group, Entry& entry);
  /// Why the collective, its platform or its ranks bar the shortcut whatever the paths.
  std::string ineligible(const CollectivePlan& plan, int group);
  /// Fills `entry`'s paths, one per sender-receiver pair of the schedule; refuses too many.
  std::string collect_paths(const CollectivePlan& plan, int group, Entry& entry) const;
  /// Why messages of `entry`'s paths could slow one another or others' (ranks outside the
  /// group on a link whose world load does not fit, a direction whose own load does not fit).
  std::string crossings_refusal(int group, Entry& entry);
  /// Why a calibrated model's note needs the schedule's messages counted one by one
  /// (NetworkFactors::count, of SimGrid's messages only): "" when no message of `entry`'s paths
  /// lies below the data of its tier.
  std::string below_model_data(const CollectivePlan& plan, const Entry& entry) const;
  /// Whether all the job's messages that can be in flight at one time across link direction
  /// `direction` fit in its capacity (fits() in collective_shortcuts.cpp); false without the
  /// planner. Their load: a rank has at most one send and one receive in flight (its operators run one
  /// after another, a collective step sends and receives one message), so the sum over the
  /// ranks that can ever send across it (a send's peer, a peer of a collective's schedule) of
  /// the largest lone rate of their paths across it, or the same over the ranks that can
  /// receive across it, whichever is less; on an accelerator's or a NIC's link, whose
  /// messages all have an end on the accelerators it serves, at most the sum over those ends
  /// of their largest sending and receiving rates across it. Computed for every direction on
  /// first use (needs the planner).
  bool world_fits(std::uint32_t direction);

  const trace::Trace& trace_;
  const topology::Network& network_;
  const std::vector<int>& placement_;
  const ReplayOptions& options_;
  std::vector<int> ranks_on_accelerator_;
  std::vector<int> node_of_nic_link_;  ///< per link: the node of a NIC link, -1 for the others
  std::vector<int> ranks_behind_nic_;  ///< per link: ranks on the accelerators a NIC link serves (0 for the others)
  std::vector<bool> accelerator_link_;
  /// Per program: the number of its streams that communicate, negative when it has several
  /// streams (its operators may overlap one another).
  std::vector<int> comm_streams_;
  std::unordered_map<int, std::string> disagreement_;  ///< by group
  std::vector<std::vector<char>> alone_;               ///< by program: alone()
  std::vector<std::vector<char>> quiet_;               ///< by program: computes_alone()
  std::map<std::pair<const collective::Schedule*, int>, Entry> entries_;
  /// Entry::from_zero of groups that are alike: by schedule, and codec costs and paths as figures.
  std::map<std::pair<const collective::Schedule*, std::vector<double>>, collective::CriticalPathTimes>
      from_zero_by_links_;
  CollectivePlanner* planner_ = nullptr;
  std::optional<NetworkFactors> model_;    ///< the calibrated network model, if any
  std::unique_ptr<WorldLoad> world_load_;  ///< world_fits, on first use
  GuardedLinks guarded_;
};

}  // namespace ccsim::engine
