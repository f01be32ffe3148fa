#include "engine/guarded_links.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/index.hpp"

namespace ccsim::engine {

namespace {

/// A rank's operators that move data, sorted by start, with the latest end up to each: an
/// interval (from, to) meets one of them when some operator starting before `to` ends after
/// `from`.
struct Movers {
  std::vector<double> starts_s;
  std::vector<double> latest_end_s;  ///< the latest end among the first k + 1
  std::vector<std::size_t> ops;
};

/// `rank`'s operators that move data and run at some time in (from_s, to_s): only those can
/// meet a guarded call (the cheap test on the times first, the operator's kind after).
Movers movers_of(const GuardedLinks::Job& job, int rank, double from_s, double to_s) {
  const RankRecords::List& records = job.records[as_index(rank)];
  std::vector<std::size_t> ops;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i].end_s <= from_s || records[i].start_s >= to_s) continue;
    if (job.moves_data(rank, i)) ops.push_back(i);
  }
  std::stable_sort(ops.begin(), ops.end(),
                   [&](std::size_t a, std::size_t b) { return records[a].start_s < records[b].start_s; });
  Movers m;
  double latest = -1;
  for (std::size_t i : ops) {
    latest = std::max(latest, records[i].end_s);
    m.starts_s.push_back(records[i].start_s);
    m.latest_end_s.push_back(latest);
    m.ops.push_back(i);
  }
  return m;
}

}  // namespace

void GuardedLinks::ran(int group, std::span<const Crossing> crossings, double from_s, double to_s) {
  ++calls_;
  for (const Crossing& c : crossings) by_direction_[c.direction].push_back({from_s, to_s, group, c.load_Bps});
}

std::pair<double, double> GuardedLinks::peak_load(const std::vector<Interval>& intervals) {
  // A sweep over starts and ends (ends first at a tie: touching calls do not overlap); a group
  // counts once while any of its calls runs (a call may be timed twice: FusedGroups tries it
  // whole before its members run it one by one).
  struct Event {
    double at_s;
    int delta;  // -1 an end, +1 a start
    std::size_t k;
  };
  std::vector<Event> events;
  for (std::size_t k = 0; k < intervals.size(); ++k) {
    events.push_back({intervals[k].from_s, +1, k});
    events.push_back({intervals[k].to_s, -1, k});
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.at_s != b.at_s ? a.at_s < b.at_s : a.delta < b.delta; });
  std::map<int, std::pair<int, double>> running;  // group -> (calls running, its largest load)
  double load = 0;
  double peak = 0;
  double peak_at_s = 0;
  for (const Event& e : events) {
    const Interval& in = intervals[e.k];
    auto& [count, group_load] = running[in.group];
    load -= group_load;
    count += e.delta;
    group_load = count > 0 ? std::max(group_load, in.load_Bps) : 0.0;
    load += group_load;
    if (load > peak) {
      peak = load;
      peak_at_s = e.at_s;
    }
  }
  return {peak, peak_at_s};
}

std::string GuardedLinks::check(const Job& job) const {
  // Directions in order, so that the breach named is the same run to run.
  std::map<std::uint32_t, const std::vector<Interval>*> directions;
  for (const auto& [direction, intervals] : by_direction_) directions.emplace(direction, &intervals);
  std::unordered_map<const RankRecords::List*, Movers> movers;  // ranks that share records move alike
  double from_s = std::numeric_limits<double>::infinity();      // when the first guarded call started
  double to_s = -from_s;                                        // and the last one ended
  for (const auto& [direction, intervals] : directions) {
    for (const Interval& in : *intervals) {
      from_s = std::min(from_s, in.from_s);
      to_s = std::max(to_s, in.to_s);
    }
  }
  for (const auto& [direction, intervals] : directions) {
    const auto [peak_Bps, at_s] = peak_load(*intervals);
    if (peak_Bps > job.capacity_Bps(direction)) {
      return fmt::format(
          "collectives that ran as their critical path across link {} at once needed {:g} B/s of its {:g} B/s (at "
          "t={:.9f} s)",
          job.name(direction), peak_Bps, job.capacity_Bps(direction), at_s);
    }
    for (int rank : job.senders(direction)) {
      const RankRecords::List* list = &job.records[as_index(rank)];
      auto it = movers.find(list);
      if (it == movers.end()) it = movers.emplace(list, movers_of(job, rank, from_s, to_s)).first;
      const Movers& m = it->second;
      for (const Interval& in : *intervals) {
        // The operators that start before the call ends; one of them that ends after it starts meets it.
        const auto k = static_cast<std::size_t>(std::lower_bound(m.starts_s.begin(), m.starts_s.end(), in.to_s) -
                                                m.starts_s.begin());
        if (k == 0 || m.latest_end_s[k - 1] <= in.from_s) continue;
        std::size_t op = m.ops[0];
        for (std::size_t j = 0; j < k; ++j) {
          if ((*list)[m.ops[j]].end_s > in.from_s) {
            op = m.ops[j];
            break;
          }
        }
        const OpRecord& record = (*list)[op];
        return fmt::format(
            "rank {}'s operator #{} may have moved data across link {} from t={:.9f} s to t={:.9f} s, while a "
            "collective on \"{}\" ran across it as its critical path (from t={:.9f} s to t={:.9f} s) on the "
            "speculation that nothing else would",
            rank, op, job.name(direction), record.start_s, record.end_s, job.group_name(in.group), in.from_s, in.to_s);
      }
    }
  }
  return "";
}

}  // namespace ccsim::engine
