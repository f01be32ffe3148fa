// The Megatron formulas of a job: its split's checks, one layer's operators with FLOPs and
// bytes, message sizes, memory per accelerator. megatron.cpp writes the job's trace with them.
#include "synth/megatron.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/input_error.hpp"

namespace ccsim::synth {
namespace {

/// Gradients travel in fp32 for bf16 models (Megatron accumulates and all-reduces them in
/// fp32 by default with bf16), in the model's dtype otherwise.
DType grad_dtype_of(const ModelSpec& model) { return model.dtype == DType::kBF16 ? DType::kF32 : model.dtype; }

}  // namespace

int sequence_length(const ModelSpec& model, const Parallelism& par) { return par.seq > 0 ? par.seq : model.seq; }

double kv_heads_per_rank(const ModelSpec& model, int tp) {
  // Megatron: with more TP ranks than KV heads (query groups), each rank holds one group's
  // keys and values, replicated over the ranks that share it.
  return model.kv_heads >= tp ? static_cast<double>(model.kv_heads) / tp : 1.0;
}

double layer_params_per_rank(const ModelSpec& model, int tp) {
  const double h = model.hidden;
  const double t = tp;
  const double kv = kv_heads_per_rank(model, tp) * model.head_dim();  // keys (= values) per rank
  const double f = model.ffn;
  const double up = model.activation == Activation::kSwiglu ? 2.0 : 1.0;  // SwiGLU: gate and up
  // Column-parallel QKV and MLP input projections: weights and biases split. Row-parallel
  // output projections: weights split, biases replicated (added after the reduction). Norms
  // replicated.
  double params = h * (h / t + 2 * kv) + h * h / t + up * h * f / t + h * f / t;
  params += model.biases ? 4 * h : 2 * h;  // LayerNorm weight and bias x 2, or RMSNorm weight x 2
  if (model.biases) params += (h / t + 2 * kv) + h + up * f / t + h;
  return params;
}

double embedding_params_per_rank(const ModelSpec& model, int tp) {
  // Vocabulary-parallel word embedding; the learned position embedding is replicated.
  return static_cast<double>(model.vocab) * model.hidden / tp +
         (model.learned_positions ? static_cast<double>(model.seq) * model.hidden : 0.0);
}

double head_params_per_rank(const ModelSpec& model, int tp) {
  // The final norm, replicated; an untied head is vocabulary-parallel.
  return (model.biases ? 2.0 : 1.0) * model.hidden +
         (model.untied_head ? static_cast<double>(model.vocab) * model.hidden / tp : 0.0);
}

double last_stage_extra_params_per_rank(const ModelSpec& model, const Parallelism& par) {
  double params = head_params_per_rank(model, par.tp);
  // A tied head on a last stage that is not the first keeps its own copy of the word
  // embedding (Megatron synchronises the two copies' gradients).
  if (!model.untied_head && par.pp > 1) params += static_cast<double>(model.vocab) * model.hidden / par.tp;
  return params;
}

int layers_of_stage(const ModelSpec& model, const Parallelism& par, int stage) {
  const int pp = std::max(par.pp, 1);
  const bool first = par.first_stage_layers > 0 && pp > 1, last = par.last_stage_layers > 0 && pp > 1;
  if (first || last) {
    if (first && stage == 0) return par.first_stage_layers;
    if (last && stage == pp - 1) return par.last_stage_layers;
    const int others = pp - (first ? 1 : 0) - (last ? 1 : 0);
    return (model.layers - (first ? par.first_stage_layers : 0) - (last ? par.last_stage_layers : 0)) / others;
  }
  // floor(L / pp) each; the L mod pp left over one each to stages 1, 2, ..., pp - 2, then the last.
  const int q = model.layers / pp, r = model.layers % pp;
  if (stage > 0 && stage < pp - 1) return q + (stage <= r ? 1 : 0);
  if (stage == pp - 1 && pp > 1) return q + (r > pp - 2 ? 1 : 0);
  return q;
}

std::vector<int> stage_layers(const ModelSpec& model, const Parallelism& par) {
  std::vector<int> layers(static_cast<std::size_t>(std::max(par.pp, 1)));
  for (std::size_t p = 0; p < layers.size(); ++p) layers[p] = layers_of_stage(model, par, static_cast<int>(p));
  return layers;
}

double stage_params_per_rank(const ModelSpec& model, const Parallelism& par, int stage) {
  const double layers = layers_of_stage(model, par, stage);
  double params = layers * layer_params_per_rank(model, par.tp);
  if (stage == 0) params += embedding_params_per_rank(model, par.tp);
  if (stage == par.pp - 1) params += last_stage_extra_params_per_rank(model, par);
  return params;
}

std::string_view recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "?";
}

std::string_view schedule_name(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::kGpipe:
      return "gpipe";
    case PipelineSchedule::k1F1B:
      return "1f1b";
    case PipelineSchedule::kInterleaved:
      return "interleaved";
  }
  return "?";
}

/// Long: one refusal per impossible split, in the order Megatron-LM checks its arguments.
void check_parallelism(const ModelSpec& model, const Parallelism& par) {
  auto fail = [](const char* flag, const std::string& detail) { throw InputError("command line", 0, flag, detail); };
  for (auto [flag, v] : {std::pair{"--tp", par.tp},
                         {"--pp", par.pp},
                         {"--dp", par.dp},
                         {"--micro-batches", par.micro_batches},
                         {"--micro-batch-size", par.micro_batch_size}}) {
    if (v < 1 || v > (1 << 20)) fail(flag, fmt::format("expected 1..{}, got \"{}\"", 1 << 20, v));
  }
  if (static_cast<double>(par.tp) * par.pp * par.dp > (1 << 24)) {
    fail("--dp",
         fmt::format("tp x pp x dp = {} ranks; at most 16777216", static_cast<double>(par.tp) * par.pp * par.dp));
  }
  if (par.seq < 0 || par.seq > (1 << 24)) fail("--seq", fmt::format("expected 1..{}, got \"{}\"", 1 << 24, par.seq));
  if (par.zero < 0 || par.zero > 3) fail("--zero", fmt::format("expected 0, 1, 2 or 3, got \"{}\"", par.zero));
  if (model.layers < par.pp) {
    fail("--pp", fmt::format("{} has {} layers, fewer than {} pipeline stages: each stage needs one", model.name,
                             model.layers, par.pp));
  }
  for (auto [flag, v] :
       {std::pair{"--first-stage-layers", par.first_stage_layers}, {"--last-stage-layers", par.last_stage_layers}}) {
    if (v == 0) continue;
    if (v < 0 || v > model.layers)
      fail(flag, fmt::format("expected 1..{} (the layers of {}), got \"{}\"", model.layers, model.name, v));
    if (par.pp < 2) fail(flag, "the layers of one pipeline stage out of several: needs --pp 2 or more");
    if (par.schedule == PipelineSchedule::kInterleaved) {
      fail(flag, "uneven pipeline stages are written for --schedule 1f1b or gpipe, not interleaved");
    }
  }
  if (par.first_stage_layers > 0 || par.last_stage_layers > 0) {
    const int given = (par.first_stage_layers > 0) + (par.last_stage_layers > 0);
    const int rest = model.layers - par.first_stage_layers - par.last_stage_layers, others = par.pp - given;
    const char* flag = par.last_stage_layers > 0 ? "--last-stage-layers" : "--first-stage-layers";
    if (others == 0 && rest != 0) {
      fail(flag, fmt::format("{} has {} layers; the first and last stage take {} + {}", model.name, model.layers,
                             par.first_stage_layers, par.last_stage_layers));
    }
    if (others > 0 && (rest < others || rest % others != 0)) {
      fail(flag, fmt::format("{} has {} layers; the {} left to the other {} stages do not divide evenly among them "
                             "(Megatron's rule)",
                             model.name, model.layers, rest, others));
    }
  }
  if (model.heads % par.tp != 0 || model.ffn % par.tp != 0 || model.hidden % par.tp != 0) {
    fail("--tp", fmt::format("{} has {} heads, hidden {} and FFN {}; tensor parallelism {} must divide all three",
                             model.name, model.heads, model.hidden, model.ffn, par.tp));
  }
  if (model.kv_heads % par.tp != 0 && par.tp % model.kv_heads != 0) {
    fail("--tp", fmt::format("{} has {} KV heads; tensor parallelism {} must divide them or be a multiple", model.name,
                             model.kv_heads, par.tp));
  }
  if (par.sp && par.tp == 1) fail("--sp", "sequence parallelism splits the sequence over the TP group: needs --tp > 1");
  if (par.sp && sequence_length(model, par) % par.tp != 0) {
    fail("--seq", fmt::format("sequence parallelism needs the sequence ({}) divisible by --tp {}",
                              sequence_length(model, par), par.tp));
  }
  if (par.zero == 3 && par.pp > 1) {
    fail("--zero",
         "ZeRO-3 with pipeline parallelism is not what Megatron or DeepSpeed run; use --zero 1 or 2 with --pp");
  }
  if (par.virtual_stages < 1 || par.virtual_stages > (1 << 10)) {
    fail("--virtual-stages", fmt::format("expected 1..{}, got \"{}\"", 1 << 10, par.virtual_stages));
  }
  if (par.schedule != PipelineSchedule::kInterleaved && par.virtual_stages > 1) {
    fail("--virtual-stages", fmt::format("model chunks per rank ({}) need --schedule interleaved, got \"{}\"",
                                         par.virtual_stages, schedule_name(par.schedule)));
  }
  if (par.overlap_p2p && par.schedule != PipelineSchedule::kInterleaved) {
    fail("--overlap-p2p", fmt::format("overlapping the pipeline's messages with compute is written for --schedule "
                                      "interleaved, got \"{}\"",
                                      schedule_name(par.schedule)));
  }
  if (par.schedule == PipelineSchedule::kInterleaved) {
    // Megatron's own conditions for the interleaved schedule.
    if (par.pp < 2)
      fail("--pp", "the interleaved schedule interleaves model chunks over pipeline stages: needs --pp 2 or more");
    if (par.virtual_stages < 2)
      fail("--virtual-stages", "the interleaved schedule needs 2 or more model chunks per rank");
    if (model.layers % (par.pp * par.virtual_stages) != 0) {
      fail("--virtual-stages", fmt::format("{} has {} layers, which {} stages x {} chunks do not divide", model.name,
                                           model.layers, par.pp, par.virtual_stages));
    }
    if (par.micro_batches % par.pp != 0) {
      fail("--micro-batches",
           fmt::format("the interleaved schedule runs micro-batches in groups of --pp {}: {} is not a "
                       "multiple",
                       par.pp, par.micro_batches));
    }
  }
  if (par.overlap_grad_reduce && par.zero == 3) {
    fail("--overlap-grad-reduce",
         "ZeRO-3 reduces each layer's gradients as the layer's backward ends already; use it with --zero 0, 1 or 2");
  }
  if (!(par.bucket_params >= 0) || par.bucket_params > 1e15) {
    fail("--bucket-size", fmt::format("expected a number of parameters in 0..1e15 (0: Megatron's default), got \"{}\"",
                                      par.bucket_params));
  }
}

/// Long: a transformer layer's operators in the order Megatron-LM runs them.
LayerPlan plan_layer(const ModelSpec& model, const Parallelism& par) {
  const double b = par.micro_batch_size;
  const double s = sequence_length(model, par);
  const double h = model.hidden;
  const double t = par.tp;
  const double heads = model.heads / t;                                                // per rank
  const double qkv = h / t + 2 * kv_heads_per_rank(model, par.tp) * model.head_dim();  // per rank
  const double f = model.ffn;
  const double k = model.activation == Activation::kSwiglu ? 2 : 1;  // SwiGLU: gate and up
  const double e = dtype_bytes(model.dtype);
  const double tokens = b * s;
  const double sp = par.sp ? t : 1;  // the norms run on s/t tokens with sequence parallelism

  LayerPlan plan;
  auto op = [&](std::string name, std::string label, double flops, double bytes) {
    plan.forward.push_back({std::move(name), std::move(label), flops, bytes});
  };
  // The shape of the last operator's product: C[m, n] = A[m, k] B[k, n], `batch` times.
  auto product = [&](double m, double n, double k_dim, double batch = 1) {
    auto dim = [](double x) { return static_cast<std::uint32_t>(std::llround(x)); };
    plan.forward.back().gemm = GemmShape{dim(m), dim(n), dim(k_dim), dim(batch), model.dtype, false};
  };
  auto tp_point = [&](bool copy_to_tp, std::string label) {
    plan.tp_points.push_back({static_cast<int>(plan.forward.size()), copy_to_tp, std::move(label)});
  };
  // The memory-bound operators around the matrix products, as Megatron's GPT layer runs them
  // (ParallelTransformerLayer): FLOPs per element and bytes read and written, 16-bit data and
  // 1-byte dropout masks. The row-parallel projections skip their bias (skip_bias_add): it is
  // added in the fused bias-dropout-add, after the reduction.
  const double scores = b * heads * s * s;  // elements of the attention scores per rank
  const double p = model.dropout;
  // Bias (1 FLOP), dropout (compare and scale: 2, and a 1-byte mask written), residual add (1)
  // after the attention and the MLP, on the b s h (/ t with SP) outputs; with
  // bias_dropout_fusion one kernel (bias_dropout_add_fused_train), else three.
  auto residual = [&](const std::string& where, const std::string& bias_label) {
    const double n = tokens * h / sp;
    const bool bias = model.biases;
    if (par.bias_dropout_fusion) {
      const std::string name = std::string(bias ? "bias_" : "") + (p > 0 ? "dropout_" : "") + "add";
      op(name, where + ".residual", n * ((bias ? 1 : 0) + (p > 0 ? 2 : 0) + 1),
         e * (3 * n + (bias ? h : 0)) + (p > 0 ? n : 0));
      return;
    }
    if (bias) op("bias_add", bias_label, n, e * (2 * n + h));
    if (p > 0) op("dropout", where + ".dropout", 2 * n, e * 2 * n + n);
    op("add", where + ".residual", n, e * 3 * n);
  };
  op("layernorm", "attn.norm", 8 * tokens * h / sp, e * 2 * tokens * h / sp);
  tp_point(true, "tp:attn.in");
  op("linear", "attn.qkv", 2 * tokens * h * qkv, e * (tokens * h + h * qkv + tokens * qkv));
  product(tokens, qkv, h);
  plan.core_begin = static_cast<int>(plan.forward.size());
  op("baddbmm", "attn.scores", 2 * b * s * s * h / t, e * (2 * tokens * h / t + b * heads * s * s));
  product(s, s, model.head_dim(), b * heads);  // Q K^T per head
  // The causal mask and the softmax (5 FLOPs per element: max, subtract, exp, sum, divide):
  // Megatron's FusedScaleMaskSoftmax, one kernel that masks the upper triangle itself
  // (scaled_upper_triang_masked_softmax), or with --no-masked-softmax-fusion a masked_fill that
  // also reads the b s^2 boolean mask, then the softmax.
  if (par.masked_softmax_fusion) {
    op("scale_mask_softmax", "attn.softmax", 6 * scores, e * 2 * scores);
  } else {
    op("masked_fill", "attn.mask", scores, e * 2 * scores + b * s * s);
    op("softmax", "attn.softmax", 5 * scores, e * 2 * scores);
  }
  if (p > 0) op("dropout", "attn.dropout", 2 * scores, e * 2 * scores + scores);
  op("bmm", "attn.ctx", 2 * b * s * s * h / t, e * (b * heads * s * s + 2 * tokens * h / t));
  product(s, model.head_dim(), s, b * heads);  // P V per head
  plan.core_end = static_cast<int>(plan.forward.size());
  op("linear", "attn.out", 2 * tokens * h * h / t, e * (tokens * h / t + h * h / t + tokens * h));
  product(tokens, h, h / t);
  tp_point(false, "tp:attn");
  residual("attn", "attn.out_bias");
  op("layernorm", "mlp.norm", 8 * tokens * h / sp, e * 2 * tokens * h / sp);
  tp_point(true, "tp:mlp.in");
  op("linear", "mlp.up", 2 * tokens * h * f * k / t, e * (tokens * h + h * f * k / t + tokens * f * k / t));
  product(tokens, f * k / t, h);
  // The input projection's bias (column-parallel, skip_bias_add) with the activation: one
  // kernel (bias_gelu / bias_swiglu) with bias_activation_fusion, which Megatron has for GeLU
  // and SwiGLU; a bias add and the activation otherwise.
  const double act_flops = model.activation == Activation::kRelu ? 1 : model.activation == Activation::kGelu ? 8 : 6;
  const std::string act(activation_name(model.activation));
  const bool fused_bias = model.biases && par.bias_activation_fusion && model.activation != Activation::kRelu;
  if (model.biases && !fused_bias)
    op("bias_add", "mlp.up_bias", k * tokens * f / t, e * (2 * k * tokens * f / t + k * f / t));
  op(fused_bias ? "bias_" + act : act, "mlp.act", (act_flops + (fused_bias ? k : 0)) * tokens * f / t,
     e * (tokens * f * k / t + tokens * f / t + (fused_bias ? k * f / t : 0)));
  op("linear", "mlp.down", 2 * tokens * f * h / t, e * (tokens * f / t + f * h / t + tokens * h));
  product(tokens, h, f / t);
  tp_point(false, "tp:mlp");
  residual("mlp", "mlp.down_bias");

  // Backward: each operator's gradient costs twice its forward (input and weight gradients
  // for the matrix products, the same factor for the element-wise ones), in reverse order.
  for (auto it = plan.forward.rbegin(); it != plan.forward.rend(); ++it) {
    plan.backward.push_back({it->name, "bwd:" + it->label, 2 * it->flops, 2 * it->bytes, it->gemm});
    plan.backward.back().gemm.backward = true;  // its data and weight gradients
  }
  plan.tp_bytes = tokens * h * e;
  if (par.tp == 1) plan.tp_points.clear();
  return plan;
}

MessageSizes message_sizes(const ModelSpec& model, const Parallelism& par) {
  MessageSizes m;
  const double e = dtype_bytes(model.dtype);
  const double tokens = static_cast<double>(par.micro_batch_size) * sequence_length(model, par);
  m.tp = par.tp > 1 ? tokens * model.hidden * e : 0;
  m.pp = par.pp > 1 ? tokens * model.hidden * e / (par.sp ? par.tp : 1) : 0;
  m.grad_dtype = grad_dtype_of(model);
  double params = 0;
  for (int stage = 0; stage < par.pp; ++stage) params = std::max(params, stage_params_per_rank(model, par, stage));
  m.dp_grads = par.dp > 1 ? params * dtype_bytes(m.grad_dtype) : 0;
  m.zero3_layer = par.zero == 3 ? layer_params_per_rank(model, par.tp) * e : 0;
  return m;
}

double model_state_bytes(double params, int zero, int dp) {
  // Mixed-precision Adam: 2 (16-bit weights) + 2 (16-bit gradients) + 12 (fp32 master
  // weights, momentum, variance) bytes per parameter; ZeRO shards the last 12 (stage 1),
  // also the gradients (stage 2) and also the weights (stage 3) over the DP group.
  const double n = dp;
  switch (zero) {
    case 1:
      return params * (4 + 12 / n);
    case 2:
      return params * (2 + 14 / n);
    case 3:
      return params * 16 / n;
    default:
      return params * 16;
  }
}

double activation_bytes_per_layer(const ModelSpec& model, const Parallelism& par) {
  const double s = sequence_length(model, par);
  const double b = par.micro_batch_size;
  const double h = model.hidden;
  const double a = model.heads;
  const double t = par.tp;
  const double sbh = s * b * h;
  // The attention core's share: 5 a s / h (softmax output 2, its dropout mask 1, dropout
  // output 2, per score); selective recomputation keeps none of it.
  const double core = par.recompute == Recompute::kNone ? 5 * a * s / h : 0.0;
  switch (par.recompute) {
    case Recompute::kFull:
      return 2 * sbh / (par.sp ? t : 1);
    case Recompute::kNone:
    case Recompute::kSelective:
      break;
  }
  if (par.tp == 1) return sbh * (34 + core);
  if (!par.sp) return sbh * (10 + 24 / t + core / t);
  return sbh * (34 + core) / t;
}

Memory memory_per_accelerator(const ModelSpec& model, const Parallelism& par) {
  Memory best;
  const double per_layer = activation_bytes_per_layer(model, par);
  for (int stage = 0; stage < par.pp; ++stage) {
    Memory m;
    m.stage = stage;
    m.layers = layers_of_stage(model, par, stage);
    m.params_per_rank = stage_params_per_rank(model, par, stage);
    m.model_states = model_state_bytes(m.params_per_rank, par.zero, par.dp);
    m.activations = per_layer * m.layers * micro_batches_in_flight(par, stage);
    if (stage == 0 || m.total() > best.total()) best = m;
  }
  return best;
}

double micro_batches_in_flight(const Parallelism& par, int stage) {
  const double m = par.micro_batches;
  switch (par.schedule) {
    case PipelineSchedule::kGpipe:
      return m;
    case PipelineSchedule::k1F1B:
      return std::min<double>(par.pp - stage, m);
    case PipelineSchedule::kInterleaved: {
      if (par.micro_batches == par.pp) return m;  // Megatron runs every forward first then
      const double v = par.virtual_stages;
      return std::min(m, ((par.pp - stage - 1) * 2.0 + (v - 1) * par.pp + 1) / v);
    }
  }
  return m;
}

void check_ranks_fit(const Parallelism& par, const std::string& platform, int nodes, int per_node) {
  const double accelerators = static_cast<double>(nodes) * per_node;
  if (par.world() <= accelerators) return;
  throw InputError(
      "command line", 0, "--dp",
      fmt::format("TP {} x PP {} x DP {} = {} ranks, but platform \"{}\" has {} accelerators ({} nodes x {}), "
                  "one rank each; --set nodes={} gives it enough",
                  par.tp, par.pp, par.dp, par.world(), platform, accelerators, nodes, per_node,
                  (par.world() + per_node - 1) / per_node));
}

MemoryFit check_memory(const ModelSpec& model, const Parallelism& par, double capacity_bytes,
                       const std::string& accelerator) {
  MemoryFit fit;
  fit.memory = memory_per_accelerator(model, par);
  fit.fits = fit.memory.total() <= capacity_bytes;
  if (fit.fits) return fit;
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  // The changes a user would try first, each alone, then the two that cost no ranks together;
  // those that fit are named with their figure.
  struct Option {
    std::string flags;
    Parallelism par;
  };
  std::vector<Option> options;
  auto option = [&](std::string flags, auto change) {
    Parallelism p = par;
    change(p);
    options.push_back({std::move(flags), p});
  };
  if (par.recompute != Recompute::kSelective && par.recompute != Recompute::kFull) {
    option("--recompute selective", [](Parallelism& p) { p.recompute = Recompute::kSelective; });
  }
  if (par.recompute != Recompute::kFull)
    option("--recompute full", [](Parallelism& p) { p.recompute = Recompute::kFull; });
  if (par.zero == 0 && par.dp > 1) option("--distributed-optimizer", [](Parallelism& p) { p.zero = 1; });
  if (par.zero == 0 && par.dp > 1 && par.recompute != Recompute::kFull) {
    option("--recompute full --distributed-optimizer", [](Parallelism& p) {
      p.recompute = Recompute::kFull;
      p.zero = 1;
    });
  }
  if (par.tp > 1 && !par.sp) option("--sp", [](Parallelism& p) { p.sp = true; });
  option(fmt::format("--pp {}", 2 * par.pp), [](Parallelism& p) {
    p.pp *= 2;
    p.first_stage_layers = p.last_stage_layers = 0;
  });
  option(fmt::format("--tp {}", 2 * par.tp), [](Parallelism& p) { p.tp *= 2; });
  std::string fitting;
  for (const Option& o : options) {
    try {
      check_parallelism(model, o.par);
    } catch (const InputError&) {
      continue;  // a split the model does not allow is no advice
    }
    const double total = memory_per_accelerator(model, o.par).total();
    if (total <= capacity_bytes)
      fitting += fmt::format("{}{} ({:.1f} GiB)", fitting.empty() ? "" : ", ", o.flags, total / kGiB);
  }
  const Memory& m = fit.memory;
  fit.message = fmt::format(
      "needs {:.1f} GiB per accelerator (stage {} of {} layers: model states {:.1f}, activations {:.1f}) on {} with {:.4g} "
      "GiB: {}",
      m.total() / kGiB, m.stage, m.layers, m.model_states / kGiB, m.activations / kGiB, accelerator,
      capacity_bytes / kGiB,
      fitting.empty()
          ? std::string("none of --recompute full, --distributed-optimizer, --sp, twice the --pp or the --tp "
                        "fits alone; spread the model over more accelerators")
          : "these fit: " + fitting);
  return fit;
}

}  // namespace ccsim::synth
