#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "engine/replay.hpp"
#include "engine/result.hpp"
#include "engine_fixtures.hpp"
#include "support/split.hpp"
#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"
#include "topology/platform.hpp"

// Pipeline schedules replayed against the bubble of their papers: with communication that
// costs nothing and stages of equal work c (forward and backward of one micro-batch), 1F1B
// takes (M + p - 1) c and the interleaved schedule with v chunks per rank (M + (p - 1) / v) c
// (Narayanan et al. 2021, sections 2.2.1-2.2.2: bubble fraction (p - 1) / (v M)).

using namespace ccsim;

namespace {

// Sixteen equal layers and a vocabulary of 64 so that the embedding and the head (the stages'
// only unequal work) weigh under 1 % of a stage.
synth::ModelSpec uniform_model() {
  synth::ModelSpec m;
  m.name = "uniform";
  m.source = "test";
  m.layers = 16;
  m.hidden = 512;
  m.heads = 8;
  m.kv_heads = 8;
  m.ffn = 2048;
  m.vocab = 64;
  m.seq = 256;
  return m;
}

// Four accelerators of 1 TFLOP/s on links that cost nothing at these sizes (1e15 B/s, 1 ps).
topology::Platform free_links() {
  return topology::parse_platform(R"({
  "format": "ccsim-platform", "version": 1, "name": "test", "nodes": 1,
  "node": {"accelerators": 4,
    "accelerator": {"model": "t", "flops": 1e12, "reduce_Bps": 1e15, "source": "test"},
    "intra_link": {"bandwidth_Bps": 1e15, "latency_s": 1e-12, "source": "test"},
    "nics": 1, "nic_link": {"bandwidth_Bps": 1e15, "latency_s": 1e-12, "source": "test"}},
  "network": {"topology": "switch", "source": "test"}
})",
                                  "free-links.json");
}

}  // namespace

TEST_CASE("the interleaved schedule shrinks the pipeline bubble by its number of chunks", "[engine][pipeline]") {
  const synth::ModelSpec model = uniform_model();
  synth::Parallelism par;
  par.pp = 4;
  par.micro_batches = 8;
  const trace::Trace one_f_one_b = synth::synthesize(model, par, "test");
  // c: the forward and backward of one micro-batch on a middle stage (no embedding, no head).
  double flops = 0;
  for (const trace::Op& op : one_f_one_b.programs[1].ops) {
    if (op.kind == trace::OpKind::kCompute && one_f_one_b.op_name(op) != "optimizer") flops += op.flops;
  }
  const double c = flops / par.micro_batches / 1e12;
  for (bool fast : {false, true}) {
    INFO("fast " << fast);
    engine::ReplayOptions options;
    options.fast = fast;
    const engine::Result plain = engine::replay(one_f_one_b, free_links(), options);
    CHECK(plain.makespan_s == Approx((par.micro_batches + par.pp - 1) * c).epsilon(0.005));
    for (int v : {2, 4}) {
      for (bool overlap : {false, true}) {  // Megatron's p2p calls, or messages overlapping compute
        INFO(v << " chunks per rank, overlap_p2p " << overlap);
        synth::Parallelism interleaved = par;
        interleaved.schedule = synth::PipelineSchedule::kInterleaved;
        interleaved.virtual_stages = v;
        interleaved.overlap_p2p = overlap;
        const engine::Result r = engine::replay(synth::synthesize(model, interleaved, "test"), free_links(), options);
        CAPTURE(plain.makespan_s, r.makespan_s, c);
        CHECK(r.makespan_s == Approx((par.micro_batches + (par.pp - 1.0) / v) * c).epsilon(0.005));
      }
    }
  }
}

// Tensor, pipeline and data parallelism with the interleaved schedule and gradient buckets:
// streams 1 (buckets), 2 and 3 (sends) beside the main one. The fast replay takes its
// shortcuts only where nothing overlaps, and gives the full replay's times operator by
// operator; the job ends (the wrap from the last stage to the first does not deadlock).
TEST_CASE("the interleaved schedule replays fast as in full, with tensor and data parallelism and buckets",
          "[engine][pipeline][streams]") {
  synth::Parallelism par = test::split(2, 2, 2, 4);
  par.schedule = synth::PipelineSchedule::kInterleaved;
  par.virtual_stages = 2;
  par.overlap_grad_reduce = true;
  par.bucket_params = 2e5;
  const trace::Trace t = synth::synthesize(synth::load_model("small-gpt"), par, "test");
  for (const trace::Program& program : t.programs) CHECK(program.stream_count() == 5);  // buckets, 2 sends, a receive
  const topology::Platform two_nodes = test::two_nodes_of_four();
  engine::ReplayOptions options;
  options.fast = true;
  const engine::Result fast = engine::replay(t, two_nodes, options);
  options.fast = false;
  const engine::Result full = engine::replay(t, two_nodes, options);
  CAPTURE(fast.makespan_s, full.makespan_s);
  CHECK(full.makespan_s > 0);
  CHECK(test::largest_difference(fast, full) <= 1e-6);

  // Without buckets the tensor-parallel peers of a stage stay one simulated rank through the
  // whole program: each p2p call is a fork whose members' ends agree.
  par.overlap_grad_reduce = false;
  const trace::Trace calls = synth::synthesize(synth::load_model("small-gpt"), par, "test");
  options.fast = true;
  const engine::Result calls_fast = engine::replay(calls, two_nodes, options);
  options.fast = false;
  const engine::Result calls_full = engine::replay(calls, two_nodes, options);
  CHECK(test::largest_difference(calls_fast, calls_full) <= 1e-6);
  const auto note = std::find_if(calls_fast.notes.begin(), calls_fast.notes.end(), [](const std::string& n) {
    return n.find("ran as one simulated rank") != std::string::npos;
  });
  REQUIRE(note != calls_fast.notes.end());
  CAPTURE(*note);
  // The two data-parallel replicas share the nodes' NIC links alike: one is simulated, so
  // half of the 4 groups are.
  CHECK(std::any_of(calls_fast.notes.begin(), calls_fast.notes.end(), [](const std::string& n) {
    return n.find("the 2 data-parallel replicas ran as 1 simulated one") != std::string::npos &&
           n.find("with other replicas symmetrically") != std::string::npos;
  }));
  CHECK(note->find("0 of 2 groups went on rank by rank") != std::string::npos);
  CHECK(note->find("only up to their first operator") == std::string::npos);
  CHECK(note->find("; 0 sends, receives") == std::string::npos);
}
