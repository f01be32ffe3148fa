#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "synth/megatron.hpp"
#include "trace/trace.hpp"
#include "trace/validate.hpp"
#include "support/split.hpp"

using namespace ccsim;
using synth::Parallelism;

namespace {

using test::split;

double sum_flops(const std::vector<synth::ComputeCost>& ops, std::initializer_list<std::string_view> names) {
  double sum = 0;
  for (const synth::ComputeCost& op : ops) {
    for (std::string_view n : names) {
      if (op.name == n) sum += op.flops;
    }
  }
  return sum;
}

// The p2p operators of `stage`'s program between two computations, one string per call
// ("R act2.2": the receive of micro-batch 2's activations into virtual stage 2; "S grad0.1": the
// gradients of micro-batch 0 sent into virtual stage 1; without chunks "S act1").
std::vector<std::string> p2p_calls(const trace::Trace& t, int stage) {
  std::vector<std::string> out;
  std::string call;
  for (const trace::Op& op : t.programs[static_cast<std::size_t>(stage)].ops) {
    if (op.kind != trace::OpKind::kSend && op.kind != trace::OpKind::kRecv) {
      if (!call.empty()) out.push_back(call);
      call.clear();
      continue;
    }
    call +=
        fmt::format("{}{} {}", call.empty() ? "" : ", ", op.kind == trace::OpKind::kSend ? "S" : "R", t.names[op.tag]);
  }
  return out;
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
  CHECK_THROWS_WITH(synth::load_model("gpt5"),
                    Catch::Contains("unknown model \"gpt5\"") && Catch::Contains("llama3-70b"));
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
  CHECK(m.tp == 50331648.0);      // 2048 * 12288 * 2 bytes (48 MiB)
  CHECK(m.pp == 50331648.0 / 8);  // sequence parallel: s / t of the activation
  // Stage 0, per TP rank: 6 layers of 12 h^2 / 8 + 7 h / 8 (QKV and MLP input projections
  // with their biases, column-parallel) + 6 h (the row-parallel projections' two biases and the
  // two LayerNorms, replicated) = 226,576,896 parameters; the word embedding over TP
  // (50257 x 12288 / 8) and the position embedding, replicated (2048 x 12288): 1,461,821,952
  // parameters of fp16 gradients.
  CHECK(synth::layer_params_per_rank(gpt3, 8) == 226576896.0);
  CHECK(m.grad_dtype == DType::kF16);
  CHECK(m.dp_grads == 1461821952.0 * 2);
}

// Megatron's split of a layer's parameters: at TP 1 the layer; over TP the split tensors add up
// to the layer and the replicated ones count on every rank. small-gpt (h 512, FFN 2048, vocab
// 512, sequence 64, learned positions, biases) at TP 2 x PP 2: stage 0 holds 2 layers of
// 6 h^2 + 7 h / 2 + 6 h = 1,577,728 and the embedding, 512 x 512 / 2 + 64 x 512 = 163,840:
// 3,319,296 parameters, what Megatron-LM's GPT model of this size reports per rank.
TEST_CASE("parameters per TP rank: split tensors divided, replicated ones on every rank", "[synth]") {
  for (const synth::ModelSpec& model : synth::model_presets()) {
    INFO(model.name);
    CHECK(synth::layer_params_per_rank(model, 1) == model.layer_params());
    CHECK(synth::embedding_params_per_rank(model, 1) + synth::head_params_per_rank(model, 1) ==
          model.embedding_params() + model.head_params());
    Parallelism one = split(1, 1, 1, 1);
    CHECK(synth::stage_params_per_rank(model, one, 0) == model.total_params());
  }
  const synth::ModelSpec small = synth::load_model("small-gpt");
  CHECK(synth::layer_params_per_rank(small, 2) == 1577728.0);
  CHECK(synth::stage_params_per_rank(small, split(2, 2, 2, 2), 0) == 3319296.0);
  // The last stage: 2 layers, the final LayerNorm (2 h, replicated) and the tied head's own
  // copy of the word embedding (vocabulary-parallel).
  CHECK(synth::stage_params_per_rank(small, split(2, 2, 2, 2), 1) == 2 * 1577728.0 + 2 * 512 + 512.0 * 512 / 2);
  // Llama 2 70B (8 KV heads, no biases, SwiGLU) at TP 16: each rank holds one KV head,
  // replicated over the two ranks that share it, and the two RMSNorms.
  const synth::ModelSpec l70 = synth::load_model("llama2-70b");
  CHECK(synth::kv_heads_per_rank(l70, 8) == 1.0);
  CHECK(synth::kv_heads_per_rank(l70, 16) == 1.0);
  CHECK(synth::kv_heads_per_rank(l70, 4) == 2.0);
  const double h = 8192, d = 128, f = 28672;
  CHECK(synth::layer_params_per_rank(l70, 16) == h * (h / 16 + 2 * d) + h * h / 16 + 3 * h * f / 16 + 2 * h);
  // A gated MLP with biases: the input projection's bias has its two outputs (gate and up).
  synth::ModelSpec gated = small;
  gated.activation = synth::Activation::kSwiglu;
  CHECK(gated.layer_params() - small.layer_params() == 512.0 * 2048 + 2048);
  CHECK(synth::layer_params_per_rank(gated, 1) == gated.layer_params());
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
  CHECK_THROWS_WITH(synth::check_parallelism(gpt3, split(8, 97, 1)),
                    Catch::Contains("'--pp'") && Catch::Contains("96 layers, fewer than 97 pipeline stages"));
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
    // Compute per micro-batch: embedding + 2 layers x 13 operators (small-gpt: biases, ReLU, no
    // dropout: norm, QKV, scores, masked softmax, context, output, bias and residual add; norm,
    // up, bias add, ReLU, down, bias and residual add), forward and backward; optimizer.
    CHECK(synth::plan_layer(small, par).forward.size() == 13);
    CHECK(kinds[trace::OpKind::kCompute] == 4 * 2 * (1 + 2 * 13) + 1);
  }
}

TEST_CASE("gradients reduced in buckets during the last backward: sizes, streams and order", "[synth][streams]") {
  const synth::ModelSpec small = synth::load_model("small-gpt");  // 4 layers
  for (int zero : {0, 1}) {
    INFO("zero " << zero);
    Parallelism par = split(2, 2, 2, 3);
    par.zero = zero;
    par.overlap_grad_reduce = true;
    // A layer's gradients per rank fill a bucket (4/3 of it): one bucket per layer.
    par.bucket_params = 0.75 * synth::layer_params_per_rank(small, par.tp);
    const trace::Trace t = synth::synthesize(small, par, "local");
    CHECK_NOTHROW(trace::validate(t));
    const auto reduce = zero == 0 ? trace::OpKind::kAllReduce : trace::OpKind::kReduceScatter;
    for (int stage : {0, 1}) {
      INFO("stage " << stage);
      const trace::Program& program = t.programs[static_cast<std::size_t>(stage)];
      // Buckets on stream 1; the pipeline's calls send on streams 2 (activations, stage 0) and
      // 3 (gradients, stage 1).
      CHECK(program.stream_count() == (stage == 0 ? 3 : 4));
      std::vector<std::size_t> buckets;
      double bytes = 0;
      for (std::size_t i = 0; i < program.ops.size(); ++i) {
        const trace::Op& op = program.ops[i];
        if (op.kind != reduce || t.op_label(op) != "dp:grads") continue;
        buckets.push_back(i);
        bytes += static_cast<double>(op.bytes);
        CHECK(op.stream == 1);
        REQUIRE(op.after_count == 1);
        // After a backward operator of the last micro-batch (its layer's gradients are ready).
        const trace::Op& ready = program.ops[program.after_of(op)[0]];
        CHECK(ready.kind == trace::OpKind::kCompute);
        CHECK(t.op_label(ready).substr(0, 4) == "bwd:");
      }
      // Stage 1: the head's gradients (less than a bucket) join layer 3's, then layer 2's;
      // stage 0: layer 1's, layer 0's, then the embedding's when the backward ends. Every
      // parameter of the stage is in exactly one bucket.
      CHECK(buckets.size() == (stage == 0 ? 3u : 2u));
      const double params = synth::stage_params_per_rank(small, par, stage);
      // fp32 gradients of a bf16/fp16 model, else the model's dtype; each bucket padded to the group.
      const double expected = params * dtype_bytes(synth::message_sizes(small, par).grad_dtype);
      CHECK(bytes >= expected);
      CHECK(bytes <= expected + static_cast<double>(buckets.size()) * par.dp * 4);
      // The optimizer waits for the last bucket, and nothing of the data group is on stream 0.
      std::size_t optimizer = 0;
      for (std::size_t i = 0; i < program.ops.size(); ++i) {
        if (t.op_name(program.ops[i]) == "optimizer") optimizer = i;
      }
      REQUIRE(program.ops[optimizer].after_count == 1);
      CHECK(program.after_of(program.ops[optimizer])[0] == buckets.back());
      // Buckets form only in the last backward: the ones before it hold none.
      std::size_t backward_ops = 0;
      for (std::size_t i = buckets.front(); i < program.ops.size(); ++i) {
        if (program.ops[i].kind == trace::OpKind::kCompute && t.op_label(program.ops[i]).substr(0, 4) == "bwd:")
          ++backward_ops;
      }
      CHECK(backward_ops <= 2 * 13 + 3);  // at most one micro-batch's backward after the first bucket
    }
  }
  Parallelism z3 = split(2, 1, 2, 1);
  z3.zero = 3;
  z3.overlap_grad_reduce = true;
  CHECK_THROWS_WITH(synth::check_parallelism(small, z3), Catch::Contains("--overlap-grad-reduce"));
}

// Megatron's interleaved schedule (forward_backward_pipelining_with_interleaving), written out
// by hand for stage 0 of pp 2, v 2, M 4: warm-up (pp - 1) 2 + (v - 1) pp = 4 forward steps,
// step k on chunk (k mod 4) / 2 (backward: reversed) and micro-batch (k / 4) 2 + k mod 2.
TEST_CASE("the interleaved schedule: Megatron's order of chunks and micro-batches, sends on streams of their own",
          "[synth][streams]") {
  const synth::ModelSpec small = synth::load_model("small-gpt");  // 4 layers: 2 chunks of 1 layer per stage
  Parallelism par = split(1, 2, 1, 4);
  par.schedule = synth::PipelineSchedule::kInterleaved;
  par.virtual_stages = 2;
  par.overlap_p2p = true;  // each step's receive just before it: the steps read off the messages
  const trace::Trace t = synth::synthesize(small, par, "local");
  CHECK_NOTHROW(trace::validate(t));
  // Stage 0 holds virtual stages 0 and 2 of 4. Every forward step of it ends with a send of
  // the activations (into virtual stage 1 or 3) and every backward step needs the receive of a
  // gradient (from virtual stage 1 or 3), posted with the call after the backward before it
  // (from the warm-up's last step on, as Megatron's bwd_wait_handles): their tags give the
  // step order, each backward's receive one step ahead of it.
  std::vector<std::string> steps;
  const trace::Program& stage0 = t.programs[0];
  for (const trace::Op& op : stage0.ops) {
    const std::string tag(t.names[op.tag]);
    if (op.kind == trace::OpKind::kSend && t.op_label(op) == "pp:act") steps.push_back("F" + tag.substr(3));
    if (op.kind == trace::OpKind::kRecv && t.op_label(op) == "pp:grad") steps.push_back("B" + tag.substr(4));
  }
  // "F2.1": the forward of micro-batch 2 on chunk 0 (its output goes into virtual stage 1);
  // "B0.2": the backward of micro-batch 0 on chunk 1 (virtual stage 2).
  const std::vector<std::string> megatron = {"F0.1", "F1.1", "F0.3", "F1.3",                  // warm-up
                                             "B0.2", "F2.1", "B1.2", "F3.1", "B0.0", "F2.3",  // 1F1B
                                             "B1.0", "F3.3",                                  //
                                             "B2.2", "B3.2", "B2.0", "B3.0"};                 // cool-down
  CHECK(steps == megatron);
  std::map<std::pair<trace::OpKind, std::uint8_t>, int> count;
  for (const trace::Program& program : t.programs) {
    for (const trace::Op& op : program.ops) {
      if (op.kind != trace::OpKind::kSend && op.kind != trace::OpKind::kRecv) continue;
      ++count[{op.kind, op.stream}];
      if (op.kind == trace::OpKind::kSend) {
        // Activations on stream 2, gradients on stream 3, each after the compute that made it.
        CHECK(op.stream == (t.op_label(op) == "pp:act" ? 2 : 3));
        REQUIRE(op.after_count == 1);
        CHECK(program.ops[program.after_of(op)[0]].kind == trace::OpKind::kCompute);
      }
    }
  }
  // 4 virtual stages: 3 hops forward and 3 backward per micro-batch. Sends on streams 2 and 3;
  // receives on the main stream in Megatron's blocking calls only: stage 1's recv_forward before
  // the loop and the cool-down's (stage 0: 3 of its 4 backward steps receive the next one's
  // gradient; stage 1: 1 of 2); the others posted on streams 4 (gradients) and 5 (activations).
  CHECK(count[{trace::OpKind::kSend, 2}] == 3 * 4);
  CHECK(count[{trace::OpKind::kSend, 3}] == 3 * 4);
  CHECK(count[{trace::OpKind::kRecv, 0}] == 1 + 3 + 1);
  CHECK(count[{trace::OpKind::kRecv, 4}] + count[{trace::OpKind::kRecv, 5}] == 2 * 3 * 4 - 5);
  CHECK(count[{trace::OpKind::kRecv, 5}] > 0);
  // The last stage sends its chunk 0's output to the first stage: the pipeline wraps around.
  int wraps = 0;
  for (std::size_t i = 0; i < t.programs[1].ops.size(); ++i) {
    const trace::Op op = t.op(1, i);  // rank 1: stage 1
    if (op.kind == trace::OpKind::kSend && t.op_label(op) == "pp:act") wraps += op.peer == 0;
  }
  CHECK(wraps == 4);  // chunk 0's output of each micro-batch
  // The embedding on virtual stage 0 only, the head on virtual stage 3 only.
  auto labelled = [&](int stage, std::string_view label) {
    int n = 0;
    for (const trace::Op& op : t.programs[static_cast<std::size_t>(stage)].ops) n += t.op_label(op) == label;
    return n;
  };
  CHECK(labelled(0, "embed") == 4);
  CHECK(labelled(1, "embed") == 0);
  CHECK(labelled(1, "lm_head") == 4);
  CHECK(labelled(0, "lm_head") == 0);
}

TEST_CASE("the interleaved schedule's activations in flight and its refusals", "[synth]") {
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");  // 96 layers
  Parallelism par = split(8, 16, 8, 64);
  par.schedule = synth::PipelineSchedule::kInterleaved;
  par.virtual_stages = 2;
  // Korthikanti et al. 2022, section 4.2.3: p (1 + (p - 1) / (p m)) = 16 + 15 / 2.
  CHECK(synth::micro_batches_in_flight(par) == Approx(23.5));
  const double per_mb = synth::activation_bytes_per_layer(gpt3, par) * 96 / 16;
  CHECK(synth::memory_per_accelerator(gpt3, par).activations == Approx(23.5 * per_mb));
  par.micro_batches = 16;  // M = pp: every forward first (Megatron), all 16 in flight
  CHECK(synth::micro_batches_in_flight(par) == Approx(16));
  par.micro_batches = 64;
  CHECK_NOTHROW(synth::check_parallelism(gpt3, par));
  Parallelism bad = par;
  bad.micro_batches = 24;
  CHECK_THROWS_WITH(synth::check_parallelism(gpt3, bad),
                    Catch::Contains("--micro-batches") && Catch::Contains("multiple"));
  bad = par;
  bad.virtual_stages = 5;  // 96 layers over 16 x 5 chunks
  CHECK_THROWS_WITH(synth::check_parallelism(gpt3, bad), Catch::Contains("16 stages x 5 chunks do not divide"));
  bad = par;
  bad.pp = 1;
  bad.micro_batches = 1;
  CHECK_THROWS_WITH(synth::check_parallelism(gpt3, bad), Catch::Contains("--pp 2 or more"));
  bad = par;
  bad.schedule = synth::PipelineSchedule::k1F1B;
  CHECK_THROWS_WITH(synth::check_parallelism(gpt3, bad), Catch::Contains("need --schedule interleaved"));
}

// Megatron's default (no --overlap-p2p-communication): p2p_communication calls that post their
// sends and receives together, one after each step (two in the steady state's). Written out by
// hand from forward_backward_pipelining_with_interleaving for pp 2, v 2, M 4: the recv_prev /
// recv_next rules (the first stage receives nothing for chunk 0 and is pp - 1 steps ahead of
// the last; the last receives no gradient for its last chunk), the extra receive before the
// warm-up, the warm-up's last call that also receives the first gradient.
TEST_CASE("the interleaved schedule posts each step's sends and receives together, as Megatron's p2p calls",
          "[synth][streams]") {
  const synth::ModelSpec small = synth::load_model("small-gpt");
  Parallelism par = split(1, 2, 1, 4);
  par.schedule = synth::PipelineSchedule::kInterleaved;
  par.virtual_stages = 2;
  const trace::Trace t = synth::synthesize(small, par, "local");
  CHECK_NOTHROW(trace::validate(t));
  auto calls = [&](int stage) { return p2p_calls(t, stage); };
  CHECK(calls(0) == std::vector<std::string>{
                        "S act0.1", "R act0.2, S act1.1", "R act1.2, S act0.3", "R grad0.2, S act1.3",  // warm-up
                        "R grad1.2, S act2.1, S grad0.1", "R act2.2, R grad0.0, S act3.1, S grad1.1",   // 1F1B
                        "R act3.2, R grad1.0, S act2.3", "R grad2.2, S act3.3",                         //
                        "R grad3.2, S grad2.1", "R grad2.0, S grad3.1", "R grad3.0"});                  // cool-down
  CHECK(calls(1) == std::vector<std::string>{"R act0.1", "R act1.1, S act0.2", "R act0.3, S act1.2",    // warm-up
                                             "R act1.3, S grad0.2", "R act2.1, R grad0.1, S grad1.2",   // 1F1B
                                             "R act3.1, R grad1.1, S act2.2, S grad0.0",
                                             "R act2.3, S act3.2, S grad1.0",                //
                                             "R act3.3, S grad2.2", "R grad2.1, S grad3.2",  //
                                             "R grad3.1, S grad2.0", "S grad3.0"});          // cool-down
  // Posted together: each of a call's operators off the main stream is after the computation
  // before the call, and the computation after the call waits for all of them.
  for (const trace::Program& program : t.programs) {
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      const trace::Op& op = program.ops[i];
      if (op.kind == trace::OpKind::kCompute || op.stream == 0) continue;
      REQUIRE(op.after_count == 1);
      CHECK(program.ops[program.after_of(op)[0]].kind == trace::OpKind::kCompute);
      std::size_t next = i;
      while (next < program.ops.size() && program.ops[next].kind != trace::OpKind::kCompute) ++next;
      if (next == program.ops.size()) continue;
      const auto joined = program.after_of(program.ops[next]);
      CHECK(std::find(joined.begin(), joined.end(), static_cast<std::uint32_t>(i)) != joined.end());
    }
    // Nothing overlaps a computation: every compute operator runs alone on its rank.
    const std::vector<char> alone = program.alone();
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      if (program.ops[i].kind == trace::OpKind::kCompute) CHECK(alone[i] == 1);
    }
  }
}

// Megatron's 1F1B (forward_backward_pipelining_without_interleaving) for pp 2, M 4, by hand:
// stage 0 warms up with one forward and its blocking send; in the steady state each forward
// is followed by send_forward_recv_backward, one call, and each backward but the last by
// send_backward_recv_forward (nothing on the first stage); the cool-down receives alone.
TEST_CASE("1F1B posts Megatron's combined sends and receives as one call", "[synth][streams]") {
  Parallelism par = split(1, 2, 1, 4);
  const trace::Trace t = synth::synthesize(synth::load_model("small-gpt"), par, "local");
  CHECK_NOTHROW(trace::validate(t));
  CHECK(p2p_calls(t, 0) ==
        std::vector<std::string>{"S act0", "R grad0, S act1", "R grad1, S act2", "R grad2, S act3", "R grad3"});
  CHECK(p2p_calls(t, 1) ==
        std::vector<std::string>{"R act0", "R act1, S grad0", "R act2, S grad1", "R act3, S grad2", "S grad3"});
  // A single send or receive blocks the main stream; a call's send is on a stream of its own.
  for (const trace::Program& program : t.programs) {
    for (const trace::Op& op : program.ops) {
      if (op.kind == trace::OpKind::kRecv) CHECK(op.stream == 0);
    }
  }
  CHECK(t.programs[0].ops.front().kind == trace::OpKind::kCompute);
}
