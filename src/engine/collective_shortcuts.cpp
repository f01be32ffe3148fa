#include "engine/collective_shortcuts.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "collective/critical_path_executor.hpp"
#include "engine/network_factors.hpp"
#include "engine/world_load.hpp"
#include "core/index.hpp"

namespace ccsim::engine {

namespace {

std::uint64_t pair_key(int from, int to) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32 | static_cast<std::uint32_t>(to);
}

/// Whether messages needing `load_Bps` together all get their lone rates on a link of
/// `capacity_Bps`: max-min sharing gives each its lone rate as long as their sum fits, filled
/// exactly included (checked against the full replay in tests/engine/collective_replay_test.cpp).
bool fits(double load_Bps, double capacity_Bps) { return load_Bps <= capacity_Bps; }

/// A collective's messages across one link direction.
struct Crossing {
  std::map<int, double> sender_Bps;  ///< each sender's largest rate across it
  std::set<int> receivers;
};

/// Per direction, the most a collective's messages take of it at once. Each rank has at most
/// one send and one receive in flight (a step has one of each), so no more messages cross a
/// direction than the smaller of its distinct senders and receivers: the largest that many of
/// its senders' rates. Ordered: the first link that fails is named, run to run.
std::map<std::uint32_t, double> own_loads(const std::unordered_map<std::uint32_t, Crossing>& crossings) {
  std::map<std::uint32_t, double> load_Bps;
  for (const auto& [direction, crossing] : crossings) {
    std::vector<double> rates;
    for (const auto& [sender, rate] : crossing.sender_Bps) rates.push_back(rate);
    std::sort(rates.rbegin(), rates.rend());
    rates.resize(std::min(rates.size(), crossing.receivers.size()));
    double load = 0;
    for (double rate : rates) load += rate;
    load_Bps[direction] = load;
  }
  return load_Bps;
}

}  // namespace

std::uint32_t nic_link_of(const topology::Network& network, int a) {
  if (network.nics_per_node() <= 0) return std::numeric_limits<std::uint32_t>::max();
  return network.nic_link(network.node_of(a), (a % network.accelerators_per_node()) % network.nics_per_node());
}

CollectiveShortcuts::CollectiveShortcuts(const trace::Trace& trace, const topology::Network& network,
                                         const std::vector<int>& placement, const ReplayOptions& options,
                                         CollectivePlanner* planner)
    : trace_(trace), network_(network), placement_(placement), options_(options), planner_(planner) {
  if (options.network.calibrated != nullptr) model_.emplace(options.network.calibrated);
  ranks_on_accelerator_.assign(as_index(network.accelerator_count()), 0);
  for (int a : placement) {
    ++at(ranks_on_accelerator_, a);
  }
  node_of_nic_link_.assign(network.link_count(), -1);
  accelerator_link_.assign(network.link_count(), false);
  for (int n = 0; n < network.node_count(); ++n) {
    for (int k = 0; k < network.nics_per_node(); ++k) node_of_nic_link_[network.nic_link(n, k)] = n;
  }
  for (int a = 0; a < network.accelerator_count(); ++a) accelerator_link_[network.intra_link(a)] = true;
  ranks_behind_nic_.assign(network.link_count(), 0);
  if (network.nics_per_node() > 0) {
    for (int a : placement) ++ranks_behind_nic_[nic_link_of(network, a)];
  }
  // Per program: how many of its streams communicate (each may have a message in flight).
  comm_streams_.assign(trace.programs.size(), 1);
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    std::set<int> streams;
    for (const trace::Op& op : trace.programs[p].ops) {
      if (op.kind != trace::OpKind::kCompute) streams.insert(op.stream);
    }
    comm_streams_[p] = std::max<int>(1, static_cast<int>(streams.size()));
    if (trace.programs[p].stream_count() > 1)
      comm_streams_[p] = -comm_streams_[p];  // negative: the program has streams
  }
  alone_.assign(trace.programs.size(), {});
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    if (trace.programs[p].stream_count() > 1) alone_[p] = trace.programs[p].alone();
  }
  // Messages cost the accelerator no time unless the model charges per-message overheads.
  const bool overheads = model_ && model_->has_overheads();
  quiet_.assign(trace.programs.size(), {});
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    if (trace.programs[p].stream_count() > 1) quiet_[p] = overheads ? alone_[p] : trace.programs[p].alone(true);
  }
}

const std::string& CollectiveShortcuts::stream_disagreement(int group_index) {
  auto [it, fresh] = disagreement_.try_emplace(group_index);
  if (!fresh) return it->second;
  const trace::Group& group = at(trace_.groups, group_index);
  const auto program_of = [&](int rank) { return at(trace_.program_of, rank); };
  const auto has_streams = [&](int rank) { return at(comm_streams_, program_of(rank)) < 0; };
  const int first = group.ranks.front();
  if (std::none_of(group.ranks.begin(), group.ranks.end(), has_streams) ||
      std::all_of(group.ranks.begin(), group.ranks.end(), [&](int r) { return program_of(r) == program_of(first); })) {
    return it->second;
  }
  // Per member, its calls of the group in order: whether each runs alone on the rank.
  const auto calls = [&](int rank) {
    std::vector<char> out;
    const trace::Program& program = at(trace_.programs, program_of(rank));
    const std::vector<char>& table = alone(program_of(rank));
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      if (!trace::is_collective(program.ops[i].kind) || trace_.op(rank, i).group != group_index) continue;
      out.push_back(table.empty() ? 1 : table[i]);
    }
    return out;
  };
  const std::vector<char> reference = calls(first);
  for (int rank : group.ranks) {
    if (program_of(rank) == program_of(first)) continue;
    const std::vector<char> mine = calls(rank);
    for (std::size_t k = 0; k < std::min(mine.size(), reference.size()); ++k) {
      if (mine[k] == reference[k]) continue;
      it->second =
          fmt::format("rank {}'s call #{} of the group {} another of its streams and rank {}'s {}", rank, k,
                      mine[k] != 0 ? "cannot overlap" : "may overlap", first, reference[k] != 0 ? "cannot" : "may");
      return it->second;
    }
  }
  return it->second;
}

CollectiveShortcuts::~CollectiveShortcuts() = default;

int CollectiveShortcuts::communicating_streams(int rank) const {
  return std::abs(at(comm_streams_, at(trace_.program_of, rank)));
}

CollectiveShortcuts::Path CollectiveShortcuts::path(int src_accelerator, int dst_accelerator) const {
  // As GraphZone builds the platform and SimGrid's CM02 (no TCP window, no cross traffic)
  // times a lone flow: its links' latencies added in route order, and the smallest of their
  // bandwidths (a trunk's per-cable limit is a link of the route too). Under a calibrated
  // model, links are no slower than its floors, and a tier it describes sets the latency and
  // the flow's rate by message size (GraphZone::price_with), within the cables' limits:
  // SimGrid's CM02 scales the rate of a flow by its bandwidth factor, so that a message at its
  // lone rate takes its route's bottleneck, which is no more than the smallest of the links of
  // its ends (those stay in every route, GraphZone::leave_out).
  Path path;
  path.rate_Bps = std::numeric_limits<double>::infinity();
  double ends_Bps = path.rate_Bps;  // the smallest capacity of its accelerators' and NICs' links
  std::vector<topology::Hop> hops;
  network_.route(src_accelerator, dst_accelerator, hops);
  const double bandwidth_factor = options_.network.bandwidth_factor;
  for (const topology::Hop& hop : hops) {
    const topology::Link& link = network_.link(hop.link);
    path.latency_s += link.latency_s * options_.network.latency_factor;
    const bool trunk = link.capacity_Bps > link.bandwidth_Bps * (1 + 1e-12);
    path.rate_Bps = std::min(path.rate_Bps, capacity_Bps(hop.link));
    if (!fabric_link(hop.link)) ends_Bps = std::min(ends_Bps, capacity_Bps(hop.link));
    if (trunk) {
      double cable_Bps = link.bandwidth_Bps * bandwidth_factor;
      if (model_) cable_Bps = std::max(cable_Bps, model_->link_floor_Bps(accelerator_link_[hop.link]));
      path.rate_Bps = std::min(path.rate_Bps, cable_Bps);
      path.cap_Bps = std::min(path.cap_Bps, cable_Bps);
    }
    const bool split = link.sharing == topology::Sharing::kSplitDuplex;
    path.directions.push_back(2 * hop.link + (split && !hop.forward ? 1 : 0));
  }
  if (model_) {
    const bool same_node = network_.node_of(src_accelerator) == network_.node_of(dst_accelerator);
    path.tier = model_->tier(same_node);
    if (path.tier != nullptr) {
      path.tier_index = same_node ? 1 : 0;
      path.latency_s = 0;
      path.rate_Bps = ends_Bps;
    }
  }
  return path;
}

double CollectiveShortcuts::Path::seconds(double wire_bytes) const {
  if (tier == nullptr) return latency_s + wire_bytes / rate_Bps;
  const topology::CostSegment segment = tier->at(wire_bytes);
  return segment.latency_s + wire_bytes / std::min(segment.bandwidth_Bps, cap_Bps);
}

double CollectiveShortcuts::capacity_Bps(std::uint32_t link) const {
  const double nominal_Bps = network_.link(link).capacity_Bps * options_.network.bandwidth_factor;
  return model_ ? std::max(nominal_Bps, model_->link_floor_Bps(accelerator_link_[link])) : nominal_Bps;
}

bool CollectiveShortcuts::world_fits(std::uint32_t direction) {
  if (planner_ == nullptr) return false;
  if (!world_load_) world_load_ = std::make_unique<WorldLoad>(*this, trace_, network_, placement_, *planner_);
  return fits(world_load_->load_Bps(direction), capacity_Bps(direction / 2));
}

std::string CollectiveShortcuts::below_model_data(const CollectivePlan& plan, const Entry& entry) const {
  if (!model_) return "";
  std::string below;
  const collective::CostParams params =
      collective::cost_params(0, 0, 1.0 / network_.accelerator().reduce_Bps, plan.cost);
  collective::critical_path_by_message_s(*plan.schedule, params, [&](int from, int to, std::uint64_t wire_bytes) {
    const Path& p = entry.paths.at({from, to});
    if (below.empty() && p.tier != nullptr && p.tier->extrapolates(static_cast<double>(wire_bytes))) {
      below =
          fmt::format("the calibrated network model extrapolates below its data for its messages of {} B", wire_bytes);
    }
    return p.seconds(static_cast<double>(wire_bytes));
  });
  return below;
}

std::string CollectiveShortcuts::decide(const CollectivePlan& plan, int group_index, Entry& entry) {
  if (std::string why = ineligible(plan, group_index); !why.empty()) return why;
  if (std::string why = collect_paths(plan, group_index, entry); !why.empty()) return why;
  if (std::string why = below_model_data(plan, entry); !why.empty()) return why;
  return crossings_refusal(group_index, entry);
}

std::string CollectiveShortcuts::ineligible(const CollectivePlan& plan, int group_index) {
  if (!options_.fast) return "the full replay (--full)";
  if (model_ && model_->has_overheads()) return "the calibrated network model charges per-message CPU overheads";
  switch (plan.request.op) {
    case collective::Collective::kAllReduce:
    case collective::Collective::kAllGather:
    case collective::Collective::kReduceScatter:
    case collective::Collective::kAllToAll:
      break;
    default:
      return "a rank may end before another one starts";
  }
  if (network_.accelerator().cpu_core) return "CPU ranks may share a core";
  for (int rank : at(trace_.groups, group_index).ranks) {
    if (at(ranks_on_accelerator_, at(placement_, rank)) != 1) return "ranks share an accelerator";
  }
  return stream_disagreement(group_index);
}

std::string CollectiveShortcuts::collect_paths(const CollectivePlan& plan, int group_index, Entry& entry) const {
  // One path per (sender, receiver) pair of the schedule. Schedules where every rank talks to
  // every other (pairwise all_to_all) would hold p^2 paths: past 64 per rank the check would
  // cost more than it saves, and they run message by message.
  const trace::Group& group = at(trace_.groups, group_index);
  const collective::Schedule& schedule = *plan.schedule;
  const std::size_t most_paths = 64 * static_cast<std::size_t>(schedule.size()) + 1024;
  for (int r = 0; r < schedule.size(); ++r) {
    for (int peer : schedule.send_peers(r)) {
      auto key = std::make_pair(r, peer);
      if (entry.paths.count(key) != 0) continue;
      const int src = at(placement_, at(group.ranks, r));
      const int dst = at(placement_, at(group.ranks, peer));
      entry.paths.emplace(key, path(src, dst));
      if (entry.paths.size() > most_paths)
        return fmt::format("its {} ranks have more than {} sender-receiver pairs", schedule.size(), most_paths);
    }
  }
  return "";
}

std::string CollectiveShortcuts::crossings_refusal(int group_index, Entry& entry) {
  // Nobody else on the paths; and per link direction, the messages that can be in flight on it
  // at once fit in its capacity. Each rank has at most one send and one receive in flight (a
  // step has one of each), so no more messages cross a direction than the smaller of its
  // distinct senders and receivers: the largest that many of its senders' rates must fit.
  const trace::Group& group = at(trace_.groups, group_index);
  const bool whole_world = static_cast<int>(group.ranks.size()) == trace_.world_size;
  // A NIC link carries only messages with an end on an accelerator it serves: when those
  // accelerators run only ranks of the group, it carries only the group's messages while the
  // group's ranks there are in the collective (before and after, none of the group's).
  std::unordered_map<std::uint32_t, int> group_ranks_behind_nic;
  for (int rank : group.ranks) ++group_ranks_behind_nic[nic_link_of(network_, at(placement_, rank))];
  std::unordered_map<std::uint32_t, Crossing> crossings;
  std::set<std::uint32_t> shared;   // directions that members' other messages may cross
  std::set<std::uint32_t> guarded;  // fabric directions that others may use: GuardedLinks
  for (const auto& [pair, p] : entry.paths) {
    for (std::uint32_t direction : p.directions) {
      const std::uint32_t link = direction / 2;
      if (!accelerator_link_[link]) {
        // Other messages may use the link: ranks outside the group, and members that have
        // not reached the collective yet, whose own messages may cross it while early
        // members' already do. No bar when all that the job can have in flight across it at
        // once fits in its capacity (world_fits). Only a NIC link of one rank of the group,
        // like an accelerator's, carries that rank's collective alone while it runs.
        const int node = node_of_nic_link_[link];
        const bool outsiders =
            (node < 0 && !whole_world) || (node >= 0 && group_ranks_behind_nic[link] != ranks_behind_nic_[link]);
        if (outsiders && !world_fits(direction)) {
          if (node < 0 && guards()) {
            guarded.insert(direction);
          } else if (node < 0) {
            return "its messages cross fabric links that other ranks' messages may use";
          } else {
            return fmt::format("node {} has ranks outside the group that share its NIC", node);
          }
        }
        if (node < 0 || ranks_behind_nic_[link] > 1) shared.insert(direction);  // checked last
      }
      Crossing& crossing = crossings[direction];
      double& rate = crossing.sender_Bps[pair.first];
      rate = std::max(rate, p.rate_Bps);
      crossing.receivers.insert(pair.second);
    }
  }
  const std::map<std::uint32_t, double> load_Bps = own_loads(crossings);
  for (const auto& [direction, load] : load_Bps) {
    if (!fits(load, capacity_Bps(direction / 2))) {
      return fmt::format("its messages can share link {} (they need {:g} B/s of its {:g} B/s)",
                         network_.link_name(direction / 2), load, capacity_Bps(direction / 2));
    }
  }
  for (std::uint32_t direction : shared) {
    if (world_fits(direction)) continue;
    const int node = node_of_nic_link_[direction / 2];
    if (node < 0 && guards()) {
      guarded.insert(direction);
      continue;
    }
    if (node < 0) return "its messages cross fabric links that its members' other messages may use";
    return fmt::format("members share node {}'s NIC, which their other messages may use while the collective runs",
                       node);
  }
  for (std::uint32_t direction : guarded) entry.guarded.push_back({direction, load_Bps.at(direction)});
  return "";
}

CollectiveShortcuts::Entry& CollectiveShortcuts::entry(const CollectivePlan& plan, int group) {
  auto key = std::make_pair(plan.schedule.get(), group);
  auto it = entries_.find(key);
  if (it != entries_.end()) return it->second;
  Entry& made = entries_[key];
  made.refusal = decide(plan, group, made);
  if (!made.refusal.empty()) made.paths.clear();
  for (const auto& [pair, p] : made.paths) made.by_pair.emplace(pair_key(pair.first, pair.second), &p);
  return made;
}

const std::string& CollectiveShortcuts::refusal(const CollectivePlan& plan, int group) {
  return entry(plan, group).refusal;
}

bool CollectiveShortcuts::uniform_ring_links(const collective::Schedule& schedule, const Entry& e) {
  const int p = schedule.size();
  if (!schedule.uniform_ring() || p < 2) return false;
  const auto first = e.paths.find({0, 1});
  if (first == e.paths.end()) return false;
  for (int r = 0; r < p; ++r) {
    const auto it = e.paths.find({r, (r + 1) % p});
    if (it == e.paths.end() || !it->second.same_cost(first->second)) {
      return false;
    }
  }
  return true;
}

collective::CriticalPathTimes CollectiveShortcuts::times(const CollectivePlan& plan, int group,
                                                         std::span<const double> starts_s) {
  collective::CriticalPathTimes times = walk(plan, group, starts_s);
  const Entry& e = entry(plan, group);
  if (!e.guarded.empty() && !starts_s.empty()) {
    guarded_.ran(group, e.guarded, *std::min_element(starts_s.begin(), starts_s.end()),
                 *std::max_element(times.ends_s.begin(), times.ends_s.end()));
  }
  return times;
}

std::span<const int> CollectiveShortcuts::senders(std::uint32_t direction) const {
  if (!world_load_) return {};
  return world_load_->senders(direction);
}

collective::CriticalPathTimes CollectiveShortcuts::walk(const CollectivePlan& plan, int group,
                                                        std::span<const double> starts_s) {
  Entry& e = entry(plan, group);
  if (!e.refusal.empty())
    throw std::logic_error("CollectiveShortcuts::times: the shortcut does not apply: " + e.refusal);
  const collective::CostParams params =
      collective::cost_params(0, 0, 1.0 / network_.accelerator().reduce_Bps, plan.cost);
  const collective::MessageCost message = [&e](int from, int to, std::uint64_t wire_bytes) {
    return e.by_pair.at(pair_key(from, to))->seconds(static_cast<double>(wire_bytes));
  };
  const bool same_start =
      std::all_of(starts_s.begin(), starts_s.end(), [&](double s) { return s == starts_s.front(); });
  if (!same_start) return collective::critical_path_times(*plan.schedule, params, message, starts_s);
  // The usual case (a collective that all its ranks reach together) is computed once; for a
  // ring whose every rank sends to its neighbour over a path of the same latency and rate,
  // from one rank's walk (the ranks move in lockstep and none waits: uniform_ring_ends_s).
  if (e.from_zero.ends_s.empty()) {
    if (uniform_ring_links(*plan.schedule, e)) {
      e.from_zero.ends_s = collective::uniform_ring_ends_s(*plan.schedule, params, message, 0.0);
      e.from_zero.waits.assign(e.from_zero.ends_s.size(), {});
    } else {
      // Groups whose messages take paths of the same latencies and rates, position by
      // position, with the same schedule and codec, end alike: the data-parallel groups of a
      // rail-optimised fabric, one per rail (8 walks of a 1,280-rank ring were most of a
      // 10,240-accelerator replay whose replicas --fast folds).
      std::vector<double> links = {plan.cost.ratio,           plan.cost.compress_t0_s,  plan.cost.compress_Bps,
                                   plan.cost.decompress_t0_s, plan.cost.decompress_Bps, plan.cost.add_t0_s,
                                   plan.cost.add_Bps};
      for (const auto& [pair, path] : e.paths) {
        links.insert(links.end(), {static_cast<double>(pair.first), static_cast<double>(pair.second), path.latency_s,
                                   path.rate_Bps, path.cap_Bps, static_cast<double>(path.tier_index)});
      }
      auto [alike, fresh] = from_zero_by_links_.try_emplace(std::make_pair(plan.schedule.get(), std::move(links)));
      if (fresh) {
        const std::vector<double> zeros(starts_s.size(), 0.0);
        alike->second = collective::critical_path_times(*plan.schedule, params, message, zeros);
      }
      e.from_zero = alike->second;
    }
  }
  collective::CriticalPathTimes times = e.from_zero;
  const double start_s = starts_s.empty() ? 0.0 : starts_s.front();
  for (double& end : times.ends_s) end += start_s;
  for (auto& waits : times.waits) {
    for (collective::WaitInterval& w : waits) {
      w.from_s += start_s;
      w.to_s += start_s;
    }
  }
  return times;
}

}  // namespace ccsim::engine
