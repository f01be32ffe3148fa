// The trace one iteration of a Megatron job produces (Builder): per pipeline stage one program
// of compute operators, tensor-parallel collectives, the pipeline schedule's sends and
// receives (in the order of pipeline_order.cpp), and the data-parallel collectives; the
// formulas are in megatron_model.cpp.
#include "synth/megatron.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/index.hpp"
#include "synth/pipeline_order.hpp"
#include "synth/stage_program.hpp"

namespace ccsim::synth {
namespace {

/// Rounds a collective's buffer up to a multiple of `parts` elements of `e` bytes (the
/// padding real implementations add so that every rank gets an equal share).
std::uint64_t padded(double bytes, int parts, int e) {
  const double unit = static_cast<double>(parts) * e;
  return static_cast<std::uint64_t>(std::ceil(bytes / unit) * unit);
}

/// Megatron's groups of the job, in rank order rank = p * dp * tp + d * tp + t: tensor groups
/// tp{p}_{d}, data groups dp{p}_{t}, pipeline groups pp{d}_{t}, each kind only where it has
/// more than one rank.
void add_megatron_groups(const Parallelism& par, trace::Trace& trace) {
  auto rank_of = [&](int p, int d, int t) { return p * par.dp * par.tp + d * par.tp + t; };
  auto add = [&](std::string name, trace::GroupKind kind, std::vector<int> ranks) {
    trace::Group g;
    g.name = std::move(name);
    g.kind = kind;
    g.ranks = std::move(ranks);
    trace.groups.push_back(std::move(g));
  };
  if (par.tp > 1) {
    for (int p = 0; p < par.pp; ++p) {
      for (int d = 0; d < par.dp; ++d) {
        std::vector<int> ranks;
        for (int t = 0; t < par.tp; ++t) ranks.push_back(rank_of(p, d, t));
        add(fmt::format("tp{}_{}", p, d), trace::GroupKind::kTensor, std::move(ranks));
      }
    }
  }
  if (par.dp > 1) {
    for (int p = 0; p < par.pp; ++p) {
      for (int t = 0; t < par.tp; ++t) {
        std::vector<int> ranks;
        for (int d = 0; d < par.dp; ++d) ranks.push_back(rank_of(p, d, t));
        add(fmt::format("dp{}_{}", p, t), trace::GroupKind::kData, std::move(ranks));
      }
    }
  }
  if (par.pp > 1) {
    for (int d = 0; d < par.dp; ++d) {
      for (int t = 0; t < par.tp; ++t) {
        std::vector<int> ranks;
        for (int p = 0; p < par.pp; ++p) ranks.push_back(rank_of(p, d, t));
        add(fmt::format("pp{}_{}", d, t), trace::GroupKind::kPipeline, std::move(ranks));
      }
    }
  }
}

/// Megatron's gradient buckets (Parallelism::overlap_grad_reduce). Gradients become ready
/// layer by layer during the backward of the iteration's last micro-batch; a bucket is reduced
/// over the data-parallel group (all_reduce, or reduce_scatter with ZeRO 1/2) on the gradient
/// stream, after the operator that made its last gradients, once it holds bucket() parameters
/// or the backward ends. The stage's optimizer waits for the last bucket, and ZeRO 1/2 gather
/// the parameters back bucket by bucket (sizes()).
class GradientBuckets {
 public:
  GradientBuckets(const Parallelism& par, DType grad_dtype) : par_(par), grad_dtype_(grad_dtype) {}

  /// Whether the job reduces its gradients in buckets (not with ZeRO 3, nor with one replica).
  bool on() const { return par_.overlap_grad_reduce && par_.dp > 1 && par_.zero <= 2; }
  /// A new stage: no gradients pending, no buckets.
  void start() {
    pending_params_ = 0;
    buckets_.clear();
  }
  /// The gradients of `params` (per rank) are ready once the last operator of `program` so far
  /// ends; `flush`: the backward ends, and what is pending forms the last bucket.
  void ready(double params, bool flush, StageProgram& program) {
    pending_params_ += params;
    if (pending_params_ <= 0 || (!flush && pending_params_ < par_.bucket())) return;
    const int ge = dtype_bytes(grad_dtype_);
    program.then_on(kGradStream, {program.last_op()});
    program.collective(par_.zero == 0 ? trace::OpKind::kAllReduce : trace::OpKind::kReduceScatter,
                       trace::GroupKind::kData, padded(pending_params_ * ge, par_.dp, ge), grad_dtype_, "dp:grads");
    last_bucket_ = program.last_op();
    buckets_.push_back(pending_params_);
    pending_params_ = 0;
  }
  /// The last bucket's collective.
  std::uint32_t last() const { return last_bucket_; }
  /// Parameters per rank of each bucket of the stage so far.
  const std::vector<double>& sizes() const { return buckets_; }

 private:
  const Parallelism& par_;
  DType grad_dtype_;
  double pending_params_ = 0;      ///< gradients ready but not in a bucket yet
  std::uint32_t last_bucket_ = 0;  ///< the last bucket's collective
  std::vector<double> buckets_;    ///< parameters per rank of each bucket so far
};

/// The operators of one model chunk's forward or backward pass on one micro-batch, in
/// Megatron-LM's order: the embedding on the first virtual stage; each layer's operators
/// (plan_layer()) with its tensor-parallel collectives, ZeRO 3's gathers of its parameters and
/// reduce-scatters of its gradients, and its recomputation; the head and the loss on the last
/// virtual stage. The backward of the last micro-batch hands its gradients to the buckets.
class ChunkPasses {
 public:
  ChunkPasses(const ModelSpec& model, const Parallelism& par, const MessageSizes& sizes, StageProgram& program,
              GradientBuckets& buckets)
      : model_(model), par_(par), sizes_(sizes), program_(program), buckets_(buckets), plan_(plan_layer(model, par)) {}

  /// A new stage of `layers` layers per model chunk.
  void start(int layers) {
    layers_ = layers;
    backward_calls_.assign(static_cast<std::size_t>(par_.virtual_stages), 0);
  }

  void forward(const VirtualStage& chunk) {
    const double e = dtype_bytes(model_.dtype);
    const double tokens = static_cast<double>(par_.micro_batch_size) * sequence_length(model_, par_);
    const double h = model_.hidden;
    const double v = model_.vocab;
    const double t = par_.tp;
    if (chunk.first()) program_.compute("embedding", "embed", tokens * h, e * 2 * tokens * h);
    for (int layer = 0; layer < layers_; ++layer) {
      if (par_.zero == 3 && par_.dp > 1) zero3_layer(trace::OpKind::kAllGather, "zero3:params");
      layer_forward(0, static_cast<int>(plan_.forward.size()), "");
    }
    if (chunk.last()) {
      program_.compute("linear", "lm_head", 2 * tokens * h * v / t, e * (tokens * h + v * h / t + tokens * v / t),
                       logits_shape(false));
      program_.compute("cross_entropy", "loss", 5 * tokens * v / t, e * 2 * tokens * v / t);
    }
  }

  void backward(const VirtualStage& chunk) {
    // Buckets form during the backward of the iteration's last micro-batch (gradients
    // accumulate over the others), layer by layer from the last one; each model chunk's
    // gradients in its own buckets (Megatron: one DDP buffer per chunk).
    const bool buckets = buckets_.on() && ++at(backward_calls_, chunk.chunk) == par_.micro_batches;
    const double e = dtype_bytes(model_.dtype);
    const double tokens = static_cast<double>(par_.micro_batch_size) * sequence_length(model_, par_);
    const double h = model_.hidden;
    const double v = model_.vocab;
    const double t = par_.tp;
    if (chunk.last()) {
      program_.compute("cross_entropy", "bwd:loss", 5 * tokens * v / t, e * 2 * tokens * v / t);
      program_.compute("linear", "bwd:lm_head", 4 * tokens * h * v / t,
                       2 * e * (tokens * h + v * h / t + tokens * v / t), logits_shape(true));
      if (buckets) buckets_.ready(last_stage_extra_params_per_rank(model_, par_), false, program_);
    }
    for (int layer = 0; layer < layers_; ++layer) {
      if (par_.zero == 3 && par_.dp > 1) zero3_layer(trace::OpKind::kAllGather, "zero3:params");
      layer_backward();
      if (par_.zero == 3 && par_.dp > 1) zero3_layer(trace::OpKind::kReduceScatter, "zero3:grads");
      if (buckets) buckets_.ready(layer_params_per_rank(model_, par_.tp), false, program_);
    }
    if (chunk.first()) program_.compute("embedding", "bwd:embed", tokens * h, e * 2 * tokens * h);
    if (buckets) buckets_.ready(chunk.first() ? embedding_params_per_rank(model_, par_.tp) : 0.0, true, program_);
  }

 private:
  /// The logits' product on one TP rank: tokens x vocab / tp x hidden.
  GemmShape logits_shape(bool backward) const {
    const double tokens = static_cast<double>(par_.micro_batch_size) * sequence_length(model_, par_);
    return GemmShape{static_cast<std::uint32_t>(std::llround(tokens)),
                     static_cast<std::uint32_t>(std::llround(static_cast<double>(model_.vocab) / par_.tp)),
                     static_cast<std::uint32_t>(model_.hidden),
                     1,
                     model_.dtype,
                     backward};
  }

  void tp_comm(const LayerPlan::TpPoint& point, bool backward, const std::string& prefix = "") {
    const trace::GroupKind group = trace::GroupKind::kTensor;
    const std::uint64_t bytes = padded(plan_.tp_bytes, par_.tp, dtype_bytes(model_.dtype));
    const std::string label = prefix + (backward ? "bwd:" + point.label : point.label);
    if (!par_.sp) {
      // f: backward all_reduce; g: forward all_reduce.
      if (point.copy_to_tp == backward)
        program_.collective(trace::OpKind::kAllReduce, group, bytes, model_.dtype, label);
      return;
    }
    // Sequence parallel: f is all_gather forward / reduce_scatter backward, g the converse.
    const bool gather = point.copy_to_tp != backward;
    program_.collective(gather ? trace::OpKind::kAllGather : trace::OpKind::kReduceScatter, group, bytes, model_.dtype,
                        label);
  }

  void zero3_layer(trace::OpKind kind, const std::string& label) {
    const DType dtype = kind == trace::OpKind::kAllGather ? model_.dtype : sizes_.grad_dtype;
    const double bytes = layer_params_per_rank(model_, par_.tp) * dtype_bytes(dtype);
    program_.collective(kind, trace::GroupKind::kData, padded(bytes, par_.dp, dtype_bytes(dtype)), dtype, label);
  }

  /// The forward operators [begin, end) of one layer with the TP collectives among them (a
  /// collective at `end` too when the whole layer runs), their labels prefixed with `prefix`:
  /// "" for the forward, "recompute:" for recomputation, which runs the same operators again.
  void layer_forward(int begin, int end, const std::string& prefix) {
    const int n = static_cast<int>(plan_.forward.size());
    for (int pos = begin; pos <= end; ++pos) {
      if (pos == end && end < n) break;
      for (const LayerPlan::TpPoint& p : plan_.tp_points) {
        if (p.before_op == pos) tp_comm(p, false, prefix);
      }
      if (pos < end) {
        const ComputeCost& c = at(plan_.forward, pos);
        program_.compute(c.name, prefix + c.label, c.flops, c.bytes, c.gemm);
      }
    }
  }

  /// One layer's backward operators with the TP collectives among them, and its recomputation.
  void layer_backward() {
    const int n = static_cast<int>(plan_.forward.size());
    // Full recomputation: the layer's forward again from its saved input (its TP collectives
    // included), then its backward (Megatron's checkpointed layer).
    if (par_.recompute == Recompute::kFull) layer_forward(0, n, "recompute:");
    for (int pos = n; pos >= 0; --pos) {
      for (auto it = plan_.tp_points.rbegin(); it != plan_.tp_points.rend(); ++it) {
        if (it->before_op == pos) tp_comm(*it, true);
      }
      // Selective recomputation: the attention core's forward again when the backward reaches
      // it (Megatron checkpoints the core attention alone), before its backward.
      if (par_.recompute == Recompute::kSelective && pos == plan_.core_end) {
        layer_forward(plan_.core_begin, plan_.core_end, "recompute:");
      }
      if (pos > 0) {
        const ComputeCost& c = at(plan_.backward, n - pos);
        program_.compute(c.name, c.label, c.flops, c.bytes, c.gemm);
      }
    }
  }

  const ModelSpec& model_;
  const Parallelism& par_;
  const MessageSizes& sizes_;
  StageProgram& program_;
  GradientBuckets& buckets_;
  LayerPlan plan_;
  int layers_ = 0;                   ///< of one model chunk
  std::vector<int> backward_calls_;  ///< backward passes of each model chunk so far
};

/// The trace of a Megatron job: its groups, and per pipeline stage one program, the stage's
/// pipeline schedule (pipeline_order()) written step by step: each pass's operators
/// (ChunkPasses), each message as a send or receive with the pipeline peer, then the
/// data-parallel gradients and the optimizer.
class Builder : public PipelineSteps {
 public:
  Builder(const ModelSpec& model, const Parallelism& par, trace::Trace& trace)
      : model_(model),
        par_(par),
        trace_(trace),
        sizes_(message_sizes(model, par)),
        program_(trace),
        buckets_(par, sizes_.grad_dtype),
        passes_(model, par, sizes_, program_, buckets_) {}

  /// One program per pipeline stage, shared by the stage's data-parallel replicas and
  /// tensor-parallel peers: their operators differ only in their groups and pipeline peers,
  /// which the program names relative to the rank ("@tensor", "@pipeline+1").
  void build() {
    add_megatron_groups(par_, trace_);
    trace_.index_groups();
    trace_.programs.assign(static_cast<std::size_t>(par_.pp), {});
    for (int p = 0; p < par_.pp; ++p) {
      at(trace_.programs, p).field = fmt::format("programs[{}].ops", p);
      build_stage(p);
    }
    for (int r = 0; r < par_.world(); ++r) at(trace_.program_of, r) = r / (par_.dp * par_.tp);
  }

  void forward(int chunk, int /*mb*/) override { passes_.forward(virtual_stage(chunk)); }
  void backward(int chunk, int /*mb*/) override { passes_.backward(virtual_stage(chunk)); }

  /// A lone message blocks the main stream (send_forward, recv_backward, ...).
  void transfer(const PipelineMessage& m) override { message(m); }

  /// One call of Megatron's p2p_communication._communicate (batch_isend_irecv, then a wait for
  /// all): its messages posted together after the last computation, the first receive on the
  /// main stream, a second on a stream of its own, the sends on streams of their own by
  /// direction, each after that computation; the next operator of the main stream waits for
  /// all. Blocking operations in a row would serialise the two messages, and deadlock on the
  /// interleaved schedule's wrap from the last stage to the first.
  void call(const std::vector<PipelineMessage>& messages) override {
    const std::uint32_t computed = program_.last_main_op();
    std::vector<std::uint32_t> posted;
    bool main_taken = false;
    for (const PipelineMessage& m : messages) {
      if (m.send) continue;
      const bool on_main = !main_taken;
      main_taken = true;
      if (!on_main) program_.then_on(kGradRecvStream, {computed});
      message(m);
      if (!on_main) posted.push_back(program_.last_op());
    }
    for (const PipelineMessage& m : messages) {
      if (!m.send) continue;
      program_.then_on(m.forward ? kForwardSendStream : kBackwardSendStream, {computed});
      message(m);
      posted.push_back(program_.last_op());
    }
    program_.join(std::move(posted));
  }

  /// A call posted without its wait (--overlap-p2p): every message on a stream of its own by
  /// kind (activations received on 5, gradients on 4, sent on 2 and 3), each after the last
  /// computation; wait() makes the next operator of the main stream wait for them.
  int post(const std::vector<PipelineMessage>& messages) override {
    if (messages.empty()) return -1;
    const std::uint32_t computed = program_.last_main_op();
    std::vector<std::uint32_t> posted;
    for (const PipelineMessage& m : messages) {
      const std::uint8_t stream = m.send ? (m.forward ? kForwardSendStream : kBackwardSendStream)
                                         : (m.forward ? kActRecvStream : kGradRecvStream);
      program_.then_on(stream, {computed});
      message(m);
      posted.push_back(program_.last_op());
    }
    posts_.push_back(std::move(posted));
    return static_cast<int>(posts_.size() - 1);
  }
  void wait(int handle) override {
    if (handle >= 0) program_.wait_for(at(posts_, handle));
  }

 private:
  VirtualStage virtual_stage(int chunk) const { return VirtualStage{par_.pp, par_.virtual_stages, stage_, chunk}; }

  /// The send or receive of `m` with the rank of the previous or next virtual stage, at its
  /// offset in the pipeline group (the first stage's previous is the last stage, with chunks:
  /// @pipeline+(pp-1)), tagged with the micro-batch and, with chunks, the virtual stage it
  /// goes into.
  void message(const PipelineMessage& m) {
    const int prev = stage_ > 0 ? -1 : par_.pp - 1;
    const int next = stage_ < par_.pp - 1 ? 1 : -(par_.pp - 1);
    const char* what = m.forward ? "act" : "grad";
    const int to = virtual_stage(m.chunk).index() + (m.send ? (m.forward ? 1 : -1) : 0);
    const std::string tag =
        par_.virtual_stages == 1 ? fmt::format("{}{}", what, m.mb) : fmt::format("{}{}.{}", what, m.mb, to);
    program_.p2p(m.send ? trace::OpKind::kSend : trace::OpKind::kRecv, m.send == m.forward ? next : prev, tag,
                 m.forward ? "pp:act" : "pp:grad", static_cast<std::uint64_t>(sizes_.pp), model_.dtype);
  }

  void build_stage(int stage) {
    stage_ = stage;
    program_.start(at(trace_.programs, stage));
    posts_.clear();
    passes_.start(layers_of_stage(model_, par_, stage) / par_.virtual_stages);
    buckets_.start();
    pipeline_order(par_, stage, *this);
    gradients_and_optimizer();
  }

  void gradients_and_optimizer() {
    const double params = stage_params_per_rank(model_, par_, stage_);
    const int ge = dtype_bytes(sizes_.grad_dtype);
    if (par_.dp > 1) {
      const trace::GroupKind group = trace::GroupKind::kData;
      const std::uint64_t grads = padded(params * ge, par_.dp, ge);
      if (buckets_.on()) {
        // reduced in buckets during the backward: the optimizer waits for the last
        program_.then_on(0, {buckets_.last()});
      } else if (par_.zero == 0) {
        program_.collective(trace::OpKind::kAllReduce, group, grads, sizes_.grad_dtype, "dp:grads");
      } else if (par_.zero <= 2) {
        program_.collective(trace::OpKind::kReduceScatter, group, grads, sizes_.grad_dtype, "dp:grads");
      }
    }
    const double shard = par_.zero >= 1 ? params / par_.dp : params;
    // Adam: read gradient, master weight, momentum, variance; write the last three and the
    // 16-bit weight: about 28 bytes and 10 FLOPs per parameter.
    program_.compute("optimizer", "adam", 10 * shard, 28 * shard);
    if (par_.dp > 1 && (par_.zero == 1 || par_.zero == 2)) {
      // Each rank updated its shard: the parameters are all-gathered, bucket by bucket as they
      // were reduce-scattered (Megatron's distributed optimizer gathers each bucket's
      // parameters), or in one collective.
      const int e = dtype_bytes(model_.dtype);
      const std::vector<double> gathers = buckets_.on() ? buckets_.sizes() : std::vector<double>{params};
      for (const double bucket : gathers) {
        if (buckets_.on()) program_.then_on(kGradStream, {program_.last_op()});  // the data group's stream
        program_.collective(trace::OpKind::kAllGather, trace::GroupKind::kData, padded(bucket * e, par_.dp, e),
                            model_.dtype, "dp:params");
      }
    }
  }

  const ModelSpec& model_;
  const Parallelism& par_;
  trace::Trace& trace_;
  MessageSizes sizes_;
  StageProgram program_;
  GradientBuckets buckets_;
  ChunkPasses passes_;
  int stage_ = 0;
  std::vector<std::vector<std::uint32_t>> posts_;  ///< per post() of the stage: its operators
};

}  // namespace

std::string format_stage_layers(const std::vector<int>& layers) {
  std::string out;
  for (std::size_t i = 0; i < layers.size();) {
    std::size_t j = i;
    while (j < layers.size() && layers[j] == layers[i]) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ", ", layers[i]);
    if (j - i > 1) out += fmt::format(" x {}", j - i);
    i = j;
  }
  return out;
}

trace::Trace synthesize(const ModelSpec& model, const Parallelism& par, const std::string& platform) {
  check_parallelism(model, par);
  trace::Trace trace = empty_iteration(par, platform);
  trace.source = "ccsim trace synth";
  trace.name = fmt::format("{}-tp{}-pp{}-dp{}{}", model.name, par.tp, par.pp, par.dp, par.sp ? "-sp" : "");
  trace.description = fmt::format(
      "synthesized by ccsim trace synth: {} ({}), TP {} PP {} DP {}{}, {} micro-batches of {} x {} tokens, {} schedule, "
      "ZeRO {}{}{}{}{}; FLOPs and bytes from the Megatron formulas (src/synth/megatron.hpp), no measured durations",
      model.name, model.source, par.tp, par.pp, par.dp, par.sp ? " with sequence parallelism" : "", par.micro_batches,
      par.micro_batch_size, sequence_length(model, par),
      par.schedule == PipelineSchedule::kGpipe ? std::string("GPipe")
      : par.schedule == PipelineSchedule::k1F1B
          ? std::string("1F1B")
          : fmt::format("interleaved 1F1B ({} model chunks per rank{})", par.virtual_stages,
                        par.overlap_p2p ? ", messages overlapping compute" : ""),
      par.zero, par.zero == 1 ? " (Megatron's distributed optimizer)" : "",
      par.overlap_grad_reduce && par.dp > 1
          ? fmt::format(", gradients reduced in buckets of {:.4g} M parameters during the last backward",
                        par.bucket() / 1e6)
          : "",
      par.recompute == Recompute::kNone ? std::string()
                                        : fmt::format(", {} recomputation", recompute_name(par.recompute)),
      model.layers % par.pp != 0 || par.first_stage_layers > 0 || par.last_stage_layers > 0
          ? fmt::format(", layers per stage {}", format_stage_layers(stage_layers(model, par)))
          : "");
  // What one iteration computes, for tokens/s and model FLOPs utilization (report/summary.hpp):
  // the model FLOPs as Megatron-LM counts them, forward and backward (3 x forward) with no
  // recomputation; for GPT (MHA, GeLU MLP of 4h) 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
  trace::Workload workload;
  const double s = sequence_length(model, par), h = model.hidden, l = model.layers, v = model.vocab;
  workload.global_batch = static_cast<std::int64_t>(par.micro_batches) * par.micro_batch_size * par.dp;
  workload.sequence_length = static_cast<std::int64_t>(s);
  const double kv = static_cast<double>(model.kv_heads) * model.head_dim();
  const double mlp = (model.activation == Activation::kSwiglu ? 6.0 : 4.0) * h * model.ffn;
  const double layer_forward_per_token = 2 * h * (h + 2 * kv) + 2 * h * h + 4 * s * h + mlp;
  workload.model_flops = static_cast<double>(workload.global_batch) * s * 3 * (l * layer_forward_per_token + 2 * h * v);
  workload.model_flops_source =
      "Megatron-LM's count: forward and backward (3 x forward), no recomputation; for GPT "
      "72 B s l h^2 (1 + s/(6h) + V/(12 l h)) (Korthikanti et al. 2022)";
  trace.workload = workload;
  Builder(model, par, trace).build();
  return trace;
}

trace::Trace empty_iteration(const Parallelism& par, const std::string& platform) {
  trace::Trace trace;
  trace.platform = platform;
  trace.placement = "tp,dp,pp";
  trace.iterations = 1;
  trace.one_program_per_rank(par.world());
  return trace;
}

}  // namespace ccsim::synth
