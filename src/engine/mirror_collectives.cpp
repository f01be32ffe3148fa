#include "engine/mirror_collectives.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "core/index.hpp"
#include "engine/collective_plan.hpp"
#include "engine/collective_shortcuts.hpp"
#include "engine/graph_zone.hpp"

namespace ccsim::engine {

MirrorCollectives::MirrorCollectives(const topology::Network& network, const std::vector<int>& placement,
                                     CollectiveShortcuts& shortcuts, GraphZone& zone, bool within_node)
    : network_(network), placement_(placement), shortcuts_(shortcuts), zone_(zone), within_node_(within_node) {}

std::string MirrorCollectives::check(const CollectivePlan& plan, const trace::Group& group, int group_index) {
  const auto [it, fresh] = checked_.try_emplace({group_index, plan.schedule.get()});
  if (!fresh) return it->second;
  const Pattern& pattern = pattern_of(plan, static_cast<int>(group.ranks.size()));
  std::string why = pattern.why;
  for (std::size_t i = 0; i < pattern.pairs.size() && why.empty(); ++i) {
    const int ra = at(group.ranks, pattern.pairs[i].first), rb = at(group.ranks, pattern.pairs[i].second);
    const auto key = static_cast<std::uint64_t>(static_cast<std::uint32_t>(ra)) << 32 | static_cast<std::uint32_t>(rb);
    if (routes_checked_.insert(key).second) why = check_route(ra, rb);
  }
  if (why.empty()) {
    for (int r : group.ranks) members_.emplace(r, at(placement_, r));
  }
  it->second = why;
  return why;
}

const MirrorCollectives::Pattern& MirrorCollectives::pattern_of(const CollectivePlan& plan, int size) {
  const auto [it, fresh] = patterns_.try_emplace(plan.schedule.get());
  if (!fresh) return it->second;
  std::vector<std::vector<collective::Step>> steps;
  Pattern& pattern = it->second;
  pattern.why = check_steps(plan, size, steps);
  for (int m = 0; m < size && pattern.why.empty(); ++m) {
    for (const collective::Step& step : at(steps, m)) {
      if (step.kind == collective::StepKind::kExchange) pattern.pairs.emplace_back(m, step.send_peer);
    }
  }
  std::sort(pattern.pairs.begin(), pattern.pairs.end());
  pattern.pairs.erase(std::unique(pattern.pairs.begin(), pattern.pairs.end()), pattern.pairs.end());
  return pattern;
}

std::string MirrorCollectives::check_steps(const CollectivePlan& plan, int size,
                                           std::vector<std::vector<collective::Step>>& steps) const {
  steps.resize(as_index(size));
  for (int m = 0; m < size; ++m) at(steps, m) = plan.schedule->steps(m);
  const std::vector<collective::Step>& first = steps.front();
  for (int m = 0; m < size; ++m) {
    const std::vector<collective::Step>& mine = at(steps, m);
    if (mine.size() != first.size())
      return fmt::format("its schedule gives members {} and {} steps", first.size(), mine.size());
    for (std::size_t s = 0; s < mine.size(); ++s) {
      const collective::Step& a = mine[s];
      const collective::Step& b = first[s];
      if (a.kind != b.kind || a.mode != b.mode || a.compressed != b.compressed) {
        return fmt::format("its schedule's step {} differs between members 0 and {}", s, m);
      }
      if (a.kind != collective::StepKind::kExchange) continue;
      if (a.send_peer < 0 || a.recv_peer < 0 || a.send_peer == m) {
        return fmt::format("in its schedule's step {}, member {} does not both send and receive", s, m);
      }
      const std::vector<collective::Step>& peer = at(steps, a.send_peer);
      if (peer.size() <= s || peer[s].kind != collective::StepKind::kExchange || peer[s].recv_peer != m) {
        return fmt::format("in its schedule's step {}, member {}'s message is not received in that step", s, m);
      }
    }
  }
  return "";
}

int MirrorCollectives::node_of_link(std::uint32_t link) const {
  return std::max(network_.vertex(network_.link_source(link)).node, network_.vertex(network_.link_target(link)).node);
}

bool MirrorCollectives::same_side(std::map<int, Side>& sides, int x, Side side) {
  const auto [it, fresh] = sides.try_emplace(x, std::move(side));
  if (fresh) return true;
  const auto key = [](const topology::Hop& h) { return std::make_pair(h.link, h.forward); };
  return std::equal(it->second.hops.begin(), it->second.hops.end(), side.hops.begin(), side.hops.end(),
                    [&](const topology::Hop& p, const topology::Hop& q) { return key(p) == key(q); });
}

std::string MirrorCollectives::check_route(int ra, int rb) {
  const int a = at(placement_, ra), b = at(placement_, rb);
  const int na = network_.node_of(a), nb = network_.node_of(b);
  if (!within_node_ && na == nb) return fmt::format("its members on accelerators {} and {} share a node", a, b);
  if (within_node_ && na != nb)
    return fmt::format("its members on accelerators {} and {} are on different nodes", a, b);
  const CollectiveShortcuts::Path path = shortcuts_.path(a, b);
  std::vector<std::uint32_t> shared;
  zone_.shared_links(a, b, shared);
  const double cap_Bps = zone_.binding_cap_Bps(ra, rb);
  if (!has_reference_) {
    has_reference_ = true;
    latency_s_ = path.latency_s;
    rate_Bps_ = path.rate_Bps;
    cap_Bps_ = cap_Bps;
    tier_ = path.tier_index;
  } else if (path.latency_s != latency_s_ || path.rate_Bps != rate_Bps_ || cap_Bps != cap_Bps_ ||
             path.tier_index != tier_) {
    return fmt::format("its messages from accelerator {} to {} take routes of different latencies or rates", a, b);
  }
  Side out, in;
  std::vector<topology::Hop> between;
  for (const topology::Hop& hop : network_.route(a, b)) {
    if (within_node_) {
      (hop.link == network_.intra_link(a)   ? out.hops
       : hop.link == network_.intra_link(b) ? in.hops
                                            : between)
          .push_back(hop);
      continue;
    }
    const int node = node_of_link(hop.link);
    (node == na ? out.hops : node == nb ? in.hops : between).push_back(hop);
  }
  // SimGrid shares only the links of the route's ends: the fabric between is left out.
  for (const topology::Hop& hop : between) {
    const std::uint32_t both = 2 * hop.link, mine = both + (hop.forward ? 0 : 1);
    if (std::find(shared.begin(), shared.end(), mine) != shared.end() ||
        std::find(shared.begin(), shared.end(), both) != shared.end()) {
      return fmt::format("its messages from accelerator {} to {} cross {} links that can bind", a, b,
                         within_node_ ? "node" : "fabric");
    }
  }
  if (!has_figures_) {
    has_figures_ = true;
    out_figures_ = figures(out.hops);
    in_figures_ = figures(in.hops);
  }
  if (figures(out.hops) != out_figures_ || figures(in.hops) != in_figures_) {
    return fmt::format("the links of accelerators {} and {} differ from the first member's", a, b);
  }
  between_.try_emplace(a, std::move(between));
  partner_.try_emplace(a, b);
  if (!same_side(out_, a, std::move(out)) || !same_side(in_, b, std::move(in))) {
    return fmt::format("accelerator {} or {} reaches its partners through different links", a, b);
  }
  return "";
}

std::vector<std::tuple<double, double, double>> MirrorCollectives::figures(
    const std::vector<topology::Hop>& hops) const {
  std::vector<std::tuple<double, double, double>> out;
  for (const topology::Hop& hop : hops) {
    const topology::Link& link = network_.link(hop.link);
    out.emplace_back(link.capacity_Bps, link.bandwidth_Bps, link.latency_s);
  }
  return out;
}

void MirrorCollectives::install_one(int accelerator) const {
  std::vector<topology::Hop> hops = out_.at(accelerator).hops;
  const std::vector<topology::Hop>& between = between_.at(accelerator);
  hops.insert(hops.end(), between.begin(), between.end());
  const std::vector<topology::Hop>& in = in_.at(accelerator).hops;
  hops.insert(hops.end(), in.begin(), in.end());
  if (within_node_) {
    zone_.set_pair_mirror(accelerator, partner_.at(accelerator), std::move(hops));
  } else {
    zone_.set_mirror(accelerator, std::move(hops));
  }
}

std::vector<collective::Step> widest_steps(const collective::Schedule& schedule, int index) {
  std::vector<collective::Step> mine = schedule.steps(index);
  for (int m = 0; m < schedule.size(); ++m) {
    if (m == index) continue;
    const std::vector<collective::Step> other = schedule.steps(m);
    for (std::size_t s = 0; s < mine.size() && s < other.size(); ++s) {
      mine[s].send.count = std::max(mine[s].send.count, other[s].send.count);
      mine[s].recv.count = std::max(mine[s].recv.count, other[s].recv.count);
      mine[s].local.count = std::max(mine[s].local.count, other[s].local.count);
    }
  }
  return mine;
}

}  // namespace ccsim::engine
