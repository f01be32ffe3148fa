// --fast simulates data-parallel replicas that copy another replica once (engine/replica_fold.hpp):
// checked here against the fast replay that simulates every replica and against the full replay.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/replay.hpp"
#include "topology/network_model.hpp"
#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"
#include "trace/native_reader.hpp"
#include "engine_fixtures.hpp"
#include "support/split.hpp"
#include "../topology/topology_fixtures.hpp"

using namespace ccsim;

namespace {

/// The --fast note on data-parallel replicas ("" without).
std::string replica_note(const engine::Result& r) {
  for (const std::string& note : r.notes) {
    if (note.find("data-parallel replicas") != std::string::npos) return note;
  }
  return "";
}

/// The small GPT of the shared traces, TP 2, PP 2, DP 4, 4 micro-batches: 16 ranks in Megatron's
/// order (rank = stage * 8 + replica * 2 + tensor rank), one node of 2 accelerators per
/// (stage, replica): replica d on nodes d and 4 + d.
trace::Trace small_job() {
  const synth::Parallelism par = test::split(2, 2, 4, 4);
  return synth::synthesize(synth::load_model("small-gpt"), par, "test");
}

/// 8 nodes of 2 accelerators and 2 NICs on a two-level fat-tree with leaves of `leaf` NIC ports.
topology::Platform eight_nodes(int leaf, const std::string& oversubscription = "1") {
  return test::platform(8, 2, 2, test::fat_tree(leaf, 16, oversubscription));
}

/// A calibrated model of NCCL's form (models/network/dgx-*-nccl.json): latency and bandwidth
/// by size per tier, below the nominal links' (a model faster than the NICs would make their
/// floors exceed the fat-tree's uplinks, whose sharing could then bind), no overheads.
std::shared_ptr<topology::NetworkModel> protocols_model() {
  auto model = std::make_shared<topology::NetworkModel>();
  model->name = "protocols";
  model->has_intra = model->has_inter = true;
  model->intra.segments = {{0, 5e-7, 5e9}, {65536, 2e-6, 2e10}};
  model->inter.segments = {{0, 3e-6, 6e8}, {8192, 5e-6, 2e9}, {1 << 20, 9e-6, 9e9}};
  return model;
}

/// Gradients compressed by a test codec (error bound 1e-3) in a compressed ring.
engine::ReplayOptions compressed_ring() {
  engine::ReplayOptions options;
  options.compression.model = test::round_compressor(false, false);
  options.compression.query.error_bound = 1e-3;
  options.all_reduce_algorithm = "compressed-ring";
  return options;
}

engine::ReplayOptions fast() {
  engine::ReplayOptions options;
  options.fast = true;
  return options;
}

struct Runs {
  engine::Result folded;  ///< --fast
  engine::Result every;   ///< --fast --every-replica
  engine::Result full;    ///< without --fast
};

Runs run_three(const trace::Trace& t, const topology::Platform& platform, engine::ReplayOptions options = {}) {
  Runs runs;
  options.fast = true;
  runs.folded = engine::replay(t, platform, options);
  options.fold_replicas = false;
  runs.every = engine::replay(t, platform, options);
  options.fast = false;
  runs.full = engine::replay(t, platform, options);
  return runs;
}

}  // namespace

TEST_CASE(
    "a fast replay simulates data-parallel replicas that copy another replica once, with the times of the "
    "replays that simulate every replica",
    "[engine][fold]") {
  const trace::Trace t = small_job();
  SECTION("all replicas alike: one simulated") {
    // Leaves of 4 ports (2 nodes): every replica's stages sit on two leaves.
    const Runs r = run_three(t, eight_nodes(4));
    CHECK_THAT(replica_note(r.folded),
               Catch::StartsWith("shortcuts: the 4 data-parallel replicas ran as 1 simulated one "
                                 "(4 of 16 ranks): the others talk only to themselves"));
    CHECK(replica_note(r.every).empty());
    CHECK(replica_note(r.full).empty());
    CAPTURE(r.folded.makespan_s, r.every.makespan_s, r.full.makespan_s);
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-12);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
  }
  SECTION("replicas that share oversubscribed links symmetrically: one simulated, at its share of them") {
    // Leaves of 8 ports (4 nodes) under a 4:1 oversubscribed level: every replica's pipeline
    // messages go from leaf 0 to leaf 1, and the 4 replicas share the leaves' uplinks, each
    // with the same pairs of ranks. The simulated replica takes a quarter of each.
    const Runs r = run_three(t, eight_nodes(8, "4"));
    CHECK_THAT(replica_note(r.folded),
               Catch::StartsWith("shortcuts: the 4 data-parallel replicas ran as 1 simulated one (4 of 16 ranks)") &&
                   Catch::Contains("sharing 4 links with other replicas symmetrically"));
    CAPTURE(r.folded.makespan_s, r.every.makespan_s, r.full.makespan_s);
    // The sharing binds: the same job on a non-blocking fabric ends sooner.
    CHECK(r.every.makespan_s > engine::replay(t, eight_nodes(8), fast()).makespan_s);
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-9);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
  }
  SECTION("replicas on one leaf and across two: two simulated, and ends of the gradients' ring apart") {
    // Leaves of 10 ports (5 nodes): replica 0 (nodes 0 and 4) on one leaf, the others across
    // two, whose routes take the root's latency too. A data-parallel group spans both leaves:
    // its ring's members end microseconds apart.
    const Runs r = run_three(t, eight_nodes(10));
    const std::string note = replica_note(r.folded);
    CHECK_THAT(note,
               Catch::StartsWith("shortcuts: the 4 data-parallel replicas ran as 2 simulated ones (8 of 16 ranks)"));
    CHECK_THAT(note,
               Catch::Contains("; members of a data-parallel collective that started it together ended up to 6 us "
                               "apart, and a simulated rank ended it with the latest of the ranks it stood for"));
    CAPTURE(r.folded.makespan_s, r.every.makespan_s, r.full.makespan_s);
    // Issue 11's bound for a shortcut that is not exact: 1 % of the iteration. Measured: the
    // same makespan, and operators up to 1.36e-3 of it later (the latest end of a ring).
    CHECK(std::abs(r.folded.makespan_s - r.every.makespan_s) <= 0.01 * r.every.makespan_s);
    CHECK(test::largest_difference(r.folded, r.every) <= 2e-3);
    CHECK(test::largest_difference(r.folded, r.full) <= 2e-3);
  }
  SECTION("the waits of a timeline") {
    engine::ReplayOptions options;
    options.wait_spans = true;
    const Runs r = run_three(t, eight_nodes(4), options);
    REQUIRE(r.folded.waits.size() == 16);
    std::size_t spans = 0;
    for (std::size_t rank = 0; rank < 16; ++rank) {
      const auto& folded = r.folded.waits[rank];
      const auto& every = r.every.waits[rank];
      REQUIRE(folded.size() == every.size());
      spans += folded.size();
      for (std::size_t k = 0; k < folded.size(); ++k) {
        CHECK(folded[k].op == every[k].op);
        CHECK(std::abs(folded[k].start_s - every[k].start_s) <= 1e-12 * r.every.makespan_s);
        CHECK(std::abs(folded[k].end_s - every[k].end_s) <= 1e-12 * r.every.makespan_s);
      }
    }
    CHECK(spans > 0);
  }
  SECTION("under a calibrated network model without overheads") {
    auto model = protocols_model();
    engine::ReplayOptions options;
    options.network.calibrated = model;
    const Runs r = run_three(t, eight_nodes(4), options);
    CHECK_THAT(replica_note(r.folded),
               Catch::StartsWith("shortcuts: the 4 data-parallel replicas ran as 1 simulated one"));
    CAPTURE(r.folded.makespan_s, r.every.makespan_s, r.full.makespan_s);
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-12);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
    // Leaves of 5 nodes: replica 0's pipeline messages stay on a leaf, the others' cross the
    // root, whose cables (10 GB/s) bound each message: no lower than the NICs it shares, a
    // bound that cannot bind. Under the model's latencies, all are copies of one.
    const Runs apart = run_three(t, eight_nodes(10), options);
    CHECK_THAT(replica_note(apart.folded),
               Catch::StartsWith("shortcuts: the 4 data-parallel replicas ran as 1 simulated one"));
    CHECK(test::largest_difference(apart.folded, apart.every) <= 1e-12);
    CHECK(test::largest_difference(apart.folded, apart.full) <= 1e-6);
    // A model fitted from some smallest message counts those below it: every replica runs.
    model->inter.floor_bytes = 512;
    CHECK(replica_note(engine::replay(t, eight_nodes(4), fast())).empty() == false);
    options.fast = true;
    CHECK(replica_note(engine::replay(t, eight_nodes(4), options)).empty());
  }
  SECTION("compressed gradients") {
    const engine::ReplayOptions options = compressed_ring();
    const Runs r = run_three(t, eight_nodes(4), options);
    CHECK_THAT(replica_note(r.folded),
               Catch::StartsWith("shortcuts: the 4 data-parallel replicas ran as 1 simulated one"));
    CAPTURE(r.folded.algorithm);
    CHECK(std::any_of(r.folded.names.begin(), r.folded.names.end(),
                      [](const std::string& n) { return n == "compressed-ring"; }));
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-12);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
  }
}

TEST_CASE(
    "a fast replay folds replicas whose gradient buckets overlap the backward, running the buckets as mirrors, "
    "with the times of the replays that simulate every replica",
    "[engine][fold][mirror]") {
  // Gradients reduced in buckets on stream 1 during the last backward: their rings share each
  // rank's NIC with the pipeline's sends of stream 0, so no critical path times them.
  synth::Parallelism par = test::split(2, 2, 4, 4);
  par.overlap_grad_reduce = true;
  par.bucket_params = 3e5;
  const trace::Trace t = synth::synthesize(synth::load_model("small-gpt"), par, "test");
  engine::ReplayOptions ring;
  ring.all_reduce_algorithm = "ring";
  SECTION("one leaf: every route alike") {
    const Runs r = run_three(t, eight_nodes(16), ring);
    const std::string note = replica_note(r.folded);
    // The buckets overlap the backward's tensor-parallel all_reduces too: the 2 peers of each
    // group fold as well, their all_reduces mirrors within the node (one simulated rank of 16
    // per stage).
    CHECK_THAT(note,
               Catch::StartsWith("shortcuts: the 4 data-parallel replicas ran as 1 simulated one (2 of 16 ranks)") &&
                   Catch::Contains("or as mirrors, ") &&
                   Catch::Contains(" of the simulated replica that no critical path times") &&
                   Catch::Contains("; the 2 tensor-parallel peers of each group ran as one simulated rank"));
    CAPTURE(note, r.folded.makespan_s, r.every.makespan_s, r.full.makespan_s);
    CHECK(replica_note(r.every).empty());
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-9);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
    // (A mirror without the member's own links in, whose sharing with the pipeline's receives
    // it stands for, was 0.4 % of the iteration off.)
  }
  SECTION("two leaves under a calibrated model without overheads: the model's latency for every route") {
    auto model = protocols_model();
    engine::ReplayOptions options = ring;
    options.network.calibrated = model;
    const Runs r = run_three(t, eight_nodes(8), options);
    CHECK_THAT(replica_note(r.folded), Catch::Contains("or as mirrors, "));
    CAPTURE(r.folded.makespan_s, r.every.makespan_s, r.full.makespan_s);
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-9);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
  }
  SECTION("compressed buckets: the codec's steps in the mirror too") {
    const engine::ReplayOptions options = compressed_ring();
    const Runs r = run_three(t, eight_nodes(16), options);
    CHECK_THAT(replica_note(r.folded), Catch::Contains("or as mirrors, "));
    CHECK(std::any_of(r.folded.names.begin(), r.folded.names.end(),
                      [](const std::string& n) { return n == "compressed-ring"; }));
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-9);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
  }
  SECTION("routes of different latencies: every replica simulated, and the note says why") {
    // Leaves of 4 ports: a ring's hops within a leaf and across the root.
    engine::ReplayOptions options = ring;
    options.fast = true;
    const engine::Result r = engine::replay(t, eight_nodes(4), options);
    CHECK_THAT(
        replica_note(r),
        Catch::StartsWith("shortcuts: the 4 data-parallel replicas were simulated one by one: the all_reduce on") &&
            Catch::Contains("another stream of its rank may overlap it; nor can it run as a mirror: its messages "
                            "from accelerator ") &&
            Catch::EndsWith("take routes of different latencies or rates"));
    // No collective ran as a mirror: the replay is that of every replica.
    options.fold_replicas = false;
    CHECK(test::largest_difference(r, engine::replay(t, eight_nodes(4), options)) == 0);
  }
}

TEST_CASE(
    "replicas that could slow one another down or that are no copies of one another are each simulated, and "
    "the note says why",
    "[engine][fold]") {
  SECTION("replicas of two kinds that share an oversubscribed link") {
    // Two domains of 4 nodes (leaves of 2 nodes under a non-blocking switch) under a 4:1
    // oversubscribed root: stage 0 in one, stage 1 in the other, so every replica's pipeline
    // messages share the domains' uplinks. Replicas 2 and 3 have their tensor-parallel peers
    // on two nodes (the others on one): their times differ from replicas 0 and 1's, and so
    // would their loads on the shared links.
    const std::string network = R"({"topology": "fat-tree", "source": "test", "levels": [
        {"down": 4, "source": "test"},
        {"down": 2, "bandwidth_Bps": 1e10, "latency_s": 3e-6, "oversubscription": 1, "source": "test"},
        {"down": 2, "bandwidth_Bps": 1e10, "latency_s": 3e-6, "oversubscription": 4, "source": "test"}]})";
    const topology::Platform platform = test::platform(8, 2, 2, network);
    const trace::Trace t = small_job();
    engine::ReplayOptions options = fast();
    options.placement = "map:0,1,2,3,4,6,5,7,8,9,10,11,12,13,14,15";
    const engine::Result r = engine::replay(t, platform, options);
    CHECK(replica_note(r) ==
          "shortcuts: the 4 data-parallel replicas were simulated one by one: replicas share links, and their "
          "messages meet in 2 different ways (only copies of one replica share a link alike)");
    options.fold_replicas = false;
    CHECK(test::largest_difference(r, engine::replay(t, platform, options)) == 0);
    // With every replica's peers on one node, all are copies of one, simulated at its share.
    options.placement = "auto";
    options.fold_replicas = true;
    CHECK_THAT(replica_note(engine::replay(t, platform, options)),
               Catch::StartsWith("shortcuts: the 4 data-parallel replicas ran as 1 simulated one"));
  }
  SECTION("gradients that run message by message") {
    const engine::Result r = engine::replay(small_job(), eight_nodes(2, "4"), fast());
    CHECK_THAT(replica_note(r),
               Catch::StartsWith("shortcuts: the 4 data-parallel replicas were simulated one by one: the "
                                 "all_reduce on \"dp0_0\" (operator #") &&
                   Catch::Contains(" of rank 0) runs message by message: its messages cross fabric links"));
  }
  SECTION("ranks that do not share their counterpart's program (a version-1 trace)") {
    const std::string ar = R"({"kind": "all_reduce", "group": "dp", "bytes": 1048576, "dtype": "fp32"})";
    const trace::Trace t = test::make_trace(2, R"({"name": "dp", "kind": "data", "ranks": [0, 1]})", {ar, ar});
    const engine::Result r = engine::replay(t, test::two_nodes_of_four(), fast());
    CHECK(
        replica_note(r) ==
        "shortcuts: the 2 data-parallel replicas were simulated one by one: rank 1 (replica 1) does not run the program "
        "of rank 0 (replica 0)");
  }
  SECTION("a pipeline that crosses replicas") {
    // Replica 0 is ranks 0 and 2, replica 1 ranks 1 and 3; the pipeline groups pair 0 with 3
    // and 1 with 2: replica 1's rank 1 sends to rank 2 of replica 0.
    const trace::Trace t =
        trace::parse_native(R"({"format": "ccsim-trace", "version": 2, "name": "cross", "world_size": 4,
      "groups": [{"name": "dp0", "kind": "data", "ranks": [0, 1]}, {"name": "dp1", "kind": "data", "ranks": [2, 3]},
                 {"name": "pp0", "kind": "pipeline", "ranks": [0, 3]}, {"name": "pp1", "kind": "pipeline", "ranks": [1, 2]}],
      "programs": [
        {"ranks": [[0, 1]], "ops": [{"kind": "send", "peer": "@pipeline+1", "bytes": 1048576},
          {"kind": "all_reduce", "group": "@data", "bytes": 1048576, "dtype": "fp32"}]},
        {"ranks": [[2, 3]], "ops": [{"kind": "recv", "peer": "@pipeline-1", "bytes": 1048576},
          {"kind": "all_reduce", "group": "@data", "bytes": 1048576, "dtype": "fp32"}]}]})",
                            "cross.json");
    const engine::Result r = engine::replay(t, test::two_nodes_of_four(), fast());
    CHECK(
        replica_note(r) ==
        "shortcuts: the 2 data-parallel replicas were simulated one by one: operator #0 of rank 1 (send rank 2) is no "
        "copy of rank 0's in replica 0");
  }
}

/// The tensor-parallel part of a --fast replay's note on folding ("" without).
std::string tensor_note(const engine::Result& r) {
  for (const std::string& note : r.notes) {
    if (const auto at = note.find("tensor-parallel peers of each group"); at != std::string::npos) return note;
  }
  return "";
}

TEST_CASE(
    "a fast replay folds the tensor-parallel peers of groups whose all_reduces share links with the pipeline's "
    "overlapped messages, with the times of the replays that simulate every rank",
    "[engine][fold][mirror]") {
  // The interleaved schedule with --overlap-p2p: each rank's sends and receives, on streams of
  // their own, overlap its tensor-parallel all_reduces, which share the accelerator's link to
  // its node with them (the NIC is reached through it), so no critical path times those; each
  // runs as a mirror of the simulated peer within its node.
  synth::Parallelism par = test::split(2, 2, 2, 4);
  par.schedule = synth::PipelineSchedule::kInterleaved;
  par.virtual_stages = 2;
  par.overlap_p2p = true;
  const trace::Trace t = synth::synthesize(synth::load_model("small-gpt"), par, "test");
  engine::ReplayOptions ring;
  ring.all_reduce_algorithm = "ring";
  SECTION("a NIC per accelerator: one simulated rank per stage") {
    const Runs r = run_three(t, eight_nodes(16), ring);
    CAPTURE(r.folded.notes, r.folded.makespan_s, r.every.makespan_s, r.full.makespan_s);
    CHECK_THAT(replica_note(r.folded),
               Catch::StartsWith("shortcuts: the 2 data-parallel replicas ran as 1 simulated one (2 of 8 ranks)") &&
                   Catch::Contains("; the 2 tensor-parallel peers of each group ran as one simulated rank: ") &&
                   Catch::Contains(" operators of the simulated ranks that no critical path times ran as mirrors "
                                   "within the node"));
    CHECK(tensor_note(r.every).empty());
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-9);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
  }
  SECTION("one NIC per node: the peers' messages share it, and the simulated peer takes its half") {
    const topology::Platform shared = test::platform(8, 2, 1, test::fat_tree(16, 16));
    const Runs r = run_three(t, shared, ring);
    CAPTURE(r.folded.notes, r.folded.makespan_s, r.every.makespan_s, r.full.makespan_s);
    CHECK_THAT(tensor_note(r.folded), Catch::Contains("the 2 tensor-parallel peers of each group ran as one"));
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-9);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
  }
  SECTION("no data parallelism: the peers alone fold") {
    synth::Parallelism alone = par;
    alone.dp = 1;
    const trace::Trace t1 = synth::synthesize(synth::load_model("small-gpt"), alone, "test");
    const Runs r = run_three(t1, eight_nodes(16), ring);
    CAPTURE(r.folded.notes);
    CHECK_THAT(tensor_note(r.folded),
               Catch::StartsWith("shortcuts: the 2 tensor-parallel peers of each group ran as one simulated rank "
                                 "(2 of 4 ranks)"));
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-9);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
  }
  SECTION("the auto algorithm, under a calibrated model without overheads: the mirror takes the node's tier") {
    engine::ReplayOptions options;
    options.network.calibrated = protocols_model();
    const Runs r = run_three(t, eight_nodes(16), options);
    CAPTURE(r.folded.notes, r.folded.makespan_s, r.every.makespan_s, r.full.makespan_s);
    CHECK_THAT(tensor_note(r.folded), Catch::Contains("ran as mirrors within the node"));
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-9);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
  }
  SECTION("where a cable can bind a message, every peer is simulated") {
    // Leaves of 4 NICs under a root with 5 GB/s cables, 2:1: a lone message across the root is
    // bound by one cable, below the NICs, which SimGrid 3.32 cannot set on a pair mirror.
    const topology::Platform thin = test::platform(8, 2, 2, R"({"topology": "fat-tree", "source": "test", "levels": [
        {"down": 4, "source": "test"},
        {"down": 4, "bandwidth_Bps": 5e9, "latency_s": 3e-6, "oversubscription": 2, "source": "test"}]})");
    const Runs r = run_three(t, thin, ring);
    CAPTURE(r.folded.notes);
    CHECK(tensor_note(r.folded).empty());
    CHECK(test::largest_difference(r.folded, r.every) <= 1e-9);
    CHECK(test::largest_difference(r.folded, r.full) <= 1e-6);
  }
}

TEST_CASE("a deadlock of folded replicas names the simulated ranks and says that the others are copies",
          "[engine][fold][deadlock]") {
  // Replica 0 is ranks 0 and 2, replica 1 ranks 1 and 3; ranks 0 and 1 call their tensor group
  // first, ranks 2 and 3 their pipeline group (the same members): crossed collectives.
  const trace::Trace t =
      trace::parse_native(R"({"format": "ccsim-trace", "version": 2, "name": "crossed", "world_size": 4,
      "groups": [{"name": "dp0", "kind": "data", "ranks": [0, 1]}, {"name": "dp1", "kind": "data", "ranks": [2, 3]},
                 {"name": "tp0", "kind": "tensor", "ranks": [0, 2]}, {"name": "tp1", "kind": "tensor", "ranks": [1, 3]},
                 {"name": "pp0", "kind": "pipeline", "ranks": [0, 2]}, {"name": "pp1", "kind": "pipeline", "ranks": [1, 3]}],
      "programs": [
        {"ranks": [[0, 1]], "ops": [{"kind": "all_reduce", "group": "@tensor", "bytes": 64, "dtype": "fp32"},
          {"kind": "all_reduce", "group": "@pipeline", "bytes": 64, "dtype": "fp32"}]},
        {"ranks": [[2, 3]], "ops": [{"kind": "all_reduce", "group": "@pipeline", "bytes": 64, "dtype": "fp32"},
          {"kind": "all_reduce", "group": "@tensor", "bytes": 64, "dtype": "fp32"}]}]})",
                          "crossed.json");
  CHECK_THROWS_WITH(
      engine::replay(t, test::two_nodes_of_four(), fast()),
      "simulation cannot progress at t=0.000000 s: 4 of 4 ranks are blocked (the shortcuts simulated 1 of the 2 data-parallel "
      "replicas: the ranks of the others are where their copies are, and are not listed)\n"
      "  rank 0: operator #0 'all_reduce' (line 6) on group \"tp0\" (its collective #1 on this group) waits for members "
      "that never reached it: rank 2 is blocked in operator #0 'all_reduce'\n"
      "  rank 2: operator #0 'all_reduce' (line 8) on group \"pp0\" (its collective #1 on this group) waits for "
      "members that never reached it: rank 0 is blocked in operator #0 'all_reduce'");
}

TEST_CASE("a deadlock of folded tensor-parallel peers says that one peer of each group was simulated",
          "[engine][fold][deadlock]") {
  // Stage 0 (ranks 0, 1) and stage 1 (ranks 2, 3): each rank's send on stream 1 overlaps its
  // tensor-parallel all_reduce (a mirror within the node), then both stages send before they
  // receive: blocked.
  const trace::Trace t =
      trace::parse_native(R"({"format": "ccsim-trace", "version": 2, "name": "crossed", "world_size": 4,
      "groups": [{"name": "tp0", "kind": "tensor", "ranks": [0, 1]}, {"name": "tp1", "kind": "tensor", "ranks": [2, 3]},
                 {"name": "pp0", "kind": "pipeline", "ranks": [0, 2]}, {"name": "pp1", "kind": "pipeline", "ranks": [1, 3]}],
      "programs": [
        {"ranks": [[0, 1]], "ops": [{"kind": "compute", "name": "f", "flops": 1e9},
          {"kind": "send", "peer": "@pipeline+1", "tag": "x", "bytes": 4000000, "stream": 1, "after": [0]},
          {"kind": "all_reduce", "group": "@tensor", "bytes": 4000000, "dtype": "fp32"},
          {"kind": "send", "peer": "@pipeline+1", "tag": "y", "bytes": 64},
          {"kind": "recv", "peer": "@pipeline+1", "tag": "z", "bytes": 64}]},
        {"ranks": [[2, 3]], "ops": [{"kind": "compute", "name": "f", "flops": 1e9},
          {"kind": "recv", "peer": "@pipeline-1", "tag": "x", "bytes": 4000000, "stream": 1, "after": [0]},
          {"kind": "all_reduce", "group": "@tensor", "bytes": 4000000, "dtype": "fp32"},
          {"kind": "send", "peer": "@pipeline-1", "tag": "z", "bytes": 64},
          {"kind": "recv", "peer": "@pipeline-1", "tag": "y", "bytes": 64}]}]})",
                          "crossed.json");
  engine::ReplayOptions options = fast();
  options.all_reduce_algorithm = "ring";
  CHECK_THROWS_WITH(
      engine::replay(t, eight_nodes(16), options),
      Catch::StartsWith("simulation cannot progress at t=") &&
          Catch::Contains("4 of 4 ranks are blocked (the shortcuts simulated one of the 2 "
                          "tensor-parallel peers of each group: the ranks of the others are where "
                          "their copies are, and are not listed)\n  rank 0 stream 0: operator #3 'send'"));
}
