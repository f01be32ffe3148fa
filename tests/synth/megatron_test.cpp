#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "core/input_error.hpp"
#include "synth/megatron.hpp"
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

double sum_flops(const std::vector<synth::ComputeCost>& ops, std::initializer_list<std::string_view> names) {
  double sum = 0;
  for (const synth::ComputeCost& op : ops) {
    for (std::string_view n : names) {
      if (op.name == n) sum += op.flops;
    }
  }
  return sum;
}

}  // namespace

// Published parameter counts: the Hugging Face checkpoints of Llama 2 7B (6,738,415,616),
// 13B (13,015,864,320) and Llama 3 8B (8,030,261,248); GPT-3 "175.0B" (Brown et al. Table 2.1).
TEST_CASE("model presets have their published parameter counts", "[synth]") {
  CHECK(synth::load_model("llama2-7b").total_params() == 6738415616.0);
  CHECK(synth::load_model("llama2-13b").total_params() == 13015864320.0);
  CHECK(synth::load_model("llama3-8b").total_params() == 8030261248.0);
  CHECK(synth::load_model("gpt3-175b").total_params() == Approx(175.0e9).epsilon(0.005));
  CHECK(synth::load_model("llama2-70b").total_params() == Approx(69.0e9).epsilon(0.002));
  CHECK_THROWS_WITH(synth::load_model("gpt5"), Catch::Contains("unknown model \"gpt5\"") && Catch::Contains("llama3-70b"));
}

// One GPT-3 layer, micro-batch 1, s = 2048, TP 8: the matrix products of the forward are
// (24 b s h^2 + 4 b s^2 h) / t (Narayanan et al. 2021, eq. 2 per layer), the backward twice that.
TEST_CASE("one layer's FLOPs follow the Megatron formula", "[synth]") {
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");
  const synth::LayerPlan plan = synth::plan_layer(gpt3, split(8, 1, 1));
  const double b = 1, s = 2048, h = 12288, t = 8;
  const double expected = (24 * b * s * h * h + 4 * b * s * s * h) / t;  // 5.8049e12 / 8
  CHECK(sum_flops(plan.forward, {"linear", "baddbmm", "bmm"}) == Approx(expected).epsilon(1e-12));
  CHECK(sum_flops(plan.backward, {"linear", "baddbmm", "bmm"}) == Approx(2 * expected).epsilon(1e-12));
  // Hand-computed: 24 * 2048 * 12288^2 / 8 + 4 * 2048^2 * 12288 / 8 = 927,712,935,936 + 25,769,803,776.
  CHECK(expected == 953482739712.0);
  // QKV of GQA: LLaMA 2 70B, 8 KV heads of 128: 2 b s h (h + 2 * 1024) / t.
  const synth::LayerPlan llama = synth::plan_layer(synth::load_model("llama2-70b"), split(8, 1, 1));
  CHECK(llama.forward[1].label == "attn.qkv");
  CHECK(llama.forward[1].flops == Approx(2.0 * 4096 * 8192 * (8192 + 2048) / 8));
  // TP communication: f and g around attention and MLP, every buffer b s h * 2 bytes.
  REQUIRE(plan.tp_points.size() == 4);
  CHECK(plan.tp_bytes == 2048.0 * 12288 * 2);
}

TEST_CASE("message sizes by hand: GPT-3 175B, TP 8, PP 16, DP 8, sequence parallel", "[synth]") {
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");
  Parallelism par = split(8, 16, 8, 64);
  par.sp = true;
  const synth::MessageSizes m = synth::message_sizes(gpt3, par);
  CHECK(m.tp == 50331648.0);     // 2048 * 12288 * 2 bytes (48 MiB)
  CHECK(m.pp == 50331648.0 / 8);  // sequence parallel: s / t of the activation
  // Stage 0: 6 layers of 12 h^2 + 13 h = 1,812,099,072 parameters, plus word (50257 x 12288)
  // and position (2048 x 12288) embeddings, over TP 8: 1,439,414,784 parameters of fp16 gradients.
  CHECK(m.grad_dtype == DType::kF16);
  CHECK(m.dp_grads == 1439414784.0 * 2);
}

// Rajbhandari et al. 2020 (ZeRO), Figure 1: a 7.5B-parameter model on 64 GPUs holds 120 GB
// of model states per GPU without ZeRO, 31.4 GB with stage 1, 16.6 GB with stage 2, 1.9 GB with 3.
TEST_CASE("model states per accelerator match the ZeRO paper", "[synth]") {
  CHECK(synth::model_state_bytes(7.5e9, 0, 64) / 1e9 == Approx(120.0));
  CHECK(synth::model_state_bytes(7.5e9, 1, 64) / 1e9 == Approx(31.4).epsilon(0.002));
  CHECK(synth::model_state_bytes(7.5e9, 2, 64) / 1e9 == Approx(16.6).epsilon(0.003));
  CHECK(synth::model_state_bytes(7.5e9, 3, 64) / 1e9 == Approx(1.9).epsilon(0.02));
  // Activations, Korthikanti et al. 2022 eq. 4 (TP + SP): s b h (34 + 5 a s / h) / t per layer;
  // GPT-3, s 2048, b 1, t 8: 2048 * 12288 * (34 + 80) / 8 = 358,612,992 bytes.
  Parallelism par = split(8, 16, 8, 64);
  par.sp = true;
  CHECK(synth::activation_bytes_per_layer(synth::load_model("gpt3-175b"), par) == 358612992.0);
  // 1F1B: the first stage holds pp = 16 micro-batches of its 6 layers.
  const synth::Memory mem = synth::memory_per_accelerator(synth::load_model("gpt3-175b"), par);
  CHECK(mem.activations == 358612992.0 * 6 * 16);
}

TEST_CASE("splits that do not fit the model are refused, naming the flag", "[synth]") {
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");
  CHECK_THROWS_WITH(synth::check_parallelism(gpt3, split(8, 5, 1)), Catch::Contains("--pp") || Catch::Contains("96 layers"));
  CHECK_THROWS_WITH(synth::check_parallelism(gpt3, split(7, 1, 1)), Catch::Contains("96 heads"));
  Parallelism sp = split(1, 1, 1);
  sp.sp = true;
  CHECK_THROWS_WITH(synth::check_parallelism(gpt3, sp), Catch::Contains("needs --tp > 1"));
  Parallelism z = split(1, 2, 2);
  z.zero = 3;
  CHECK_THROWS_WITH(synth::check_parallelism(gpt3, z), Catch::Contains("ZeRO-3"));
}

TEST_CASE("synthesized traces validate and have the schedule's operators", "[synth]") {
  const synth::ModelSpec small = synth::load_model("small-gpt");  // 4 layers
  for (auto schedule : {synth::PipelineSchedule::kGpipe, synth::PipelineSchedule::k1F1B}) {
    Parallelism par = split(2, 2, 2, 4);
    par.schedule = schedule;
    const trace::Trace t = synth::synthesize(small, par, "local");
    CHECK_NOTHROW(trace::validate(t));
    REQUIRE(t.world_size == 8);
    CHECK(t.groups.size() == 4 + 4 + 4);  // tp (pp x dp), dp (pp x tp), pp (dp x tp)
    CHECK(t.pipeline_stage_count() == 2);
    // One program per stage, shared by its 2 x 2 tensor-parallel and data-parallel ranks.
    CHECK(t.programs.size() == 2);
    CHECK(t.program_of == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
    CHECK(t.program_op_count() * 4 == t.op_count());
    std::map<trace::OpKind, int> kinds;
    for (const trace::Op& op : t.program_ops(0)) ++kinds[op.kind];
    // Rank 0: stage 0 of 2 layers; 4 micro-batches; per layer 2 TP all_reduces forward and
    // 2 backward, then one DP all_reduce of the gradients.
    CHECK(kinds[trace::OpKind::kAllReduce] == 4 * 2 * 4 + 1);
    CHECK(kinds[trace::OpKind::kSend] == 4);  // activations
    CHECK(kinds[trace::OpKind::kRecv] == 4);  // gradients
    // Compute per micro-batch: embedding + 2 layers x 10 operators, forward and backward; optimizer.
    CHECK(kinds[trace::OpKind::kCompute] == 4 * 2 * (1 + 2 * 10) + 1);
  }
}
