#include "engine/world_load.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "core/index.hpp"
#include "engine/collective_plan.hpp"

namespace ccsim::engine {

std::vector<std::pair<int, int>> WorldLoad::world_pairs() const {
  // The operators that send, once per distinct form per program (a version-2 program holds
  // a stage's thousands of operators but a handful of forms), resolved for each of its ranks.
  std::vector<std::vector<std::uint32_t>> senders(trace_.programs.size());
  for (std::size_t p = 0; p < trace_.programs.size(); ++p) {
    for (std::uint32_t i : trace_.programs[p].partner_forms(true)) {
      const trace::OpKind kind = trace_.programs[p].ops[i].kind;
      if (kind == trace::OpKind::kSend || trace::is_collective(kind)) senders[p].push_back(i);
    }
  }
  std::vector<std::pair<int, int>> pairs;
  for (int r = 0; r < trace_.world_size; ++r) {
    for (std::size_t i : at(senders, at(trace_.program_of, r))) {
      const trace::Op op = trace_.op(r, i);
      if (op.kind == trace::OpKind::kSend) {
        pairs.emplace_back(r, op.peer);
        continue;
      }
      const CollectivePlan& plan = planner_.plan(op, r, i);
      const trace::Group& group = at(trace_.groups, op.group);
      for (int peer : plan.schedule->send_peers(group.index_of(r))) pairs.emplace_back(r, at(group.ranks, peer));
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

namespace {

/// Raises table[direction] (-1: none yet, then listed in `seen`) to at least `rate`.
void raise(std::vector<double>& table, std::vector<std::uint32_t>& seen, std::uint32_t direction, double rate) {
  if (table[direction] < 0) seen.push_back(direction);
  table[direction] = std::max(table[direction], rate);
}

/// One rank's largest lone rate per link direction across its pairs as their sender (or as
/// their receiver), and on its own accelerator's and NIC's links.
struct EndRows {
  explicit EndRows(std::size_t directions) : largest(directions, -1.0), largest_end(directions, -1.0) {}
  int rank = -1;
  std::vector<double> largest;      ///< per direction, -1 where it has none
  std::vector<double> largest_end;  ///< the same on its accelerator's and NIC's links
  std::vector<std::uint32_t> touched;
  std::vector<std::uint32_t> touched_end;

  /// A pair of the rank crosses `direction` at `rate`; `own`: the direction is the rank's own
  /// accelerator's or NIC's link.
  void keep(std::uint32_t direction, double rate, bool own) {
    raise(largest, touched, direction, rate);
    if (own) raise(largest_end, touched_end, direction, rate);
  }
  /// Appends the rank's rows (its end's as 2 * rank + `receiving`), and forgets them.
  void flush(std::vector<std::tuple<std::uint32_t, int, double>>& by_rank,
             std::vector<std::tuple<std::uint32_t, int, double>>& by_end, bool receiving) {
    if (rank < 0) return;
    for (std::uint32_t d : touched) {
      by_rank.emplace_back(d, rank, largest[d]);
      largest[d] = -1;
    }
    for (std::uint32_t d : touched_end) {
      by_end.emplace_back(d, 2 * rank + (receiving ? 1 : 0), largest_end[d]);
      largest_end[d] = -1;
    }
    touched.clear();
    touched_end.clear();
  }
};

}  // namespace

WorldLoad::WorldLoad(const CollectiveShortcuts& shortcuts, const trace::Trace& trace, const topology::Network& network,
                     const std::vector<int>& placement, CollectivePlanner& planner)
    : shortcuts_(shortcuts), trace_(trace), network_(network), placement_(placement), planner_(planner) {
  // Three bounds per direction, the least applies: the senders that can cross it, each at its
  // largest rate there (one send in flight each); the receivers likewise (one receive in
  // flight each); and on the links of an accelerator or a NIC, whose every message has an end
  // on the accelerators it serves, those ends, each with one send and one receive at most.
  std::vector<LoadRow> by_sender;    // (direction, sender, lone rate)
  std::vector<LoadRow> by_receiver;  // (direction, receiver, lone rate)
  std::vector<LoadRow> by_end;       // (direction, 2 * end rank + receiving, lone rate)
  // The pairs, sorted by sender, then by receiver: each side's rows (and its own end's) are
  // kept to one per direction, its largest rate, as they come (a dense array over the
  // directions), not one per pair and direction (an all-to-all of 1,024 ranks has a million
  // pairs).
  std::vector<std::pair<int, int>> pairs = world_pairs();
  for (const bool receiving : {false, true}) {
    if (receiving) {
      std::sort(pairs.begin(), pairs.end(),
                [](const auto& x, const auto& y) { return std::tie(x.second, x.first) < std::tie(y.second, y.first); });
    }
    EndRows rows(2 * static_cast<std::size_t>(network_.link_count()));
    for (const auto& [src, dst] : pairs) {
      const int rank = receiving ? dst : src;
      if (rank != rows.rank) rows.flush(receiving ? by_receiver : by_sender, by_end, receiving);
      rows.rank = rank;
      const int a = at(placement_, src);
      const int b = at(placement_, dst);
      const int mine = receiving ? b : a;
      const CollectiveShortcuts::Path p = shortcuts_.path(a, b);
      for (std::uint32_t direction : p.directions) {
        const std::uint32_t link = direction / 2;
        rows.keep(direction, p.rate_Bps, link == network_.intra_link(mine) || link == nic_link_of(network_, mine));
      }
    }
    rows.flush(receiving ? by_receiver : by_sender, by_end, receiving);
  }
  // by_sender and by_receiver hold one row per (direction, rank), each direction's in rank
  // order (EndRows, the pairs sorted by that side); by_end one per (direction, end), in two
  // runs (sending, then receiving), which sorting puts in end order.
  std::sort(by_end.begin(), by_end.end());
  load_ = sum_of_largest(by_sender, false);
  for (const auto& bound : {sum_of_largest(by_receiver, false), sum_of_largest(by_end, true)}) {
    for (auto& [direction, load] : load_) {
      const auto it = bound.find(direction);
      if (it != bound.end() && it->second < load) load = it->second;
    }
  }
  // One row per (direction, sender), each direction's in sender order.
  for (const auto& [direction, sender, rate] : by_sender) {
    if (load_Bps(direction) > shortcuts_.capacity_Bps(direction / 2)) senders_[direction].push_back(sender);
  }
}

std::unordered_map<std::uint32_t, double> WorldLoad::sum_of_largest(const std::vector<LoadRow>& rows, bool ends) const {
  // Sums over each direction's rows (one per distinct second member: its largest rate), each
  // times the streams of its rank that communicate (each has its own message in flight). On a
  // fabric link (not an accelerator's or a NIC's) the messages of a rank together take no more
  // than its accelerator's link carries, and those of the ranks behind one NIC no more than
  // the NIC: they all go through both. Dense per direction: an all-to-all of 1,024 ranks has
  // millions of rows.
  std::vector<double> sums(2 * static_cast<std::size_t>(network_.link_count()), -1.0);  // -1: no row
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> behind_nic;  // (fabric direction, NIC link) -> load
  for (const auto& [direction, who, largest] : rows) {
    const int rank = ends ? who / 2 : who;
    const std::uint32_t link = direction / 2;
    double load = largest * shortcuts_.communicating_streams(rank);
    if (!ends && shortcuts_.fabric_link(link)) {
      const int a = at(placement_, rank);
      load = std::min(load, shortcuts_.capacity_Bps(network_.intra_link(a)));
      const std::uint32_t nic = nic_link_of(network_, a);
      if (nic < network_.link_count()) {
        behind_nic[{direction, nic}] += load;
        load = 0;
      }
    }
    double& sum = sums[direction];
    sum = (sum < 0 ? 0.0 : sum) + load;
  }
  for (const auto& [key, load] : behind_nic) sums[key.first] += std::min(load, shortcuts_.capacity_Bps(key.second));
  std::unordered_map<std::uint32_t, double> by_direction;
  for (std::size_t d = 0; d < sums.size(); ++d) {
    if (sums[d] >= 0) by_direction.emplace(static_cast<std::uint32_t>(d), sums[d]);
  }
  return by_direction;
}

std::span<const int> WorldLoad::senders(std::uint32_t direction) const {
  const auto it = senders_.find(direction);
  if (it == senders_.end()) return {};
  return it->second;
}

double WorldLoad::load_Bps(std::uint32_t direction) const {
  const auto it = load_.find(direction);
  return it == load_.end() ? 0.0 : it->second;
}

}  // namespace ccsim::engine
