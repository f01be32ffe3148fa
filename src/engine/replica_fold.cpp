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
#include "engine/mirror_collectives.hpp"
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
/// bounds, and shared links that correspond one to one with equal capacities per replica that
/// crosses them (`replicas_on`: by link, how many replicas' messages it carries) and equal
/// cables.
bool same_sharing(const std::vector<Route>& a, const std::vector<Route>& b, const GraphZone& zone,
                  const std::unordered_map<std::uint32_t, int>& replicas_on) {
  std::unordered_map<std::uint32_t, std::uint32_t> to, from;
  const auto share_Bps = [&](std::uint32_t link) { return zone.capacity_Bps(link) / replicas_on.at(link); };
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Route& x = a[i];
    const Route& y = b[i];
    if (x.latency_s != y.latency_s || x.rate_Bps != y.rate_Bps || x.cap_Bps != y.cap_Bps || x.tier != y.tier ||
        x.links.size() != y.links.size()) {
      return false;
    }
    for (std::size_t j = 0; j < x.links.size(); ++j) {
      const std::uint32_t la = x.links[j], lb = y.links[j];
      if (share_Bps(la) != share_Bps(lb) || zone.cable_Bps(la) != zone.cable_Bps(lb)) return false;
      if (to.try_emplace(la, lb).first->second != lb || from.try_emplace(lb, la).first->second != la) return false;
    }
  }
  return true;
}

/// The replicas whose messages one shared link carries, as route_replicas meets them (replica
/// by replica, each replica's pairs in order): each must send the same pairs across it.
struct LinkUse {
  int first = -1;                    ///< the first replica on the link
  int current = -1;                  ///< the replica being compared with the first
  int replicas = 0;                  ///< how many replicas' messages it carries
  std::size_t matched = 0;           ///< of the first's pairs, how many the current one sent
  std::vector<std::uint32_t> pairs;  ///< the first replica's pairs across it
};

/// fold_replicas, stage by stage; each stage returns false with the refusal set on the result.
class ReplicaFolder {
 public:
  ReplicaFolder(const trace::Trace& trace, const topology::Network& network, const std::vector<int>& placement,
                CollectivePlanner& planner, CollectiveShortcuts& shortcuts, GraphZone& zone, MirrorCollectives* mirrors,
                GroupKind kind, const ReplicaFolding* before)
      : kind_(kind),
        kind_name_(kind == GroupKind::kTensor ? "tensor-parallel" : "data-parallel"),
        before_(before),
        trace_(trace),
        groups_(trace.groups),
        network_(network),
        placement_(placement),
        planner_(planner),
        shortcuts_(shortcuts),
        zone_(zone),
        mirrors_(mirrors) {}

  /// The folding; its mirrors only where some replica folds (otherwise each member runs).
  ReplicaFolding fold() {
    decide();
    if (out_.mirrored_ops > 0 && out_.simulated > 1 && !out_.image.empty()) {
      out_.image.clear();
      out_.link_shares.clear();
      out_.simulated = out_.replicas;
      out_.refusal = fmt::format(
          "{} collectives that no critical path times run as mirrors only when every replica copies one, "
          "and the replicas' messages meet in {} ways",
          kind_name_, simulated_);
    }
    if (out_.image.empty()) {
      out_.mirrored.clear();
      out_.mirrored_ops = 0;
    }
    return out_;
  }

 private:
  void decide() {
    if (std::none_of(groups_.begin(), groups_.end(), [this](const trace::Group& g) { return g.kind == kind_; })) return;
    if (!find_replicas() || out_.replicas < 2 || !data_groups_disjoint() || !check_copies()) return;
    std::vector<std::vector<Route>> routes;
    if (!route_replicas(replica_zero_pairs(), routes) || !mirrors_fit()) return;
    fold_alike(routes);
  }

  GroupKind kind_;  ///< the kind of the groups whose positions are the replicas
  const char* kind_name_;
  /// A folding decided before (of the data-parallel replicas, for kind_ tensor): its folded
  /// ranks are not simulated, its mirrors are messages of their members to themselves, and its
  /// other collectives of its kind run as their critical path; nullptr for none.
  const ReplicaFolding* before_;
  const trace::Trace& trace_;
  const std::vector<trace::Group>& groups_;
  const topology::Network& network_;
  const std::vector<int>& placement_;
  CollectivePlanner& planner_;
  CollectiveShortcuts& shortcuts_;
  GraphZone& zone_;
  MirrorCollectives* mirrors_;
  ReplicaFolding out_;
  int simulated_ = 0;                                   ///< fold_alike's classes of replicas
  std::vector<int> data_of_;                            ///< per rank: its data-parallel group
  std::vector<int> replica_;                            ///< per rank: its position there, its replica
  std::unordered_map<std::uint32_t, int> replicas_on_;  ///< by shared link: the replicas whose messages it carries

  /// The rank at position e of r's data-parallel group: its counterpart in replica e.
  int counterpart(int r, int e) const { return at(at(groups_, at(data_of_, r)).ranks, e); }
  int rep(int r) const { return at(replica_, r); }
  bool refuse(std::string why) {
    out_.refusal = std::move(why);
    return false;
  }

  /// Whether rank `r` is simulated after the folding before.
  bool active(int r) const { return before_ == nullptr || !before_->folded(r); }

  /// Replicas: positions in the groups of kind_, which must all be of one size.
  bool find_replicas() {
    const auto world = as_index(trace_.world_size);
    data_of_.resize(world);
    replica_.resize(world);
    for (int r = 0; r < trace_.world_size; ++r) {
      const int g = trace_.group_of_kind(r, kind_);
      if (g < 0) return refuse(fmt::format("rank {} has no {} group", r, kind_name_));
      at(data_of_, r) = g;
      const trace::Group& group = at(groups_, g);
      const auto size = static_cast<int>(group.ranks.size());
      if (out_.replicas == 0) out_.replicas = size;
      if (size != out_.replicas) {
        return refuse(
            fmt::format("{} groups of {} and {} ranks (\"{}\")", kind_name_, out_.replicas, size, group.name));
      }
      at(replica_, r) = group.index_of(r);
    }
    return true;
  }

  /// Every rank is in one group of kind_ only.
  bool data_groups_disjoint() {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g].kind != kind_) continue;
      for (int m : groups_[g].ranks) {
        if (at(data_of_, m) != static_cast<int>(g)) {
          return refuse(fmt::format("rank {} is in more than one {} group (\"{}\")", m, kind_name_, groups_[g].name));
        }
      }
    }
    return true;
  }

  /// Every rank runs its counterpart's program in replica 0, with the counterparts' partners
  /// (operators of one form have the same partners: Program::partner_forms).
  bool check_copies() {
    std::vector<std::vector<std::uint32_t>> forms(trace_.programs.size());
    for (std::size_t p = 0; p < trace_.programs.size(); ++p) forms[p] = trace_.programs[p].partner_forms(false);
    std::vector<char> group_copies(groups_.size(), 0);
    for (int x = 0; x < trace_.world_size; ++x) {
      const int d = rep(x);
      if (d == 0 || !active(x)) continue;
      const int y = counterpart(x, 0);
      const auto p = as_index(at(trace_.program_of, x));
      if (at(trace_.program_of, y) != static_cast<int>(p)) {
        return refuse(fmt::format("rank {} (replica {}) does not run the program of rank {} (replica 0)", x, d, y));
      }
      for (std::uint32_t k : forms[p]) {
        if (!copies(x, y, k, group_copies)) return false;
      }
    }
    return true;
  }

  /// Whether operator `k` of rank `x` talks to the counterparts of the partners of rank `y`'s
  /// (replica 0); `group_copies` marks the groups found to be copies.
  bool copies(int x, int y, std::uint32_t k, std::vector<char>& group_copies) {
    const int d = rep(x);
    const Op ox = trace_.op(x, k);
    const Op oy = trace_.op(y, k);
    if (ox.kind == OpKind::kSend || ox.kind == OpKind::kRecv) {
      if (rep(ox.peer) == d && counterpart(ox.peer, 0) == oy.peer) return true;
      return refuse(fmt::format("operator #{} of rank {} ({} rank {}) is no copy of rank {}'s in replica 0", k, x,
                                trace::op_kind_name(ox.kind), ox.peer, y));
    }
    if (ox.group == at(data_of_, x)) {
      if (oy.group == ox.group) return true;
    } else if (at(group_copies, ox.group) != 0) {
      return true;
    } else {
      const auto& gx = at(groups_, ox.group).ranks;
      const auto& gy = at(groups_, oy.group).ranks;
      bool copy = gx.size() == gy.size() && (ox.root < 0 || counterpart(ox.root, 0) == oy.root);
      for (std::size_t i = 0; i < gx.size() && copy; ++i) copy = rep(gx[i]) == d && counterpart(gx[i], 0) == gy[i];
      if (copy) {
        at(group_copies, ox.group) = 1;
        return true;
      }
    }
    return refuse(fmt::format("operator #{} of rank {} (a {} on \"{}\") is no copy of rank {}'s in replica 0", k, x,
                              trace::op_kind_name(ox.kind), at(groups_, ox.group).name, y));
  }

  /// Replica 0's messages (each replica's are their counterparts), sorted and unique: its
  /// sends, and every ordered pair of the members of its collectives other than the
  /// data-parallel ones. Its data-parallel collectives must run as their critical path
  /// (refused otherwise: an empty list and the refusal set).
  std::vector<std::pair<int, int>> replica_zero_pairs() {
    std::vector<std::pair<int, int>> pairs;
    std::vector<char> group_seen(groups_.size(), 0);
    for (int y = 0; y < trace_.world_size; ++y) {
      if (rep(y) != 0 || !active(y)) continue;
      const auto p = as_index(at(trace_.program_of, y));
      const auto& ops = trace_.programs[p].ops;
      for (std::size_t k = 0; k < ops.size(); ++k) {
        if (ops[k].kind == OpKind::kCompute) continue;
        const Op op = trace_.op(y, k);
        if (op.kind == OpKind::kSend) pairs.emplace_back(y, op.peer);
        if (!trace::is_collective(op.kind)) continue;
        if (op.group == at(data_of_, y)) {
          if (!critical_path(op, y, k, static_cast<int>(p))) return {};
          continue;
        }
        if (before_ != nullptr && !before_->image.empty() && at(groups_, op.group).kind == GroupKind::kData) {
          // Folded before: a mirror is the member's message to itself; otherwise no message.
          if (!before_->mirrored.empty() && at(before_->mirrored, op.group) != 0) pairs.emplace_back(y, y);
          continue;
        }
        const auto g = as_index(op.group);
        if (group_seen[g] != 0) continue;
        group_seen[g] = 1;
        for (int a : groups_[g].ranks) {
          for (int b : groups_[g].ranks) {
            if (a != b && active(a) && active(b)) pairs.emplace_back(a, b);
          }
        }
      }
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    return pairs;
  }

  /// Whether data-parallel collective `op` (operator `k` of rank `y`, program `p`) runs as its
  /// critical path.
  bool critical_path(const Op& op, int y, std::size_t k, int p) {
    const std::vector<char>& alone = shortcuts_.alone(p);
    const CollectivePlan& plan = planner_.plan(op, y, k);
    const std::string& refusal = shortcuts_.refusal(plan, op.group);
    if (refusal.empty() && (alone.empty() || alone[k] != 0)) return true;
    std::string why = refusal.empty() ? "another stream of its rank may overlap it" : refusal;
    if (mirrors_ != nullptr) {
      const std::string not_mirrored = mirrors_->check(plan, at(groups_, op.group), op.group);
      if (not_mirrored.empty()) {
        if (out_.mirrored.empty()) out_.mirrored.assign(groups_.size(), 0);
        at(out_.mirrored, op.group) = 1;
        ++out_.mirrored_ops;
        return true;
      }
      why += "; nor can it run as a mirror: " + not_mirrored;
    }
    return refuse(fmt::format("the {} on \"{}\" (operator #{} of rank {}) runs message by message: {}",
                              trace::op_kind_name(op.kind), at(groups_, op.group).name, k, y, why));
  }

  /// Mirrors (MirrorCollectives) need each node's ranks in one replica: a node's links then
  /// carry one replica's messages, mirrored or not.
  bool mirrors_fit() {
    // Within a node (tensor-parallel peers), each accelerator's own links carry its mirror,
    // and what the node's other links carry is compared replica by replica (route_replicas).
    if (out_.mirrored_ops == 0 || kind_ == GroupKind::kTensor) return true;
    std::unordered_map<int, int> replica_of_node;
    for (int r = 0; r < trace_.world_size; ++r) {
      const int node = network_.node_of(at(placement_, r));
      const int first = replica_of_node.try_emplace(node, rep(r)).first->second;
      if (first != rep(r)) {
        return refuse(fmt::format(
            "data-parallel collectives that no critical path times run as mirrors only when each node holds ranks of "
            "one replica, and node {} holds ranks of replicas {} and {}",
            node, first, rep(r)));
      }
    }
    return true;
  }

  /// Each replica's routes of `pairs` (as its counterparts), and by shared link how many
  /// replicas' messages it carries (replicas_on_). Replicas may share a link when each sends
  /// the same pairs across it: lockstep copies then take equal max-min shares of it, each
  /// its capacity over their number (fold_alike). Refused otherwise.
  bool route_replicas(const std::vector<std::pair<int, int>>& pairs, std::vector<std::vector<Route>>& routes) {
    if (!out_.refusal.empty()) return false;
    routes.assign(as_index(out_.replicas), std::vector<Route>(pairs.size()));
    std::unordered_map<std::uint32_t, LinkUse> uses;
    for (int d = 0; d < out_.replicas; ++d) {
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        const int a = counterpart(pairs[i].first, d), b = counterpart(pairs[i].second, d);
        const int pa = at(placement_, a), pb = at(placement_, b);
        Route& route = at(routes, d)[i];
        if (a == b) {  // a mirror folded before: its figures are every mirror's (MirrorCollectives)
          route = Route{};
          zone_.mirror_links(pa, route.links);
        } else {
          const CollectiveShortcuts::Path lone = shortcuts_.path(pa, pb);
          route = Route{lone.latency_s, lone.rate_Bps, zone_.binding_cap_Bps(a, b), lone.tier_index, {}};
          zone_.shared_links(pa, pb, route.links);
        }
        for (std::uint32_t link : route.links) {
          if (!use_link(uses[link], d, static_cast<std::uint32_t>(i))) return refuse_sharing(link, a, b, d, uses[link]);
        }
      }
    }
    for (auto& [link, use] : uses) {
      if (use.matched != use.pairs.size() && use.current != use.first) {
        return refuse(fmt::format("a {} link carries messages of replicas {} and {} between different pairs of ranks",
                                  network_.tiers()[network_.link(link / 2).tier].name, use.first, use.current));
      }
      replicas_on_.emplace(link, use.replicas);
    }
    return true;
  }

  /// Records that replica `d` sends pair `i` across a link; false when it does not send the
  /// pairs that the link's first replica does.
  static bool use_link(LinkUse& use, int d, std::uint32_t i) {
    if (use.first < 0 || use.first == d) {
      use.first = d;
      use.current = d;
      use.replicas = 1;
      use.pairs.push_back(i);
      return true;
    }
    if (use.current != d) {  // the next replica on the link: the previous one sent all the pairs
      if (use.current != use.first && use.matched != use.pairs.size()) return false;
      use.current = d;
      use.matched = 0;
      ++use.replicas;
    }
    return use.matched < use.pairs.size() && use.pairs[use.matched++] == i;
  }

  bool refuse_sharing(std::uint32_t link, int a, int b, int d, const LinkUse& use) {
    return refuse(
        fmt::format("a {} link on the route from rank {} to rank {} (replica {}) carries messages of replica {} too, "
                    "between other pairs of ranks, and their sharing of it can bind",
                    network_.tiers()[network_.link(link / 2).tier].name, a, b, d, use.first));
  }

  /// Each replica folds onto the first simulated one whose messages meet as its own.
  void fold_alike(const std::vector<std::vector<Route>>& routes) {
    std::vector<int> simulated, onto(as_index(out_.replicas));
    for (int d = 0; d < out_.replicas; ++d) {
      at(onto, d) = d;
      for (int e : simulated) {
        if (same_sharing(at(routes, d), at(routes, e), zone_, replicas_on_)) {
          at(onto, d) = e;
          break;
        }
      }
      if (at(onto, d) == d) simulated.push_back(d);
    }
    out_.simulated = simulated_ = static_cast<int>(simulated.size());
    if (out_.simulated == out_.replicas) {
      out_.refusal = "no two replicas' messages take routes of the same latencies, rates and links";
      return;
    }
    // Replicas that share a link take equal shares of it only when all are copies of one:
    // copies of two replicas whose times differ would load it differently.
    const bool shared =
        std::any_of(replicas_on_.begin(), replicas_on_.end(), [](const auto& u) { return u.second > 1; });
    if (shared && out_.simulated > 1) {
      out_.simulated = out_.replicas;
      out_.refusal = fmt::format(
          "replicas share links, and their messages meet in {} different ways (only copies of one replica share a link "
          "alike)",
          simulated.size());
      return;
    }
    out_.image.assign(as_index(trace_.world_size), -1);
    for (int x = 0; x < trace_.world_size; ++x) {
      const int e = at(onto, rep(x));
      if (e != rep(x) && active(x)) at(out_.image, x) = counterpart(x, e);
    }
    share_links(routes, simulated);
  }

  /// The share of each link that several replicas' messages cross: the simulated replicas
  /// among them (one: fold_alike) over all of them (ReplicaFolding::link_shares).
  void share_links(const std::vector<std::vector<Route>>& routes, const std::vector<int>& simulated) {
    std::unordered_map<std::uint32_t, int> simulated_on, last;
    for (int d : simulated) {
      for (const Route& route : at(routes, d)) {
        for (std::uint32_t link : route.links) {
          if (last.try_emplace(link, -1).first->second == d) continue;
          last[link] = d;
          ++simulated_on[link];
        }
      }
    }
    for (const auto& [link, on] : simulated_on) {
      const int replicas = replicas_on_.at(link);
      if (on != replicas) out_.link_shares.emplace_back(link, static_cast<double>(on) / replicas);
    }
    std::sort(out_.link_shares.begin(), out_.link_shares.end());
  }
};

}  // namespace

ReplicaFolding fold_replicas(const trace::Trace& trace, const topology::Network& network,
                             const std::vector<int>& placement, CollectivePlanner& planner,
                             CollectiveShortcuts& shortcuts, GraphZone& zone, MirrorCollectives* mirrors,
                             trace::GroupKind kind, const ReplicaFolding* before) {
  return ReplicaFolder(trace, network, placement, planner, shortcuts, zone, mirrors, kind, before).fold();
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
  // A calibrated model's per-message overheads would be charged to the mirror's one message
  // as to a message within the node.
  MirrorCollectives mirrors(network, placement, shortcuts, zone);
  const bool mirror = factors == nullptr || !factors->has_overheads();
  folding_ = fold_replicas(trace, network, placement, planner, shortcuts, zone, mirror ? &mirrors : nullptr);
  if (!folding_.refusal.empty()) {
    return fmt::format("shortcuts: the {} data-parallel replicas were simulated one by one: {}", folding_.replicas,
                       folding_.refusal);
  }
  if (!folding_.image.empty()) {
    for (const auto& [link, share] : folding_.link_shares) zone.share_capacity(link, share);
    if (folding_.mirrored_ops > 0) mirrors.install([this](int rank) { return !folded(rank); });
  }
  std::string note = mirror ? fold_tensor(trace, network, placement, planner, shortcuts, zone) : "";
  if (folding_.image.empty()) return note;
  stand_ins_.assign(trace.groups.size(), {});
  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    const trace::Group& group = trace.groups[g];
    if (group.kind != trace::GroupKind::kData &&
        (folding_.tensor_peers == 0 || group.kind != trace::GroupKind::kTensor))
      continue;
    std::vector<int>& stand_in = stand_ins_[g];
    for (std::size_t i = 0; i < group.ranks.size(); ++i) {
      const int m = group.ranks[i];
      stand_in.push_back(folded(m) ? group.index_of(at(folding_.image, m)) : static_cast<int>(i));
    }
  }
  return note;
}

std::string FoldedReplicas::fold_tensor(const trace::Trace& trace, const topology::Network& network,
                                        const std::vector<int>& placement, CollectivePlanner& planner,
                                        CollectiveShortcuts& shortcuts, GraphZone& zone) {
  const bool data_folded = !folding_.image.empty();
  if ((data_folded && folding_.simulated != 1) || zone.caps_can_bind()) return "";
  MirrorCollectives within(network, placement, shortcuts, zone, /*within_node=*/true);
  const ReplicaFolding tensor = fold_replicas(trace, network, placement, planner, shortcuts, zone, &within,
                                              trace::GroupKind::kTensor, data_folded ? &folding_ : nullptr);
  // Where every tensor-parallel collective runs as its critical path, FusedGroups runs the peers
  // as one already; a refusal leaves them to it too.
  if (tensor.image.empty() || tensor.mirrored_ops == 0) return "";
  for (const auto& shared : tensor.link_shares) {
    const std::uint32_t link = shared.first;
    const bool twice = std::any_of(folding_.link_shares.begin(), folding_.link_shares.end(),
                                   [link](const auto& other) { return other.first == link; });
    if (twice) {
      return fmt::format(
          "shortcuts: the {} tensor-parallel peers of each group were simulated one by one: a {} link carries "
          "messages of several data-parallel replicas and of several peers",
          tensor.replicas, network.tiers()[network.link(link / 2).tier].name);
    }
  }
  const auto world = as_index(trace.world_size);
  std::vector<int> image(world, -1);
  for (std::size_t r = 0; r < world; ++r) {
    const int first = data_folded && folding_.image[r] >= 0 ? folding_.image[r] : static_cast<int>(r);
    const int second = at(tensor.image, first) >= 0 ? at(tensor.image, first) : first;
    image[r] = second == static_cast<int>(r) ? -1 : second;
  }
  if (!data_folded) {
    folding_.replicas = 0;
    folding_.simulated = 0;
  }
  folding_.image = std::move(image);
  for (const auto& [link, share] : tensor.link_shares) zone.share_capacity(link, share);
  within.install([this](int rank) { return !folded(rank); });
  if (folding_.mirrored.empty()) folding_.mirrored.assign(trace.groups.size(), 0);
  pair_mirrored_ = tensor.mirrored;
  for (std::size_t g = 0; g < pair_mirrored_.size(); ++g) {
    if (pair_mirrored_[g] != 0) folding_.mirrored[g] = 1;
  }
  folding_.tensor_peers = tensor.replicas;
  tensor_mirrored_ops_ = tensor.mirrored_ops;
  zone_ = &zone;
  placement_ = &placement;
  return "";
}

simgrid::s4u::Host* FoldedReplicas::mirror_host(int rank, int group) const {
  if (pair_mirrored_.empty() || at(pair_mirrored_, group) == 0) return nullptr;
  return zone_->host_of_accelerator(zone_->mirror_partner(at(*placement_, rank)));
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
  std::string note;
  if (folding_.replicas > 0) {
    note = fmt::format(
        "shortcuts: the {} data-parallel replicas ran as {} simulated {} ({} of {} ranks): the others talk only to "
        "themselves but for their data-parallel collectives (which ran as their critical path{}), and their messages "
        "take routes of the same latencies and rates, {}, as those of the replica they copy, whose times they took "
        "(--every-replica simulates each)",
        folding_.replicas, folding_.simulated, folding_.simulated == 1 ? "one" : "ones", world - copies, world,
        folding_.mirrored_ops == 0
            ? std::string()
            : fmt::format(", or as mirrors, {} operator{} of the simulated replica that no critical path times: each "
                          "step one message through the member's own links",
                          folding_.mirrored_ops, folding_.mirrored_ops == 1 ? "" : "s"),
        folding_.link_shares.empty()
            ? std::string("sharing links with no other replica")
            : fmt::format("sharing {} links with other replicas symmetrically (the simulated ones took their share of "
                          "each)",
                          folding_.link_shares.size()));
  }
  if (folding_.tensor_peers > 0) {
    note += fmt::format(
        "{}the {} tensor-parallel peers of each group ran as one simulated rank{}: the others talk only to their "
        "counterparts but for their group's collectives, {} operators of the simulated ranks that no critical path "
        "times ran as mirrors within the node (each step one message through the accelerator's own link out and "
        "in), and the peers' messages take routes alike (--every-replica simulates each)",
        note.empty() ? "shortcuts: " : "; ", folding_.tensor_peers,
        folding_.replicas > 0 ? std::string() : fmt::format(" ({} of {} ranks)", world - copies, world),
        tensor_mirrored_ops_);
  }
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
