#include "engine/replica_fold.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "engine/collective_plan.hpp"
#include "engine/collective_shortcuts.hpp"
#include "engine/graph_zone.hpp"
#include "engine/network_factors.hpp"
#include "engine/replay.hpp"
#include "engine/result.hpp"
#include "engine/stream_lanes.hpp"
#include "core/index.hpp"

namespace ccsim::engine {
namespace {

using trace::GroupKind;
using trace::Op;
using trace::OpKind;

/// How a message from one rank to another meets others in SimGrid (ReplicaFolding).
struct Route {
  double latency_s = 0;
  double rate_Bps = 0;
  double cap_Bps = 0;
  int tier = -1;                     ///< CollectiveShortcuts::Path::tier_index
  std::vector<std::uint32_t> links;  ///< GraphZone::shared_links
};

/// Whether the messages of `a` meet as those of `b` do: pair by pair equal latencies, rates and
/// bounds, and shared links that correspond one to one with equal capacities.
bool same_sharing(const std::vector<Route>& a, const std::vector<Route>& b, const GraphZone& zone) {
  std::unordered_map<std::uint32_t, std::uint32_t> to, from;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Route& x = a[i];
    const Route& y = b[i];
    if (x.latency_s != y.latency_s || x.rate_Bps != y.rate_Bps || x.cap_Bps != y.cap_Bps || x.tier != y.tier ||
        x.links.size() != y.links.size()) {
      return false;
    }
    for (std::size_t j = 0; j < x.links.size(); ++j) {
      const std::uint32_t la = x.links[j], lb = y.links[j];
      if (zone.capacity_Bps(la) != zone.capacity_Bps(lb) || zone.cable_Bps(la) != zone.cable_Bps(lb)) return false;
      if (to.try_emplace(la, lb).first->second != lb || from.try_emplace(lb, la).first->second != la) return false;
    }
  }
  return true;
}

}  // namespace

ReplicaFolding fold_replicas(const trace::Trace& trace, const topology::Network& network,
                             const std::vector<int>& placement, CollectivePlanner& planner,
                             CollectiveShortcuts& shortcuts, GraphZone& zone) {
  ReplicaFolding out;
  const auto world = as_index(trace.world_size);
  const auto& groups = trace.groups;
  if (std::none_of(groups.begin(), groups.end(), [](const trace::Group& g) { return g.kind == GroupKind::kData; })) {
    return out;
  }
  // Replicas: positions in the data-parallel groups, which must all be of one size.
  std::vector<int> data_of(world), replica(world);
  for (std::size_t r = 0; r < world; ++r) {
    const int g = trace.group_of_kind(static_cast<int>(r), GroupKind::kData);
    if (g < 0) {
      out.refusal = fmt::format("rank {} has no data-parallel group", r);
      return out;
    }
    data_of[r] = g;
    const trace::Group& group = at(groups, g);
    const auto size = static_cast<int>(group.ranks.size());
    if (out.replicas == 0) out.replicas = size;
    if (size != out.replicas) {
      out.refusal = fmt::format("data-parallel groups of {} and {} ranks (\"{}\")", out.replicas, size, group.name);
      return out;
    }
    replica[r] = group.index_of(static_cast<int>(r));
  }
  if (out.replicas < 2) return out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].kind != GroupKind::kData) continue;
    for (int m : groups[g].ranks) {
      if (at(data_of, m) != static_cast<int>(g)) {
        out.refusal = fmt::format("rank {} is in more than one data-parallel group (\"{}\")", m, groups[g].name);
        return out;
      }
    }
  }
  // The rank at position e of r's data-parallel group: its counterpart in replica e.
  const auto counterpart = [&](int r, int e) { return at(at(groups, at(data_of, r)).ranks, e); };
  const auto rep = [&](int r) { return at(replica, r); };

  // The operators with partners, per program, and the first of each form (Program::partner_forms).
  std::vector<std::vector<std::uint32_t>> talks(trace.programs.size()), forms(trace.programs.size());
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    const auto& ops = trace.programs[p].ops;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].kind != OpKind::kCompute) talks[p].push_back(static_cast<std::uint32_t>(k));
    }
    forms[p] = trace.programs[p].partner_forms(false);
  }

  // Every rank runs its counterpart's program in replica 0, with the counterparts' partners
  // (operators of one form have the same partners).
  std::vector<char> group_copies(groups.size(), 0);
  for (int x = 0; x < trace.world_size; ++x) {
    const int d = rep(x);
    if (d == 0) continue;
    const int y = counterpart(x, 0);
    const auto p = as_index(at(trace.program_of, x));
    if (at(trace.program_of, y) != static_cast<int>(p)) {
      out.refusal = fmt::format("rank {} (replica {}) does not run the program of rank {} (replica 0)", x, d, y);
      return out;
    }
    for (std::uint32_t k : forms[p]) {
      const Op ox = trace.op(x, k);
      const Op oy = trace.op(y, k);
      if (ox.kind == OpKind::kSend || ox.kind == OpKind::kRecv) {
        if (rep(ox.peer) != d || counterpart(ox.peer, 0) != oy.peer) {
          out.refusal = fmt::format("operator #{} of rank {} ({} rank {}) is no copy of rank {}'s in replica 0", k, x,
                                    trace::op_kind_name(ox.kind), ox.peer, y);
          return out;
        }
        continue;
      }
      if (ox.group == at(data_of, x)) {
        if (oy.group == ox.group) continue;
      } else if (at(group_copies, ox.group) != 0) {
        continue;
      } else {
        const auto& gx = at(groups, ox.group).ranks;
        const auto& gy = at(groups, oy.group).ranks;
        bool copy = gx.size() == gy.size() && (ox.root < 0 || counterpart(ox.root, 0) == oy.root);
        for (std::size_t i = 0; i < gx.size() && copy; ++i) copy = rep(gx[i]) == d && counterpart(gx[i], 0) == gy[i];
        if (copy) {
          at(group_copies, ox.group) = 1;
          continue;
        }
      }
      out.refusal = fmt::format("operator #{} of rank {} (a {} on \"{}\") is no copy of rank {}'s in replica 0", k, x,
                                trace::op_kind_name(ox.kind), at(groups, ox.group).name, y);
      return out;
    }
  }

  // Replica 0's messages (each replica's are their counterparts): its sends, and every ordered
  // pair of the members of its collectives other than the data-parallel ones. Its
  // data-parallel collectives must run as their critical path.
  std::vector<std::pair<int, int>> pairs;
  std::vector<char> group_seen(groups.size(), 0);
  for (int y = 0; y < trace.world_size; ++y) {
    if (rep(y) != 0) continue;
    const auto p = as_index(at(trace.program_of, y));
    for (std::uint32_t k : talks[p]) {
      const Op op = trace.op(y, k);
      if (op.kind == OpKind::kSend) pairs.emplace_back(y, op.peer);
      if (!trace::is_collective(op.kind)) continue;
      const auto g = as_index(op.group);
      if (op.group == at(data_of, y)) {
        const std::vector<char>& alone = shortcuts.alone(static_cast<int>(p));
        const std::string& refusal = shortcuts.refusal(planner.plan(op, y, k), op.group);
        if (!refusal.empty() || (!alone.empty() && alone[k] == 0)) {
          out.refusal = fmt::format("the {} on \"{}\" (operator #{} of rank {}) runs message by message: {}",
                                    trace::op_kind_name(op.kind), groups[g].name, k, y,
                                    refusal.empty() ? "another stream of its rank may overlap it" : refusal);
          return out;
        }
        continue;
      }
      if (group_seen[g] != 0) continue;
      group_seen[g] = 1;
      for (int a : groups[g].ranks) {
        for (int b : groups[g].ranks) {
          if (a != b) pairs.emplace_back(a, b);
        }
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());

  // Each replica's routes, and the replica whose messages each shared link carries.
  std::vector<std::vector<Route>> routes(as_index(out.replicas), std::vector<Route>(pairs.size()));
  std::unordered_map<std::uint32_t, int> owner;
  for (int d = 0; d < out.replicas; ++d) {
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const int a = counterpart(pairs[i].first, d), b = counterpart(pairs[i].second, d);
      const int pa = at(placement, a), pb = at(placement, b);
      Route& route = at(routes, d)[i];
      const CollectiveShortcuts::Path lone = shortcuts.path(pa, pb);
      const double cap_Bps = zone.flow_cap_Bps(zone.host_of_rank(a), zone.host_of_rank(b));
      route = Route{lone.latency_s, lone.rate_Bps, cap_Bps, lone.tier_index, {}};
      zone.shared_links(pa, pb, route.links);
      for (std::uint32_t link : route.links) {
        const int first = owner.try_emplace(link, d).first->second;
        if (first != d) {
          const topology::Link& l = network.link(link / 2);
          out.refusal = fmt::format(
              "a {} link on the route from rank {} to rank {} (replica {}) carries messages of replica {} too, and "
              "their sharing of it can bind",
              network.tiers()[l.tier].name, a, b, d, first);
          return out;
        }
      }
    }
  }
  // Each replica folds onto the first simulated one whose messages meet as its own.
  std::vector<int> simulated, onto(as_index(out.replicas));
  for (int d = 0; d < out.replicas; ++d) {
    at(onto, d) = d;
    for (int e : simulated) {
      if (same_sharing(at(routes, d), at(routes, e), zone)) {
        at(onto, d) = e;
        break;
      }
    }
    if (at(onto, d) == d) simulated.push_back(d);
  }
  out.simulated = static_cast<int>(simulated.size());
  if (out.simulated == out.replicas) {
    out.refusal = "no two replicas' messages take routes of the same latencies, rates and links";
    return out;
  }
  out.image.assign(world, -1);
  for (int x = 0; x < trace.world_size; ++x) {
    const int e = at(onto, rep(x));
    if (e != rep(x)) at(out.image, x) = counterpart(x, e);
  }
  return out;
}

namespace detail {

std::string FoldedReplicas::decide(const trace::Trace& trace, const topology::Network& network,
                                   const std::vector<int>& placement, const std::vector<int>& sharing,
                                   const ReplayOptions& options, const NetworkFactors* factors,
                                   CollectivePlanner& planner, CollectiveShortcuts& shortcuts, GraphZone& zone) {
  if (!options.fast || !options.fold_replicas || network.accelerator().cpu_core) return "";
  // The messages of copied replicas are not counted for the note on a calibrated model's
  // extrapolation (NetworkFactors::count).
  if (factors != nullptr && factors->has_floor()) return "";
  if (std::any_of(sharing.begin(), sharing.end(), [](int ranks) { return ranks > 1; })) return "";
  folding_ = fold_replicas(trace, network, placement, planner, shortcuts, zone);
  if (!folding_.refusal.empty()) {
    return fmt::format("shortcuts: the {} data-parallel replicas were simulated one by one: {}", folding_.replicas,
                       folding_.refusal);
  }
  if (folding_.image.empty()) return "";
  stand_ins_.assign(trace.groups.size(), {});
  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    const trace::Group& group = trace.groups[g];
    if (group.kind != trace::GroupKind::kData) continue;
    std::vector<int>& stand_in = stand_ins_[g];
    for (std::size_t i = 0; i < group.ranks.size(); ++i) {
      const int m = group.ranks[i];
      stand_in.push_back(folded(m) ? group.index_of(at(folding_.image, m)) : static_cast<int>(i));
    }
  }
  return "";
}

std::string FoldedReplicas::unfold(const trace::Trace& trace, Result& result, StreamLanes& lanes) const {
  if (folding_.image.empty()) return "";
  for (int r = 0; r < trace.world_size; ++r) {
    if (!folded(r)) continue;
    const int image = at(folding_.image, r);
    result.ops.share(as_index(r), as_index(image));
    if (!result.waits.empty()) at(result.waits, r) = at(result.waits, image);  // recorded (wait_spans)
    const std::span<const RankState> copied = std::as_const(lanes).of_rank(image);
    std::copy(copied.begin(), copied.end(), lanes.of_rank(r).begin());
  }
  const auto world = as_index(trace.world_size);
  const auto copies = static_cast<std::size_t>(
      std::count_if(folding_.image.begin(), folding_.image.end(), [](int i) { return i >= 0; }));
  std::string note = fmt::format(
      "shortcuts: the {} data-parallel replicas ran as {} simulated {} ({} of {} ranks): the others talk only to "
      "themselves but for their data-parallel collectives (which ran as their critical path), and their messages take "
      "routes of the same latencies and rates, sharing links with no other replica, as those of the replica they "
      "copy, whose times they took (--every-replica simulates each)",
      folding_.replicas, folding_.simulated, folding_.simulated == 1 ? "one" : "ones", world - copies, world);
  if (lag_s_ > 0) {
    note += fmt::format(
        "; members of a data-parallel collective that started it together ended up to {:.3g} us apart, "
        "and a simulated rank ended it with the latest of the ranks it stood for",
        lag_s_ * 1e6);
  }
  return note;
}

}  // namespace detail
}  // namespace ccsim::engine
