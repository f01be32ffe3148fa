#pragma once

#include <limits>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "collective/algorithm_choice.hpp"
#include "collective/critical_path_executor.hpp"
#include "collective/registry.hpp"
#include "engine/network_factors.hpp"
#include "engine/replay.hpp"
#include "topology/platform.hpp"
#include "topology/network.hpp"
#include "trace/trace.hpp"
#include "core/index.hpp"

namespace ccsim::engine {

/// How one collective of the trace runs: its schedule request (algorithm resolved), and,
/// when compressed, the compressor's cost for its dtype and the error of its result.
struct CollectivePlan {
  collective::Request request;
  std::string algorithm;
  bool compressed = false;
  compress::CompressorCost cost;  ///< default (free, ratio 1) when not compressed
  float error_worst_eb = 0;       ///< error of the result in units of the per-compression bound
  float error_expected_eb = 0;
  /// The schedule of `request`, built once per distinct schedule (CollectivePlanner::schedule)
  /// and shared by every rank of every call and every group that runs it (schedules are
  /// immutable; rebuilding one per rank and call was most of the time of large collectives).
  std::shared_ptr<const collective::Schedule> schedule;
};

/// Decides, once per distinct collective (group, kind, size, dtype, root), which algorithm
/// runs it and whether it is compressed; shared by every rank of the group.
class CollectivePlanner {
 public:
  /// `target` is the hardware compressor models are evaluated for (target_hardware()).
  CollectivePlanner(const trace::Trace& trace, const topology::Network& network, const std::vector<int>& placement,
                    const ReplayOptions& options, compress::TargetHardware target = {});

  /// The plan of collective `op` (issued by `rank`, operator `index`, for messages).
  /// Configuration errors (a hierarchical all_reduce on a group without a usable node layout,
  /// a dtype the compressor cannot take) are InputErrors at the operator's line.
  const CollectivePlan& plan(const trace::Op& op, int rank, std::size_t index);

  /// Plans every collective of the trace, so that configuration errors surface before the
  /// simulation starts.
  void plan_all();

  /// The algorithms used, by collective kind: "all_reduce: ring (12), compressed-ring (4); ...".
  std::string describe() const;

  /// Notes from the compressor model (clamped settings, dtype scaling), each once.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  using Key = std::tuple<int, int, std::uint64_t, int, int>;  // group, kind, bytes, dtype, root
  const trace::Trace& trace_;
  const topology::Network& network_;
  const std::vector<int>& placement_;
  const ReplayOptions& options_;
  compress::TargetHardware target_;
  std::map<Key, CollectivePlan> plans_;
  std::map<int, compress::CompressorCost> cost_by_dtype_;
  std::map<std::pair<std::string, std::string>, int> used_;  // (kind, algorithm) -> distinct collectives
  std::vector<std::string> notes_;

  /// Schedules by what makes them differ (collective, algorithm, group size, elements, element
  /// size, root, compression, and which ranks share a node): the groups of a job that run the
  /// same collective share one schedule, and the engine keeps its steps once for all of them.
  using ScheduleKey = std::tuple<int, std::string, int, std::uint64_t, int, int, int, std::vector<int>>;
  std::map<ScheduleKey, std::shared_ptr<const collective::Schedule>> schedules_;

  CollectivePlan make_plan(const trace::Op& op);
  std::shared_ptr<const collective::Schedule> schedule(const collective::Request& request);
  /// The links of `group` as the closed forms see them for `op`, with `compressor` as the
  /// compressor's cost; with a calibrated network model its figures for the messages of a ring
  /// (op.bytes / ranks), and `model` then says so (else it is left empty).
  collective::GroupLinks predicted_links(const trace::Op& op, const trace::Group& group,
                                         const compress::CompressorCost& compressor, std::string& model);
  /// Resolves an all_reduce's "auto" to the algorithm of the lowest predicted cost on the
  /// group's links (collective/algorithm_choice.hpp), and notes the candidates' costs.
  void choose_by_cost(const trace::Op& op, const trace::Group& group, CollectivePlan& plan);
  /// For an all_reduce that may be compressed (plan.request with its compression and the
  /// algorithm --algo names, plan.cost evaluated): predicts, by the closed forms of
  /// choose_by_cost on the group's links, the fastest plain algorithm (what runs when it is not
  /// compressed) and the compressed one (--algo's, or the fastest compressed for auto). Keeps
  /// the compression only where it is predicted faster, unless CompressionOptions::all; else
  /// makes the plan plain. Either way the "compression:" note gets both times and the decision.
  void decide_compression(const trace::Op& op, const trace::Group& group, CollectivePlan& plan);
  void add_note(const std::string& note);  ///< once
  /// "\"dp0\"", "\"dp0\" and 127 other groups alike": distinct group names, in first-seen order.
  static std::string group_names(const std::vector<std::string>& groups);
  /// A note about a group, `pattern` holding "{group}" where its name goes: groups with the
  /// same pattern share one line ("dp0" and 127 other groups alike), so that a job of many
  /// identical groups does not print one line per group.
  void add_group_note(const std::string& pattern, const std::string& group);
  struct GroupNote {
    std::size_t line;                 ///< index in notes_
    std::vector<std::string> groups;  ///< distinct, in first-seen order
  };
  std::map<std::string, GroupNote> group_notes_;
  /// The one "compression:" note: a part per distinct decision (pattern with "{group}", as for
  /// add_group_note), in first-seen order, groups with the same pattern sharing a part.
  void add_compression_part(const std::string& pattern, const std::string& group);
  std::size_t compression_line_ = std::string::npos;  ///< index in notes_, npos before the first part
  std::vector<std::pair<std::string, std::vector<std::string>>> compression_parts_;
  const compress::CompressorCost& compressor_cost(DType dtype);
};

/// The hardware of `platform` that compressor models transfer to (its accelerator; the
/// platform files give no host memory bandwidth, so a host placement is left unscaled).
compress::TargetHardware target_hardware(const topology::Platform& platform);

/// The links of a group whose ranks run on `accelerators` (one per rank, group order), for the
/// closed forms: the intra-node route of the platform, the group's worst inter-node route
/// (largest latency, smallest bottleneck bandwidth from its first rank), one NIC's bandwidth
/// and the reduction rate. Nominal link figures (a calibrated network model is not used).
collective::GroupLinks group_links(const topology::Network& network, const std::vector<int>& accelerators);

/// The collective of a trace operator kind (is_collective(kind) must hold).
collective::Collective to_collective(trace::OpKind kind);

}  // namespace ccsim::engine
