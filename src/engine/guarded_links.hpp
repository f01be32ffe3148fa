#pragma once

// Engine-internal (CollectiveShortcuts, Simulation): collectives that run as their critical path
// across fabric links that other messages may use, checked once the replay is over.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/result.hpp"

namespace ccsim::engine {

/// --fast: a collective whose messages cannot slow one another down runs as its critical path
/// (CollectiveShortcuts). On a fabric link that the whole job could fill (WorldLoad), that holds
/// only while nothing else crosses it: a data-parallel ring across supernodes' uplinks, which
/// pipeline messages also cross, is alone there once the pipeline has drained into it, but no
/// bound on the whole job says so. Such a link direction is *guarded*: the collective runs as
/// its critical path on the speculation that, while it runs, (1) no operator of a rank that can
/// send across the direction moves data (a send, a receive, or a collective that does not run
/// as its critical path: every message across it has its sender there, and a transfer happens
/// inside its sender's operator), and (2) the guarded collectives in progress at once across it
/// fit in its capacity (each group's own load is the bound CollectiveShortcuts checks for it
/// alone). Then every message crossing it runs at its lone rate, and the critical path's times
/// are the full replay's. Both are checked after the replay, against every rank's records; a
/// replay that breaks one is not reported: replay() runs it again without guarded links.
/// State: the guarded calls' intervals per direction.
class GuardedLinks {
 public:
  /// One guarded direction of a collective's messages and the most they take of it at once.
  struct Crossing {
    std::uint32_t direction = 0;  ///< 2 * link + d, as CollectiveShortcuts::Path::directions
    double load_Bps = 0;
  };
  /// A call of `group` whose messages take `crossings` ran from `from_s` (its first member's
  /// start) to `to_s` (its last member's end).
  void ran(int group, std::span<const Crossing> crossings, double from_s, double to_s);
  /// Whether no guarded call ran.
  bool empty() const { return calls_ == 0; }
  /// Guarded calls run, for the note.
  std::size_t calls() const { return calls_; }

  /// What the check needs of the replay.
  struct Job {
    const RankRecords& records;
    /// The ranks that can send across a direction (WorldLoad::senders).
    std::function<std::span<const int>(std::uint32_t direction)> senders;
    /// Whether operator `i` of `rank` may move data across links (a send, a receive, a
    /// collective that does not run as its critical path).
    std::function<bool(int rank, std::size_t i)> moves_data;
    std::function<double(std::uint32_t direction)> capacity_Bps;
    std::function<std::string(std::uint32_t direction)> name;
    std::function<std::string(int group)> group_name;
  };
  /// "" when the speculation held; otherwise the first breach found, naming the link, the
  /// guarded calls and the rank and operator that moved data, or the calls that overfilled it.
  std::string check(const Job& job) const;

 private:
  struct Interval {
    double from_s = 0;
    double to_s = 0;
    int group = 0;
    double load_Bps = 0;
  };
  /// The most that distinct groups' calls take of a direction at once, and when.
  static std::pair<double, double> peak_load(const std::vector<Interval>& intervals);

  std::unordered_map<std::uint32_t, std::vector<Interval>> by_direction_;
  std::size_t calls_ = 0;
};

}  // namespace ccsim::engine
