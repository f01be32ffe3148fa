// What `trace synth` runs of Megatron beyond the matrix products: uneven pipeline stages.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "synth/megatron.hpp"
#include "trace/trace.hpp"
#include "trace/validate.hpp"

using namespace ccsim;
using synth::Parallelism;

namespace {

Parallelism split(int tp, int pp, int dp, int micro_batches = 1) {
  Parallelism p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.micro_batches = micro_batches;
  return p;
}

}  // namespace

// Llama 3 405B on 16 stages: 126 layers, the first and last stages one fewer (Dubey et al.
// 2024, section 3.3.2).
TEST_CASE("uneven pipeline stages: 126 layers on 16 stages, first and last with fewer", "[synth]") {
  const synth::ModelSpec l405 = synth::load_model("llama3-405b");
  // 126 layers of 3,187,703,808 parameters, embedding and head 128256 x 16384 each, final norm:
  // 405,853,388,800 (the model card's 405B).
  CHECK(l405.total_params() == 405853388800.0);
  Parallelism par = split(8, 16, 8, 16);
  CHECK_NOTHROW(synth::check_parallelism(l405, par));
  std::vector<int> expected(16, 8);
  expected.front() = expected.back() = 7;
  CHECK(synth::stage_layers(l405, par) == expected);
  CHECK(synth::format_stage_layers(expected) == "7, 8 x 14, 7");
  // Parameters follow each stage's layers: the first 7 layers and the embedding, a middle 8.
  CHECK(synth::stage_params_per_rank(l405, par, 0) ==
        7 * synth::layer_params_per_rank(l405, 8) + synth::embedding_params_per_rank(l405, 8));
  CHECK(synth::stage_params_per_rank(l405, par, 1) == 8 * synth::layer_params_per_rank(l405, 8));
  // Megatron's flags: the other stages share the rest evenly.
  par.first_stage_layers = 6;
  par.last_stage_layers = 8;
  expected.front() = 6;
  expected.back() = 8;
  CHECK(synth::stage_layers(l405, par) == expected);
  par.last_stage_layers = 6;  // 114 layers over 14 stages
  CHECK_THROWS_WITH(synth::check_parallelism(l405, par),
                    Catch::Contains("'--last-stage-layers'") &&
                        Catch::Contains("the 114 left to the other 14 stages do not divide evenly among them"));
  // The default rule elsewhere: 96 layers on 5 stages, 19 each and one more on the second.
  CHECK(synth::stage_layers(synth::load_model("gpt3-175b"), split(1, 5, 1)) == std::vector<int>{19, 20, 19, 19, 19});
  // pp - 1 left over: all middle stages and the last take one more.
  CHECK(synth::stage_layers(synth::load_model("small-gpt"), split(1, 3, 1)) == std::vector<int>{1, 2, 1});
  CHECK(synth::stage_layers(synth::load_model("small-gpt"), split(1, 2, 1, 1)) == std::vector<int>{2, 2});

  // The trace: stage 0 runs 7 layers, stage 1 eight; the DP gradients of each stage its own.
  par = split(8, 16, 2, 16);
  const trace::Trace t = synth::synthesize(l405, par, "test");
  CHECK_NOTHROW(trace::validate(t));
  auto count = [&](int stage, std::string_view label) {
    int n = 0;
    for (const trace::Op& op : t.programs[static_cast<std::size_t>(stage)].ops) n += t.op_label(op) == label;
    return n;
  };
  CHECK(count(0, "attn.qkv") == 7 * 16);
  CHECK(count(1, "attn.qkv") == 8 * 16);
  CHECK(count(15, "attn.qkv") == 7 * 16);
  for (int stage : {0, 1, 15}) {
    for (const trace::Op& op : t.programs[static_cast<std::size_t>(stage)].ops) {
      if (op.kind == trace::OpKind::kAllReduce && t.op_label(op) == "dp:grads") {
        CHECK(static_cast<double>(op.bytes) == Approx(synth::stage_params_per_rank(l405, par, stage) * 4).epsilon(1e-9));
      }
    }
  }
}
