// Guarded links (engine/guarded_links.hpp): collectives that run as their critical path across
// fabric links that other messages may use, on the speculation that nothing else crosses them
// meanwhile, checked after the replay; a replay that breaks it runs again without.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/guarded_links.hpp"
#include "engine/replay.hpp"
#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"
#include "engine_fixtures.hpp"
#include "support/split.hpp"
#include "../topology/topology_fixtures.hpp"

using namespace ccsim;

namespace {

/// The note of `r` that contains `text` ("" when none does).
std::string note_with(const engine::Result& r, const std::string& text) {
  for (const std::string& note : r.notes) {
    if (note.find(text) != std::string::npos) return note;
  }
  return "";
}

const char* const kHeld = "crossed fabric links that other messages may use as";
const char* const kRanTwice = "(the replay ran twice)";

engine::ReplayOptions fast() {
  engine::ReplayOptions options;
  options.fast = true;
  return options;
}

}  // namespace

TEST_CASE(
    "data-parallel rings across uplinks that pipeline messages also cross run as their critical path once "
    "the pipeline has drained, with the full replay's times",
    "[engine][shortcut][guarded]") {
  // The small GPT, PP 2, DP 8 (rank = stage * 8 + replica) on 16 nodes of one accelerator,
  // leaves of 4 nodes under a 2:1 oversubscribed root. Stage 0 is on leaves 0 and 1, stage 1
  // on leaves 2 and 3: every pipeline message crosses the root (up to 4 at once per leaf, of 2
  // cables' worth), and so does each stage's gradient ring (one message per uplink
  // direction). No bound on the whole job lets the rings run as their critical path; once a
  // stage's last backward message has arrived, nothing else crosses its leaves' uplinks, which
  // the check after the replay confirms.
  const synth::Parallelism par = test::split(1, 2, 8, 4);
  const trace::Trace t = synth::synthesize(synth::load_model("small-gpt"), par, "test");
  const topology::Platform platform = test::platform(16, 1, 1, test::fat_tree(4, 4, "2"));
  engine::ReplayOptions options = fast();
  options.all_reduce_algorithm = "ring";
  options.fold_replicas = false;
  const engine::Result guarded = engine::replay(t, platform, options);
  CHECK_THAT(note_with(guarded, kHeld), Catch::StartsWith("shortcuts: ") &&
                                            Catch::Contains("collective calls crossed fabric links") &&
                                            Catch::Contains("checked after the replay"));
  CHECK(note_with(guarded, kRanTwice).empty());
  options.guarded_links = false;
  const engine::Result unguarded = engine::replay(t, platform, options);
  CHECK(note_with(unguarded, kHeld).empty());
  options.fast = false;
  const engine::Result full = engine::replay(t, platform, options);
  CAPTURE(guarded.makespan_s, unguarded.makespan_s, full.makespan_s);
  CHECK(test::largest_difference(guarded, full) <= 1e-6);
  CHECK(test::largest_difference(unguarded, full) <= 1e-6);
  // The replicas fold now (before, the rings ran message by message and they could not). A
  // ring member's end depends on where the root's latency lies on its way, so the fold's own
  // approximation applies (engine/replica_fold.hpp: a simulated member ends with the latest of
  // those it stands for), as it notes.
  options.fast = true;
  options.fold_replicas = true;
  options.guarded_links = true;
  const engine::Result folded = engine::replay(t, platform, options);
  CHECK_THAT(note_with(folded, "data-parallel replicas"),
             Catch::Contains("ran as 1 simulated one") && Catch::Contains("ended up to 6 us apart"));
  CHECK(note_with(folded, kRanTwice).empty());
  CHECK(test::largest_difference(folded, full) <= 2e-3);
}

TEST_CASE(
    "a message that crosses a guarded link while the collective runs is found, and the job runs again "
    "message by message",
    "[engine][shortcut][guarded]") {
  // Two leaves of 3 nodes under a 3:1 root (uplinks of one NIC's 10 GB/s). Ranks 0 and 3 (one
  // per leaf) all_reduce 64 MiB while rank 1 sends 64 MiB to rank 4 across the same uplinks:
  // the group alone fits them, the whole job does not, and the two do share them.
  const std::uint64_t n = 64ull << 20;
  const std::string groups = R"({"name": "pair", "kind": "data", "ranks": [0, 3]})";
  const std::string reduce =
      fmt::format(R"({{"kind": "all_reduce", "group": "pair", "bytes": {}, "dtype": "fp32"}})", n);
  const std::string idle = R"({"kind": "compute", "name": "c", "duration_ms": 1})";
  const trace::Trace t = test::make_trace(6, groups, {reduce, test::send(4, n), idle, reduce, test::recv(1, n), idle});
  const topology::Platform platform = test::platform(6, 1, 1, test::fat_tree(3, 2, "3"));
  engine::ReplayOptions options = fast();
  options.all_reduce_algorithm = "ring";
  options.placement = "rank-order";
  const engine::Result r = engine::replay(t, platform, options);
  CHECK_THAT(note_with(r, kRanTwice),
             Catch::Contains("rank 1's operator #0 may have moved data across link") &&
                 Catch::Contains("while a collective on \"pair\" ran across it as its critical path"));
  CHECK(note_with(r, kHeld).empty());
  options.fast = false;
  const engine::Result full = engine::replay(t, platform, options);
  CHECK(test::largest_difference(r, full) <= 1e-6);
  // The sharing binds: the all_reduce alone ends sooner, so the speculation would have been wrong.
  const trace::Trace alone = test::make_trace(6, groups, {reduce, idle, idle, reduce, idle, idle});
  CHECK(engine::replay(alone, platform, options).ops[0][0].end_s < full.ops[0][0].end_s * 0.9);
}

TEST_CASE("the check of guarded links counts a group once, lets calls touch, and names the operator that met one",
          "[engine][shortcut][guarded]") {
  engine::RankRecords records({{}, {}});
  records.writable(0) = {engine::OpRecord{}, engine::OpRecord{}};
  records.writable(0)[0].start_s = 0;
  records.writable(0)[0].end_s = 1;  // a send, ending when the guarded calls start
  records.writable(0)[1].start_s = 1;
  records.writable(0)[1].end_s = 2;  // the guarded collective itself
  records.writable(1) = records[0];
  std::vector<int> senders = {0, 1};
  const engine::GuardedLinks::Job job{
      records,
      [&](std::uint32_t) { return std::span<const int>(senders); },
      [](int, std::size_t i) { return i == 0; },
      [](std::uint32_t) { return 10.0; },
      [](std::uint32_t direction) { return fmt::format("L{}", direction); },
      [](int group) { return fmt::format("g{}", group); },
  };
  const std::vector<engine::GuardedLinks::Crossing> six = {{4, 6.0}};
  engine::GuardedLinks guarded;
  CHECK(guarded.empty());
  guarded.ran(0, six, 1, 2);
  guarded.ran(0, six, 1, 2);  // the same call timed twice (a fused group's try, then its members)
  CHECK(guarded.calls() == 2);
  CHECK(guarded.check(job).empty());
  guarded.ran(1, six, 1.5, 3);  // another group's call overlaps: 12 of 10
  CHECK_THAT(guarded.check(job), Catch::StartsWith("collectives that ran as their critical path across link L4 at "
                                                   "once needed 12 B/s of its 10 B/s (at t=1.500000000 s)"));
  engine::GuardedLinks early;
  early.ran(0, six, 0.5, 2);  // starts before the send ends
  CHECK(early.check(job) ==
        "rank 0's operator #0 may have moved data across link L4 from t=0.000000000 s to t=1.000000000 s, while a "
        "collective on \"g0\" ran across it as its critical path (from t=0.500000000 s to t=2.000000000 s) on the "
        "speculation that nothing else would");
}
