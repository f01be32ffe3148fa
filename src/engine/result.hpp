#pragma once

#include "core/index.hpp"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim::engine {

/// When one operator of one rank ran in simulated time. One per operator and rank (9.7 M at
/// 1,024 accelerators of GPT-3 175B): the fields are ordered so that the record has no
/// padding (56 bytes, not 64).
struct OpRecord {
  std::uint32_t name = 0;       ///< index into Result::names ("linear", "all_reduce", ...)
  std::uint32_t label = 0;      ///< index into Result::names, 0 = no label
  std::uint32_t kind = 0;       ///< index into Result::names ("compute", "all_reduce", "send", ...)
  std::uint32_t algorithm = 0;  ///< collectives: index into Result::names ("ring", "compressed-ring", ...)
  float error_worst_eb = 0;     ///< compressed collectives: worst error of the result, in units of eb
  float error_expected_eb = 0;  ///< ... and its expected value
  std::uint64_t bytes = 0;      ///< message or buffer size (0 for compute)
  double start_s = 0;
  double end_s = 0;
  /// Communication operators: time the rank spent inside the operator waiting for its peers,
  /// with none of the operator's transfers in progress (report/README.md, "Wait"); 0 for compute.
  double wait_s = 0;
};
static_assert(sizeof(OpRecord) == 56, "OpRecord has padding again");

/// An interval of one rank's simulated time spent waiting for peers inside an operator (the
/// parts of OpRecord::wait_s), recorded only when ReplayOptions::wait_spans asks for them.
struct WaitSpan {
  std::uint32_t op = 0;  ///< index of the operator in Result::ops[rank]
  double start_s = 0;
  double end_s = 0;
};

/// Every rank's records, ranks[rank] in program order. Ranks that ran as one (--fast runs a
/// group of identical ranks in lockstep as one simulated rank) share one list instead of
/// holding copies: at 10,240 accelerators of GPT-3 175B the records are most of the memory.
/// Reading is by `[rank]`; writing by writable(rank), whose writes every rank that shares the
/// list reads, or by own(rank), which first gives a rank that shares its list a copy.
class RankRecords {
 public:
  using List = std::vector<OpRecord>;
  RankRecords() = default;
  RankRecords(std::initializer_list<List> lists);
  std::size_t size() const { return lists_.size(); }
  bool empty() const { return lists_.empty(); }
  /// Ranks added get empty lists of their own; ranks removed drop theirs.
  void resize(std::size_t ranks);
  const List& operator[](std::size_t rank) const { return *lists_[rank]; }
  /// The rank's list, to write, shared or not.
  List& writable(std::size_t rank) { return *lists_[rank]; }
  /// The rank's list, to write: a copy of its own first when it shares one.
  List& own(std::size_t rank);
  /// From now on `rank` reads `with`'s list (not a copy: what `with` writes, `rank` reads).
  void share(std::size_t rank, std::size_t with) { lists_[rank] = lists_[with]; }
  /// Whether two ranks read one list.
  bool shared(std::size_t a, std::size_t b) const { return lists_[a] == lists_[b]; }
  /// Per rank, the first rank that reads its list (itself when none before it does): a reader
  /// of every list once reads the ranks r with first_readers()[r] == r.
  std::vector<std::size_t> first_readers() const;

 private:
  std::vector<std::shared_ptr<List>> lists_;
};

/// The outcome of one simulated replay: what the report module reads, and nothing else.
struct Result {
  std::string trace_name;
  int iterations = 0;  ///< training iterations the trace holds; 0 when it does not say
  std::string trace_file;
  std::string platform_name;
  std::string platform_file;
  std::string network_model;  ///< the SimGrid network configuration, as a sentence
  std::string algorithm;      ///< the collective algorithm(s) used
  std::string placement;      ///< the placement policy applied
  std::string compression;    ///< the compression applied, "none" without
  std::string compute;        ///< how compute durations were obtained (ReplayOptions::compute), "" when not said
  /// The absolute error bound eb of one compression, NaN when unknown (a relative bound
  /// without a value range) or unbounded (quantizers).
  double error_bound_abs = 0;
  std::vector<std::string> notes;  ///< what the models had to assume (clamped settings, ...)
  /// Why collectives that ran as their critical path across guarded links (GuardedLinks) did
  /// not have them to themselves; "" when they did or none ran. Such a result is not the full
  /// replay's: replay() runs the job again without guarded links.
  std::string guard_breach;
  /// Members' calls of collectives that ran message by message as events of SimGrid's kernel
  /// (EventSteps, engine/event_steps.hpp) rather than through their actors.
  std::uint64_t event_calls = 0;
  int world_size = 0;
  /// Nodes of the platform that the placement put at least one rank on: with 1, no message
  /// crossed the network between nodes.
  int nodes_used = 0;
  int stage_count = 1;
  std::vector<int> stage;                    ///< pipeline stage of each rank
  std::vector<std::string> names;            ///< names[0] == ""
  RankRecords ops;                           ///< ops[rank], in program order
  std::vector<std::vector<WaitSpan>> waits;  ///< waits[rank] in time order; empty unless recorded
  /// Per rank whose program has streams (traces/README.md, "Streams"): the stream of each of
  /// its operators, shared by the ranks of one program; nullptr for a rank without streams,
  /// empty when no rank has any.
  std::vector<std::shared_ptr<const std::vector<std::uint8_t>>> streams;
  double makespan_s = 0;  ///< when the last rank finished
  /// Whether OpRecord::wait_s was measured (a simulated replay); false for results made of a
  /// trace's own durations (`trace inspect`), whose waits are unknown, not 0.
  bool has_waits = false;

  std::string_view name(std::uint32_t id) const { return names[id]; }
  /// Last end time of a rank's operators (0 without operators).
  double rank_end_s(int rank) const;
  /// The streams of a rank's operators, nullptr when it has none (one stream).
  const std::vector<std::uint8_t>* streams_of(int rank) const {
    return streams.empty() ? nullptr : at(streams, rank).get();
  }
};

/// Binary (de)serialization, used to bring a Result back from the simulation's child process.
std::string serialize(const Result& result);
Result deserialize(std::string_view bytes);

}  // namespace ccsim::engine
