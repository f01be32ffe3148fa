// What `trace synth` runs of Megatron beyond the matrix products: recomputation, uneven
// pipeline stages, the memory-bound operators around each layer, the distributed optimizer,
// and the checks against the platform (memory, accelerators).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "synth/megatron.hpp"
#include "trace/trace.hpp"
#include "trace/validate.hpp"
#include "support/split.hpp"

using namespace ccsim;
using synth::Parallelism;
using synth::Recompute;

namespace {

using test::split;

std::vector<std::string> labels(const std::vector<synth::ComputeCost>& ops) {
  std::vector<std::string> out;
  for (const synth::ComputeCost& op : ops) out.push_back(op.label);
  return out;
}

const synth::ComputeCost& find(const std::vector<synth::ComputeCost>& ops, std::string_view label) {
  for (const synth::ComputeCost& op : ops) {
    if (op.label == label) return op;
  }
  FAIL("no operator " << label);
  return ops.front();
}

/// The labels of a program's operators, in order.
std::vector<std::string> program_labels(const trace::Trace& t, int program) {
  std::vector<std::string> out;
  for (const trace::Op& op : t.programs[static_cast<std::size_t>(program)].ops) out.emplace_back(t.op_label(op));
  return out;
}

/// FLOPs of every compute operator of the iteration, all ranks.
double iteration_flops(const trace::Trace& t, std::string_view skip_label = "") {
  std::vector<double> ranks(t.programs.size(), 0);
  for (const int p : t.program_of) ranks[static_cast<std::size_t>(p)] += 1;
  double sum = 0;
  for (std::size_t p = 0; p < t.programs.size(); ++p) {
    for (const trace::Op& op : t.programs[p].ops) {
      if (op.kind == trace::OpKind::kCompute && (skip_label.empty() || t.op_label(op) != skip_label))
        sum += op.flops * ranks[p];
    }
  }
  return sum;
}

constexpr double kGibibyte = 1024.0 * 1024 * 1024;

}  // namespace

// Megatron's ParallelTransformerLayer with GPT-3's defaults (biases, GeLU, dropout 0.1, every
// fusion on): the operators in order, the memory-bound ones with their bytes by hand.
TEST_CASE("a GPT layer has Megatron's operators around the matrix products, with their bytes", "[synth]") {
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");
  const synth::LayerPlan plan = synth::plan_layer(gpt3, split(8, 1, 1));
  CHECK(labels(plan.forward) == std::vector<std::string>{"attn.norm", "attn.qkv", "attn.scores", "attn.softmax",
                                                         "attn.dropout", "attn.ctx", "attn.out", "attn.residual",
                                                         "mlp.norm", "mlp.up", "mlp.act", "mlp.down", "mlp.residual"});
  CHECK(find(plan.forward, "attn.softmax").name == "scale_mask_softmax");
  CHECK(find(plan.forward, "mlp.act").name == "bias_gelu");
  CHECK(find(plan.forward, "attn.residual").name == "bias_dropout_add");
  CHECK(find(plan.forward, "mlp.residual").name == "bias_dropout_add");
  const double s = 2048, h = 12288, t = 8, f = 4 * h;
  // bias_gelu on s f / t = 12,582,912 fp16 elements: read them and the bias (f / t), write the
  // result; 8 FLOPs of GeLU and 1 of the bias each.
  const double n = s * f / t;
  CHECK(find(plan.forward, "mlp.act").bytes == 2 * (2 * n + f / t));
  CHECK(find(plan.forward, "mlp.act").flops == 9 * n);
  // bias_dropout_add on the full s h output (no SP): read it, the bias and the residual, write
  // the sum (2 bytes each) and the 1-byte mask: 7 s h + 2 h = 176,185,344 bytes; 4 FLOPs each.
  CHECK(find(plan.forward, "attn.residual").bytes == 176185344.0);
  CHECK(find(plan.forward, "attn.residual").flops == 4 * s * h);
  // Attention dropout on 12 heads x s^2 scores per rank: read, write, and a 1-byte mask.
  const double scores = 12 * s * s;
  CHECK(find(plan.forward, "attn.dropout").bytes == 5 * scores);
  CHECK(find(plan.forward, "attn.softmax").bytes == 4 * scores);
  // The reduction g of attention's output comes before the bias-dropout-add, f before the MLP.
  REQUIRE(plan.tp_points.size() == 4);
  CHECK(plan.forward[static_cast<std::size_t>(plan.tp_points[1].before_op)].label == "attn.residual");
  CHECK(plan.forward[static_cast<std::size_t>(plan.tp_points[2].before_op)].label == "mlp.up");
  CHECK(plan.tp_points[3].before_op == 12);
  // The attention core: scores to context.
  CHECK(plan.core_begin == 2);
  CHECK(plan.core_end == 6);

  // Unfused (--no-masked-softmax-fusion, --no-bias-gelu-fusion, --no-bias-dropout-fusion): the
  // same FLOPs in more kernels, which move more bytes.
  Parallelism unfused = split(8, 1, 1);
  unfused.masked_softmax_fusion = unfused.bias_activation_fusion = unfused.bias_dropout_fusion = false;
  const synth::LayerPlan apart = synth::plan_layer(gpt3, unfused);
  CHECK(labels(apart.forward) == std::vector<std::string>{"attn.norm", "attn.qkv", "attn.scores", "attn.mask",
                                                          "attn.softmax", "attn.dropout", "attn.ctx", "attn.out",
                                                          "attn.out_bias", "attn.dropout", "attn.residual", "mlp.norm",
                                                          "mlp.up", "mlp.up_bias", "mlp.act", "mlp.down",
                                                          "mlp.down_bias", "mlp.dropout", "mlp.residual"});
  CHECK(find(apart.forward, "mlp.act").name == "gelu");
  CHECK(find(apart.forward, "attn.mask").bytes == 4 * scores + s * s);  // and the b s^2 boolean mask
  double fused_flops = 0, apart_flops = 0, fused_bytes = 0, apart_bytes = 0;
  for (const auto& op : plan.forward) fused_flops += op.flops, fused_bytes += op.bytes;
  for (const auto& op : apart.forward) apart_flops += op.flops, apart_bytes += op.bytes;
  CHECK(apart_flops == Approx(fused_flops).epsilon(1e-12));
  CHECK(apart_bytes > fused_bytes);
  // LLaMA (no biases, SwiGLU, no dropout): the residual adds alone, no dropout.
  const synth::LayerPlan llama = synth::plan_layer(synth::load_model("llama2-7b"), split(1, 1, 1));
  CHECK(find(llama.forward, "attn.residual").name == "add");
  CHECK(find(llama.forward, "mlp.act").name == "swiglu");
  for (const auto& op : llama.forward) CHECK(op.name != "dropout");
  // A model file gives its dropout (default none); a probability of 1 or more is refused.
  const std::string file = R"({"format": "ccsim-model", "version": 1, "name": "m", "source": "test", "layers": 2,
    "hidden": 64, "heads": 4, "ffn": 256, "vocab": 100, "seq": 32, "activation": "gelu", "dtype": "bf16",
    "biases": true, "dropout": DROPOUT})";
  auto with_dropout = [&](const std::string& p) {
    std::string text = file;
    text.replace(text.find("DROPOUT"), 7, p);
    return synth::parse_model(text, "m.json");
  };
  CHECK(with_dropout("0.1").dropout == 0.1);
  CHECK(find(synth::plan_layer(with_dropout("0.1"), split(1, 1, 1)).forward, "attn.residual").name ==
        "bias_dropout_add");
  CHECK_THROWS_WITH(with_dropout("1"), "m.json:3: field 'dropout': expected a probability in [0, 1), got \"1\"");
  // With sequence parallelism the norms and the residual adds run on s / t tokens.
  Parallelism sp = split(8, 1, 1);
  sp.sp = true;
  CHECK(find(synth::plan_layer(gpt3, sp).forward, "mlp.residual").bytes == 7 * s * h / 8 + 2 * h);
}

// Narayanan et al. 2021 (Efficient Large-Scale Language Model Training on GPU Clusters Using
// Megatron-LM), appendix: a layer's forward is 24 B s h^2 + 4 B s^2 h, the logit layer's 2 B s h V;
// the backward twice the forward. Without recomputation an iteration is then
// 72 B s l h^2 (1 + s / (6 h) + V / (12 l h)) (Korthikanti et al. 2022's "model FLOPs"); full
// recomputation runs each layer's forward once more but not the logit layer's: 4/3 of the layers'
// FLOPs, 96 B s l h^2 (1 + s / (6 h) + V / (16 l h)), Narayanan's eq. (3). Selective
// recomputation adds the attention core's two matrix products, 4 B s^2 h per layer. The
// synthesized iteration adds the memory-bound operators, the embedding and the optimizer:
// within 0.2 % of the formulas for GPT-3 175B.
TEST_CASE("an iteration's FLOPs follow Megatron's formula: none, selective and full recomputation", "[synth]") {
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");
  Parallelism par = split(8, 16, 2, 16);  // B = 2 x 16 = 32 sequences
  const double B = 32, s = 2048, l = 96, h = 12288, V = 50257;
  const double model_flops = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  const double eq3 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  CHECK(eq3 == Approx(model_flops + 24 * B * s * l * h * h + 4 * B * s * s * h * l).epsilon(1e-12));

  const double none = iteration_flops(synth::synthesize(gpt3, par, "test"));
  CHECK(none == Approx(model_flops).epsilon(0.002));
  CHECK(none > model_flops);  // the memory-bound operators and the optimizer on top
  par.recompute = Recompute::kFull;
  const double full = iteration_flops(synth::synthesize(gpt3, par, "test"));
  CHECK(full == Approx(eq3).epsilon(0.002));
  par.recompute = Recompute::kSelective;
  const double selective = iteration_flops(synth::synthesize(gpt3, par, "test"));
  CHECK(selective == Approx(model_flops + 4 * B * s * s * h * l).epsilon(0.002));
  // The recomputed operators are exactly the forward's again: full recomputation adds exactly
  // the layers' forward FLOPs, one third of their forward and backward.
  const trace::Trace t_none = synth::synthesize(gpt3, split(8, 16, 2, 16), "test");
  par.recompute = Recompute::kFull;
  const trace::Trace t_full = synth::synthesize(gpt3, par, "test");
  double layers_none = 0, recomputed = 0;
  for (const trace::Program& p : t_none.programs) {
    for (const trace::Op& op : p.ops) {
      const std::string_view label = t_none.op_label(op);
      if (op.kind == trace::OpKind::kCompute && (label.starts_with("attn.") || label.starts_with("mlp.") ||
                                                 label.starts_with("bwd:attn.") || label.starts_with("bwd:mlp.")))
        layers_none += op.flops;
    }
  }
  for (const trace::Program& p : t_full.programs) {
    for (const trace::Op& op : p.ops) {
      if (op.kind == trace::OpKind::kCompute && t_full.op_label(op).starts_with("recompute:")) recomputed += op.flops;
    }
  }
  CHECK(recomputed == Approx(layers_none / 3).epsilon(1e-12));
}

TEST_CASE("full recomputation runs each layer's forward again just before its backward", "[synth]") {
  const synth::ModelSpec small = synth::load_model("small-gpt");  // 4 layers
  Parallelism par = split(2, 1, 1, 1);
  par.recompute = Recompute::kFull;
  const trace::Trace t = synth::synthesize(small, par, "local");
  CHECK_NOTHROW(trace::validate(t));
  const std::vector<std::string> ops = program_labels(t, 0);
  // The forward of one layer: its compute labels and its two forward all_reduces (g).
  const auto begin = std::find(ops.begin(), ops.end(), "attn.norm");
  const auto end = std::find(begin, ops.end(), "mlp.residual");
  REQUIRE(end != ops.end());
  const std::vector<std::string> layer(begin, end + 1);
  REQUIRE(layer.size() == 13 + 2);  // 13 operators and tp:attn, tp:mlp
  int recomputations = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] != "recompute:attn.norm") continue;
    ++recomputations;
    // The whole layer again, in forward order, collectives included, labelled "recompute:" ...
    for (std::size_t j = 0; j < layer.size(); ++j) CHECK(ops[i + j] == "recompute:" + layer[j]);
    // ... and then the layer's backward, from its last operator.
    CHECK(ops[i + layer.size()] == "bwd:mlp.residual");
  }
  CHECK(recomputations == 4);  // every layer, once per micro-batch
  // Nothing but the layers: no recomputed embedding, head or loss.
  int recomputed = 0;
  for (const std::string& label : ops) recomputed += label.starts_with("recompute:");
  CHECK(recomputed == 4 * 15);
  // The first recomputation comes after the loss's and the head's backward.
  const auto first = std::find(ops.begin(), ops.end(), "recompute:attn.norm");
  CHECK(std::find(ops.begin(), first, "bwd:lm_head") != first);
}

TEST_CASE("selective recomputation runs the attention core again when the backward reaches it", "[synth]") {
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");  // with dropout
  Parallelism par = split(8, 16, 1, 1);
  par.recompute = Recompute::kSelective;
  const trace::Trace t = synth::synthesize(gpt3, par, "test");
  CHECK_NOTHROW(trace::validate(t));
  const std::vector<std::string> ops = program_labels(t, 1);  // a middle stage: 6 layers
  int found = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] != "recompute:attn.scores") continue;
    ++found;
    // After the attention output projection's backward, before the core's own backward.
    CHECK(ops[i - 1] == "bwd:attn.out");
    CHECK(std::vector<std::string>(ops.begin() + static_cast<std::ptrdiff_t>(i),
                                   ops.begin() + static_cast<std::ptrdiff_t>(i + 5)) ==
          std::vector<std::string>{"recompute:attn.scores", "recompute:attn.softmax", "recompute:attn.dropout",
                                   "recompute:attn.ctx", "bwd:attn.ctx"});
  }
  CHECK(found == 6);
  int recomputed = 0;
  for (const std::string& label : ops) recomputed += label.starts_with("recompute:");
  CHECK(recomputed == 6 * 4);  // no collective: the core is all within a TP rank
}

// Korthikanti et al. 2022, GPT-3 175B at s 2048, b 1, t 8 (s b h = 25,165,824): per layer
// without recomputation (34 + 5 a s / h) s b h / t with SP = 358,612,992 bytes; selective
// 34 s b h / t = 106,954,752 (s b h (10 + 24 / t) = 327,155,712 without SP); full 2 s b h = 50,331,648
// (the input, sequence-parallel with SP: 6,291,456).
TEST_CASE("activation memory per layer follows Korthikanti's equations for each recomputation", "[synth]") {
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");
  Parallelism par = split(8, 16, 8, 64);
  par.sp = true;
  CHECK(synth::activation_bytes_per_layer(gpt3, par) == 358612992.0);
  par.recompute = Recompute::kSelective;
  CHECK(synth::activation_bytes_per_layer(gpt3, par) == 106954752.0);
  par.recompute = Recompute::kFull;
  CHECK(synth::activation_bytes_per_layer(gpt3, par) == 6291456.0);
  par.sp = false;
  CHECK(synth::activation_bytes_per_layer(gpt3, par) == 50331648.0);
  par.recompute = Recompute::kSelective;
  CHECK(synth::activation_bytes_per_layer(gpt3, par) == 327155712.0);
  par.tp = 1;
  CHECK(synth::activation_bytes_per_layer(gpt3, par) == 34 * 25165824.0);
  // The first stage of 1F1B holds pp = 16 micro-batches of its 6 layers; stage p holds pp - p.
  par = split(8, 16, 8, 64);
  par.recompute = Recompute::kFull;
  const synth::Memory m = synth::memory_per_accelerator(gpt3, par);
  CHECK(m.stage == 0);
  CHECK(m.activations == 50331648.0 * 6 * 16);
  CHECK(synth::micro_batches_in_flight(par, 15) == 1);
  CHECK(synth::micro_batches_in_flight(par, 5) == 11);
}

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
        CHECK(static_cast<double>(op.bytes) ==
              Approx(synth::stage_params_per_rank(l405, par, stage) * 4).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("the distributed optimizer: gradients reduce-scattered, parameters all-gathered, per bucket", "[synth]") {
  const synth::ModelSpec small = synth::load_model("small-gpt");
  Parallelism par = split(2, 2, 2, 2);
  par.zero = 1;  // --distributed-optimizer
  const trace::Trace t = synth::synthesize(small, par, "local");
  CHECK_NOTHROW(trace::validate(t));
  for (int stage : {0, 1}) {
    const double params = synth::stage_params_per_rank(small, par, stage);
    std::map<trace::OpKind, std::vector<double>> dp;
    for (const trace::Op& op : t.programs[static_cast<std::size_t>(stage)].ops) {
      if (op.relative == trace::kGroupByKind && op.group == static_cast<std::int32_t>(trace::GroupKind::kData))
        dp[op.kind].push_back(static_cast<double>(op.bytes));
    }
    // No all_reduce: one reduce-scatter of the fp32 gradients and one all-gather of the fp32
    // (small-gpt's dtype) parameters, each padded to the group.
    CHECK(dp.count(trace::OpKind::kAllReduce) == 0);
    REQUIRE(dp[trace::OpKind::kReduceScatter].size() == 1);
    REQUIRE(dp[trace::OpKind::kAllGather].size() == 1);
    CHECK(dp[trace::OpKind::kReduceScatter][0] == Approx(params * 4).margin(8));
    CHECK(dp[trace::OpKind::kAllGather][0] == Approx(params * 4).margin(8));
  }
  // Model states: 4 + 12 / dp bytes per parameter (ZeRO-1).
  CHECK(synth::memory_per_accelerator(small, par).model_states ==
        Approx(synth::stage_params_per_rank(small, par, 0) * (4 + 12.0 / 2)));
  // With --overlap-grad-reduce: as many all-gathers as reduce-scatter buckets, of the same parameters.
  par.overlap_grad_reduce = true;
  par.bucket_params = 0.75 * synth::layer_params_per_rank(small, par.tp);
  const trace::Trace b = synth::synthesize(small, par, "local");
  CHECK_NOTHROW(trace::validate(b));
  for (int stage : {0, 1}) {
    std::vector<double> scatters, gathers;
    std::size_t optimizer = 0, first_gather = 0;
    const auto& ops = b.programs[static_cast<std::size_t>(stage)].ops;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const trace::Op& op = ops[i];
      if (b.op_name(op) == "optimizer") optimizer = i;
      if (op.kind == trace::OpKind::kReduceScatter && b.op_label(op) == "dp:grads")
        scatters.push_back(static_cast<double>(op.bytes));
      if (op.kind == trace::OpKind::kAllGather && b.op_label(op) == "dp:params") {
        if (gathers.empty()) first_gather = i;
        gathers.push_back(static_cast<double>(op.bytes));
        CHECK(op.stream == 1);
      }
    }
    CHECK(scatters.size() == (stage == 0 ? 3u : 2u));
    REQUIRE(gathers.size() == scatters.size());
    for (std::size_t i = 0; i < gathers.size(); ++i) CHECK(gathers[i] == Approx(scatters[i]).margin(8));  // fp32 both
    CHECK(first_gather > optimizer);
  }
}

TEST_CASE("a job that does not fit the accelerator's memory is refused, naming what would fit", "[synth]") {
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");
  const double h100 = 80 * kGibibyte;
  // TP 8, PP 16, DP 8, 64 micro-batches: model states 1.4618 B parameters x 16 bytes = 21.8 GiB,
  // activations (10 + 24 / 8 + 5 a s / (h t)) s b h = 578,813,952 bytes x 6 layers x 16 in
  // flight = 51.7 GiB: fits.
  const synth::MemoryFit fits = synth::check_memory(gpt3, split(8, 16, 8, 64), h100, "NVIDIA H100 SXM5 80GB");
  CHECK(fits.fits);
  CHECK(fits.memory.model_states / kGibibyte == Approx(21.78).epsilon(0.001));
  CHECK(fits.memory.activations == 578813952.0 * 6 * 16);
  // PP 8: 12 layers a stage, twice both.
  const synth::MemoryFit big = synth::check_memory(gpt3, split(8, 8, 16, 64), h100, "NVIDIA H100 SXM5 80GB");
  CHECK_FALSE(big.fits);
  const double states = synth::model_state_bytes(synth::stage_params_per_rank(gpt3, split(8, 8, 16, 64), 0), 0, 16);
  const double activations = 578813952.0 * 12 * 8;
  CHECK(big.memory.total() == Approx(states + activations));
  CHECK_THAT(big.message,
             Catch::StartsWith(
                 fmt::format("needs {:.1f} GiB per accelerator (stage 0 of 12 layers: model states {:.1f}, activations "
                             "{:.1f}) on NVIDIA H100 SXM5 80GB with 80 GiB: these fit: ",
                             (states + activations) / kGibibyte, states / kGibibyte, activations / kGibibyte)));
  // Each change named fits, by its own figure.
  Parallelism full = split(8, 8, 16, 64);
  full.recompute = Recompute::kFull;
  CHECK_THAT(big.message, Catch::Contains(fmt::format("--recompute full ({:.1f} GiB)",
                                                      synth::memory_per_accelerator(gpt3, full).total() / kGibibyte)));
  CHECK(synth::memory_per_accelerator(gpt3, full).total() < h100);
  CHECK_THAT(big.message, Catch::Contains("--pp 16 ("));
  // Nothing fits a 1 GiB accelerator.
  const synth::MemoryFit none = synth::check_memory(gpt3, split(8, 8, 16, 64), kGibibyte, "tiny");
  CHECK_THAT(none.message,
             Catch::EndsWith("on tiny with 1 GiB: none of --recompute full, --distributed-optimizer, --sp, "
                             "twice the --pp or the --tp fits alone; spread the model over more accelerators"));
}

TEST_CASE("a job of more ranks than the platform's accelerators is refused, naming both", "[synth]") {
  CHECK_NOTHROW(synth::check_ranks_fit(split(8, 16, 8), "dgx-h100-superpod", 128, 8));
  CHECK_THROWS_WITH(synth::check_ranks_fit(split(8, 16, 16), "dgx-h100-superpod", 128, 8),
                    "command line: field '--dp': TP 8 x PP 16 x DP 16 = 2048 ranks, but platform \"dgx-h100-superpod\" "
                    "has 1024 accelerators (128 nodes x 8), one rank each; --set nodes=256 gives it enough");
}
