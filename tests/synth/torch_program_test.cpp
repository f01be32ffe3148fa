#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <tuple>

#include "core/input_error.hpp"
#include "synth/model_spec.hpp"
#include "synth/torch_program.hpp"
#include "trace/native_reader.hpp"
#include "trace/validate.hpp"

using namespace ccsim;

namespace {

const std::string kData = std::string(CCSIM_SOURCE_DIR) + "/tests/data/";

/// The configuration of the shared run tp2_pp2 (its summary.json "config").
synth::ModelSpec tp2_pp2_model() {
  synth::ModelSpec m = synth::load_model("small-gpt");
  m.hidden = 256;
  m.ffn = 1024;
  m.layers = 4;
  return m;
}
synth::Parallelism tp2_pp2_split() {
  synth::Parallelism p;
  p.tp = 2;
  p.pp = 2;
  p.micro_batches = 4;
  p.schedule = synth::PipelineSchedule::kGpipe;
  return p;
}

using Key = std::pair<std::string, std::string>;  // name, label
struct Totals {
  int costed = 0;  ///< operators with FLOPs or bytes
  int host = 0;    ///< operators without (bookkeeping, pieces)
  double flops = 0;
  double bytes = 0;
};

std::map<Key, Totals> compute_totals(const trace::Trace& t, std::size_t rank) {
  std::map<Key, Totals> out;
  for (const trace::Op& op : t.programs[rank].ops) {
    if (op.kind != trace::OpKind::kCompute || t.op_name(op) == "cpu_gap") continue;
    Totals& x = out[{std::string(t.op_name(op)), std::string(t.op_label(op))}];
    if (op.flops > 0 || op.bytes > 0)
      ++x.costed;
    else
      ++x.host;
    x.flops += op.flops;
    x.bytes += static_cast<double>(op.bytes);
  }
  return out;
}

/// Collectives and transfers in program order: kind, label, bytes, peer.
std::vector<std::tuple<std::string, std::string, std::uint64_t, int>> messages(const trace::Trace& t,
                                                                               std::size_t rank) {
  std::vector<std::tuple<std::string, std::string, std::uint64_t, int>> out;
  for (const trace::Op& op : t.programs[rank].ops) {
    if (op.kind == trace::OpKind::kCompute) continue;
    out.emplace_back(std::string(trace::op_kind_name(op.kind)), std::string(t.op_label(op)), op.bytes, op.peer);
  }
  return out;
}

}  // namespace

TEST_CASE("the synthesised PyTorch program has the imported profile's operators, FLOPs, bytes and messages",
          "[synth][torch]") {
  // The shared run tp2_pp2 imported by `ccsim trace import kineto` (tests/data/compute/README.md):
  // every costed operator's FLOPs and bytes are derived from the recorded shapes; the synthesised
  // trace derives them from the configuration alone.
  const trace::Trace imported = trace::read_native(kData + "compute/tp2_pp2.json");
  const trace::Trace synthesized = synth::synthesize_torch(tp2_pp2_model(), tp2_pp2_split(), "local");
  trace::validate(synthesized);
  REQUIRE(synthesized.world_size == imported.world_size);
  for (std::size_t r = 0; r < 4; ++r) {
    INFO("rank " << r);
    CHECK(messages(synthesized, r) == messages(imported, r));
    const auto want = compute_totals(imported, r);
    const auto got = compute_totals(synthesized, r);
    for (const auto& [key, w] : want) {
      INFO(key.first << " " << key.second);
      REQUIRE(got.count(key) == 1);
      const Totals& g = got.at(key);
      CHECK(g.costed == w.costed);
      CHECK(g.flops == Approx(w.flops).epsilon(1e-12));
      CHECK(g.bytes == Approx(w.bytes).epsilon(1e-12));
      // Host operators: the importer cuts a region into pieces where cpu_gap or a message
      // interrupts it; the bookkeeping kinds have one operator per autograd node.
      if (key.first == "grad_accum" || key.first == "bwd_other" || key.first == "tp_comm_wrapper")
        CHECK(g.host == w.host);
    }
    for (const auto& [key, g] : got) {
      INFO(key.first << " " << key.second);
      CHECK(want.count(key) == 1);
    }
  }
}

TEST_CASE("the DP gradient buffer of the PyTorch program is the shared run's", "[synth][torch]") {
  // dp2 (summary.json): hidden 256, 2 layers, ccl:all_reduce bytes=7434240 (1858560 fp32 values).
  synth::ModelSpec m = tp2_pp2_model();
  m.layers = 2;
  synth::Parallelism p;
  p.dp = 2;
  p.micro_batches = 4;
  p.schedule = synth::PipelineSchedule::kGpipe;
  CHECK(synth::torch_stage_params(m, p, 0) == 1858560);
  const trace::Trace t = synth::synthesize_torch(m, p, "local");
  const auto msgs = messages(t, 0);
  REQUIRE(msgs.size() == 1);
  CHECK(std::get<2>(msgs[0]) == 7434240);
}

TEST_CASE("the PyTorch program refuses what the shared runs do not do", "[synth][torch]") {
  synth::Parallelism p = tp2_pp2_split();
  p.schedule = synth::PipelineSchedule::k1F1B;
  CHECK_THROWS_WITH(
      synth::synthesize_torch(tp2_pp2_model(), p, "local"),
      "command line: field '--schedule': the PyTorch program of the shared runs runs GPipe, got \"1f1b\"");
  p = tp2_pp2_split();
  p.zero = 1;
  CHECK_THROWS_WITH(synth::synthesize_torch(tp2_pp2_model(), p, "local"),
                    "command line: field '--zero': the PyTorch program of the shared runs has no ZeRO, got \"1\"");
}
