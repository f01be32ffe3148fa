// The trace one iteration of a Megatron job produces (Builder): per pipeline stage one program
// of compute operators, tensor-parallel collectives, the pipeline schedule's sends and
// receives, and the data-parallel collectives; the formulas are in megatron_model.cpp.
#include "synth/megatron.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/index.hpp"

namespace ccsim::synth {
namespace {

/// Rounds a collective's buffer up to a multiple of `parts` elements of `e` bytes (the
/// padding real implementations add so that every rank gets an equal share).
std::uint64_t padded(double bytes, int parts, int e) {
  const double unit = static_cast<double>(parts) * e;
  return static_cast<std::uint64_t>(std::ceil(bytes / unit) * unit);
}

class Builder {
 public:
  Builder(const ModelSpec& model, const Parallelism& par, trace::Trace& trace)
      : model_(model), par_(par), trace_(trace), plan_(plan_layer(model, par)), sizes_(message_sizes(model, par)) {}

  /// One program per pipeline stage, shared by the stage's data-parallel replicas and
  /// tensor-parallel peers: their operators differ only in their groups and pipeline peers,
  /// which the program names relative to the rank ("@tensor", "@pipeline+1").
  void build() {
    make_groups();
    trace_.index_groups();
    trace_.programs.assign(static_cast<std::size_t>(par_.pp), {});
    for (int p = 0; p < par_.pp; ++p) {
      at(trace_.programs, p).field = fmt::format("programs[{}].ops", p);
      build_stage(p);
    }
    for (int r = 0; r < par_.world(); ++r) at(trace_.program_of, r) = r / (par_.dp * par_.tp);
  }

 private:
  int rank_of(int p, int d, int t) const { return p * par_.dp * par_.tp + d * par_.tp + t; }

  void make_groups() {
    auto add = [&](std::string name, trace::GroupKind kind, std::vector<int> ranks) {
      trace::Group g;
      g.name = std::move(name);
      g.kind = kind;
      g.ranks = std::move(ranks);
      trace_.groups.push_back(std::move(g));
    };
    if (par_.tp > 1) {
      for (int p = 0; p < par_.pp; ++p) {
        for (int d = 0; d < par_.dp; ++d) {
          std::vector<int> ranks;
          for (int t = 0; t < par_.tp; ++t) ranks.push_back(rank_of(p, d, t));
          add(fmt::format("tp{}_{}", p, d), trace::GroupKind::kTensor, std::move(ranks));
        }
      }
    }
    if (par_.dp > 1) {
      for (int p = 0; p < par_.pp; ++p) {
        for (int t = 0; t < par_.tp; ++t) {
          std::vector<int> ranks;
          for (int d = 0; d < par_.dp; ++d) ranks.push_back(rank_of(p, d, t));
          add(fmt::format("dp{}_{}", p, t), trace::GroupKind::kData, std::move(ranks));
        }
      }
    }
    if (par_.pp > 1) {
      for (int d = 0; d < par_.dp; ++d) {
        for (int t = 0; t < par_.tp; ++t) {
          std::vector<int> ranks;
          for (int p = 0; p < par_.pp; ++p) ranks.push_back(rank_of(p, d, t));
          add(fmt::format("pp{}_{}", d, t), trace::GroupKind::kPipeline, std::move(ranks));
        }
      }
    }
  }

  // --- operators of the current rank ---
  void compute(const std::string& name, const std::string& label, double flops, double bytes,
               const GemmShape& gemm = GemmShape{0, 0, 0, 1}) {
    trace::Op op;
    op.kind = trace::OpKind::kCompute;
    op.name = trace_.names.intern(name);
    op.label = trace_.names.intern(label);
    op.flops = flops;
    op.bytes = static_cast<std::uint64_t>(std::llround(bytes));
    if (gemm.m > 0) op.gemm = trace_.intern_gemm(gemm);
    add(op);
  }
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
  /// A collective on the rank's own group of `group` kind.
  void collective(trace::OpKind kind, trace::GroupKind group, std::uint64_t bytes, DType dtype,
                  const std::string& label) {
    trace::Op op;
    op.kind = kind;
    op.name = trace_.names.intern(trace::op_kind_name(kind));
    op.label = trace_.names.intern(label);
    op.relative = trace::kGroupByKind;
    op.group = static_cast<std::int32_t>(group);
    op.bytes = bytes;
    op.dtype = dtype;
    add(op);
  }
  /// A transfer with the rank `offset` stages away in its pipeline group.
  void p2p(trace::OpKind kind, int offset, const std::string& tag, const std::string& label) {
    trace::Op op;
    op.kind = kind;
    op.name = trace_.names.intern(trace::op_kind_name(kind));
    op.label = trace_.names.intern(label);
    op.tag = trace_.names.intern(tag);
    op.relative = trace::kPeerInGroup;
    op.peer_kind = trace::GroupKind::kPipeline;
    op.peer = offset;
    op.bytes = static_cast<std::uint64_t>(sizes_.pp);
    op.dtype = model_.dtype;
    add(op);
  }
  /// Appends `op` to the stage's program: on `stream_`, after `after_` (both reset after use).
  void add(trace::Op op) {
    op.stream = stream_;
    if (stream_ == 0 && !join_.empty()) {  // the main stream waits for the last exchange
      after_.insert(after_.end(), join_.begin(), join_.end());
      join_.clear();
    }
    program_->add(op, after_);
    if (stream_ == 0) last_main_op_ = last_op();
    stream_ = 0;
    after_.clear();
  }
  std::uint32_t last_op() const { return static_cast<std::uint32_t>(program_->ops.size() - 1); }

  // --- streams besides the main one ---
  static constexpr std::uint8_t kGradStream = 1;          ///< gradient buckets
  static constexpr std::uint8_t kForwardSendStream = 2;   ///< interleaved: activations to the next chunk
  static constexpr std::uint8_t kBackwardSendStream = 3;  ///< interleaved: gradients to the previous chunk
  static constexpr std::uint8_t kGradRecvStream = 4;      ///< interleaved: gradients received with activations

  // --- gradient buckets (Parallelism::overlap_grad_reduce) ---
  bool bucketing() const { return par_.overlap_grad_reduce && par_.dp > 1 && par_.zero <= 2; }
  /// The gradients of `params` (per rank) are ready once the last operator so far ends: a
  /// bucket is reduced when it holds bucket() parameters, or when `flush` (the backward ends).
  void grads_ready(double params, bool flush) {
    pending_params_ += params;
    if (pending_params_ <= 0 || (!flush && pending_params_ < par_.bucket())) return;
    const int ge = dtype_bytes(sizes_.grad_dtype);
    stream_ = kGradStream;
    after_ = {last_op()};
    collective(par_.zero == 0 ? trace::OpKind::kAllReduce : trace::OpKind::kReduceScatter, trace::GroupKind::kData,
               padded(pending_params_ * ge, par_.dp, ge), sizes_.grad_dtype, "dp:grads");
    last_bucket_ = last_op();
    buckets_.push_back(pending_params_);
    pending_params_ = 0;
  }

  void tp_comm(const LayerPlan::TpPoint& point, bool backward, const std::string& prefix = "") {
    const trace::GroupKind group = trace::GroupKind::kTensor;
    const std::uint64_t bytes = padded(plan_.tp_bytes, par_.tp, dtype_bytes(model_.dtype));
    const std::string label = prefix + (backward ? "bwd:" + point.label : point.label);
    if (!par_.sp) {
      // f: backward all_reduce; g: forward all_reduce.
      if (point.copy_to_tp == backward) collective(trace::OpKind::kAllReduce, group, bytes, model_.dtype, label);
      return;
    }
    // Sequence parallel: f is all_gather forward / reduce_scatter backward, g the converse.
    const bool gather = point.copy_to_tp != backward;
    collective(gather ? trace::OpKind::kAllGather : trace::OpKind::kReduceScatter, group, bytes, model_.dtype, label);
  }

  void zero3_layer(trace::OpKind kind, const std::string& label) {
    const DType dtype = kind == trace::OpKind::kAllGather ? model_.dtype : sizes_.grad_dtype;
    const double bytes = layer_params_per_rank(model_, par_.tp) * dtype_bytes(dtype);
    collective(kind, trace::GroupKind::kData, padded(bytes, par_.dp, dtype_bytes(dtype)), dtype, label);
  }

  void forward(int mb) {
    const double e = dtype_bytes(model_.dtype);
    const double tokens = static_cast<double>(par_.micro_batch_size) * sequence_length(model_, par_);
    const double h = model_.hidden;
    const double v = model_.vocab;
    const double t = par_.tp;
    if (first_virtual()) compute("embedding", "embed", tokens * h, e * 2 * tokens * h);
    for (int layer = 0; layer < layers_; ++layer) {
      if (par_.zero == 3 && par_.dp > 1) zero3_layer(trace::OpKind::kAllGather, "zero3:params");
      layer_forward(0, static_cast<int>(plan_.forward.size()), "");
    }
    if (last_virtual()) {
      compute("linear", "lm_head", 2 * tokens * h * v / t, e * (tokens * h + v * h / t + tokens * v / t),
              logits_shape(false));
      compute("cross_entropy", "loss", 5 * tokens * v / t, e * 2 * tokens * v / t);
    }
    (void)mb;
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
        compute(c.name, prefix + c.label, c.flops, c.bytes, c.gemm);
      }
    }
  }

  void backward(int mb) {
    // Buckets form during the backward of the iteration's last micro-batch (gradients
    // accumulate over the others), layer by layer from the last one; each model chunk's
    // gradients in its own buckets (Megatron: one DDP buffer per chunk).
    const bool buckets = bucketing() && ++at(backward_calls_, chunk_) == par_.micro_batches;
    const double e = dtype_bytes(model_.dtype);
    const double tokens = static_cast<double>(par_.micro_batch_size) * sequence_length(model_, par_);
    const double h = model_.hidden;
    const double v = model_.vocab;
    const double t = par_.tp;
    if (last_virtual()) {
      compute("cross_entropy", "bwd:loss", 5 * tokens * v / t, e * 2 * tokens * v / t);
      compute("linear", "bwd:lm_head", 4 * tokens * h * v / t, 2 * e * (tokens * h + v * h / t + tokens * v / t),
              logits_shape(true));
      if (buckets) grads_ready(last_stage_extra_params_per_rank(model_, par_), false);
    }
    for (int layer = 0; layer < layers_; ++layer) {
      if (par_.zero == 3 && par_.dp > 1) zero3_layer(trace::OpKind::kAllGather, "zero3:params");
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
          compute(c.name, c.label, c.flops, c.bytes, c.gemm);
        }
      }
      if (par_.zero == 3 && par_.dp > 1) zero3_layer(trace::OpKind::kReduceScatter, "zero3:grads");
      if (buckets) grads_ready(layer_params_per_rank(model_, par_.tp), false);
    }
    if (first_virtual()) compute("embedding", "bwd:embed", tokens * h, e * 2 * tokens * h);
    if (buckets) grads_ready(first_virtual() ? embedding_params_per_rank(model_, par_.tp) : 0.0, true);
    (void)mb;
  }
  // Pipeline communication (Megatron's p2p_communication). A lone send or receive blocks the
  // main stream (send_forward, recv_backward, ...); Megatron's combined operations
  // (send_forward_recv_backward, send_backward_recv_forward, and the interleaved schedule's
  // calls) post their sends and receives together and wait for all (p2p_call): blocking
  // operations in a row would serialise the two messages, and deadlock on the interleaved
  // schedule's wrap from the last stage to the first. With overlap_p2p the interleaved
  // schedule's sends go on streams of their own (one per direction) after the chunk's last
  // operator and its receives just before the computation that needs them.
  // Model chunk `chunk_` of stage `stage_` is virtual stage chunk_ * pp + stage_ of pp x v.
  int virtual_stage() const { return chunk_ * par_.pp + stage_; }
  bool first_virtual() const { return virtual_stage() == 0; }
  bool last_virtual() const { return virtual_stage() == par_.pp * par_.virtual_stages - 1; }
  /// Offsets in the pipeline group of the previous and next virtual stage's rank (the first
  /// stage's previous is the last stage, with chunks: @pipeline+(pp-1)).
  int prev() const { return stage_ > 0 ? -1 : par_.pp - 1; }
  int next() const { return stage_ < par_.pp - 1 ? 1 : -(par_.pp - 1); }
  /// The tag of the message into virtual stage `to`.
  std::string tag(const char* what, int mb, int to) const {
    return par_.virtual_stages == 1 ? fmt::format("{}{}", what, mb) : fmt::format("{}{}.{}", what, mb, to);
  }
  bool interleaved() const { return par_.schedule == PipelineSchedule::kInterleaved; }
  bool first() const { return stage_ == 0; }
  bool last() const { return stage_ == par_.pp - 1; }
  void on_send_stream(std::uint8_t stream) {
    if (!interleaved()) return;  // (exchange() posts the batched schedule's sends)
    stream_ = stream;
    after_ = {last_main_op_};
  }
  void recv_forward(int mb) {
    if (!first_virtual()) p2p(trace::OpKind::kRecv, prev(), tag("act", mb, virtual_stage()), "pp:act");
  }
  void send_forward(int mb) {
    if (last_virtual()) return;
    on_send_stream(kForwardSendStream);
    p2p(trace::OpKind::kSend, next(), tag("act", mb, virtual_stage() + 1), "pp:act");
  }
  void recv_backward(int mb) {
    if (!last_virtual()) p2p(trace::OpKind::kRecv, next(), tag("grad", mb, virtual_stage()), "pp:grad");
  }
  void send_backward(int mb) {
    if (first_virtual()) return;
    on_send_stream(kBackwardSendStream);
    p2p(trace::OpKind::kSend, prev(), tag("grad", mb, virtual_stage() - 1), "pp:grad");
  }

  void build_stage(int stage) {
    stage_ = stage;
    chunk_ = 0;
    layers_ = layers_of_stage(model_, par_, stage) / par_.virtual_stages;
    program_ = &at(trace_.programs, stage);
    backward_calls_.assign(static_cast<std::size_t>(par_.virtual_stages), 0);
    join_.clear();
    pending_params_ = 0;
    buckets_.clear();
    const int m = par_.micro_batches;
    if (interleaved() && par_.overlap_p2p) {
      interleaved_overlapped();
    } else if (interleaved()) {
      interleaved_batched();
    } else if (par_.schedule == PipelineSchedule::kGpipe || par_.pp == 1) {
      for (int mb = 0; mb < m; ++mb) {
        recv_forward(mb);
        forward(mb);
        send_forward(mb);
      }
      for (int mb = m - 1; mb >= 0; --mb) {
        recv_backward(mb);
        backward(mb);
        send_backward(mb);
      }
    } else {
      const int warmup = std::min(par_.pp - stage_ - 1, m);
      const int remaining = m - warmup;
      for (int i = 0; i < warmup; ++i) {
        recv_forward(i);
        forward(i);
        send_forward(i);
      }
      if (remaining > 0) recv_forward(warmup);
      for (int i = 0; i < remaining; ++i) {
        const int fmb = warmup + i;
        forward(fmb);
        // send_forward_recv_backward and send_backward_recv_forward: one call each (none on the
        // last and the first stage respectively, which have no such neighbour).
        if (!last()) p2p_call({{true, true, 0, fmb}, {false, false, 0, i}});
        backward(i);
        if (i == remaining - 1) {
          send_backward(i);
        } else if (!first()) {
          p2p_call({{true, false, 0, i}, {false, true, 0, fmb + 1}});
        }
      }
      for (int i = 0; i < warmup; ++i) {
        const int mb = remaining + i;
        recv_backward(mb);
        backward(mb);
        send_backward(mb);
      }
    }
    gradients_and_optimizer();
  }

  // Megatron's forward_backward_pipelining_with_interleaving: M x v chunk steps; step k runs
  // chunk (k mod pp v) / pp (backward: reversed) on micro-batch (k / pp v) pp + k mod pp;
  // (pp - stage - 1) 2 + (v - 1) pp forward steps of warm-up (all of them when M = pp), then
  // one forward one backward, then the remaining backwards.
  int warmup_steps() const {
    const int pp = par_.pp, v = par_.virtual_stages, total = par_.micro_batches * v;
    return par_.micro_batches == pp ? total : std::min(total, (pp - stage_ - 1) * 2 + (v - 1) * pp);
  }
  /// get_model_chunk_id (Python's modulo: k may be negative).
  int chunk_of_step(int k, bool forward_step) const {
    const int group = par_.pp * par_.virtual_stages;
    const int in_group = (((k % group) + group) % group) / par_.pp;
    return forward_step ? in_group : par_.virtual_stages - 1 - in_group;
  }
  int micro_batch_of_step(int k) const { return (k / (par_.pp * par_.virtual_stages)) * par_.pp + k % par_.pp; }

  /// The schedule's steps in Megatron's order, each step's messages just around it (overlap_p2p).
  void interleaved_overlapped() {
    const int total = par_.micro_batches * par_.virtual_stages;
    const int warmup = warmup_steps();
    auto step = [&](int k, bool forward_step) {
      chunk_ = chunk_of_step(k, forward_step);
      const int mb = micro_batch_of_step(k);
      if (forward_step) {
        recv_forward(mb);
        forward(mb);
        send_forward(mb);
      } else {
        recv_backward(mb);
        backward(mb);
        send_backward(mb);
      }
    };
    for (int k = 0; k < warmup; ++k) step(k, true);
    for (int k = 0; k < total - warmup; ++k) {
      step(k + warmup, true);
      step(k, false);
    }
    for (int k = total - warmup; k < total; ++k) step(k, false);
    chunk_ = 0;
  }

  /// A message of a p2p call: activations (forward) or gradients of micro-batch `mb`, sent
  /// out of or received into model chunk `chunk` of this stage.
  struct Message {
    bool send = false;
    bool forward = true;
    int chunk = 0;
    int mb = 0;
  };
  /// One call of Megatron's p2p_communication._communicate (batch_isend_irecv, then a wait for
  /// all): its messages posted together after the last computation, the first receive on the
  /// main stream, a second on a stream of its own, the sends on streams of their own by
  /// direction, each after that computation; the next operator of the main stream waits for
  /// all (join_).
  void p2p_call(const std::vector<Message>& messages) {
    const std::uint32_t computed = last_main_op_;
    std::vector<std::uint32_t> posted;
    bool main_taken = false;
    for (const Message& m : messages) {
      if (m.send) continue;
      chunk_ = m.chunk;
      const bool on_main = !main_taken;
      main_taken = true;
      if (!on_main) {
        stream_ = kGradRecvStream;
        after_ = {computed};
      }
      p2p(trace::OpKind::kRecv, m.forward ? prev() : next(), tag(m.forward ? "act" : "grad", m.mb, virtual_stage()),
          m.forward ? "pp:act" : "pp:grad");
      if (!on_main) posted.push_back(last_op());
    }
    for (const Message& m : messages) {
      if (!m.send) continue;
      chunk_ = m.chunk;
      stream_ = m.forward ? kForwardSendStream : kBackwardSendStream;
      after_ = {computed};
      p2p(trace::OpKind::kSend, m.forward ? next() : prev(),
          tag(m.forward ? "act" : "grad", m.mb, virtual_stage() + (m.forward ? 1 : -1)),
          m.forward ? "pp:act" : "pp:grad");
      posted.push_back(last_op());
    }
    join_ = std::move(posted);
  }

  /// The interleaved schedule's call: the activations of step `forward_out` to the next virtual
  /// stage, the input gradient of step `backward_out` to the previous one (-1: none, or nothing
  /// to send from the last / first virtual stage), and the next activations of chunk
  /// `recv_forward` and gradients of chunk `recv_backward` (-1: none). A chunk's messages
  /// arrive in micro-batch order: the j-th received is the j-th micro-batch's.
  void exchange(int forward_out, int backward_out, int recv_forward, int recv_backward) {
    std::vector<Message> messages;
    if (recv_forward >= 0) messages.push_back({false, true, recv_forward, at(received_, 2 * recv_forward)++});
    if (recv_backward >= 0) {
      messages.push_back({false, false, recv_backward, at(received_, 2 * recv_backward + 1)++});
    }
    if (forward_out >= 0) {
      chunk_ = chunk_of_step(forward_out, true);
      if (!last_virtual()) messages.push_back({true, true, chunk_, micro_batch_of_step(forward_out)});
    }
    if (backward_out >= 0) {
      chunk_ = chunk_of_step(backward_out, false);
      if (!first_virtual()) messages.push_back({true, false, chunk_, micro_batch_of_step(backward_out)});
    }
    p2p_call(messages);
  }
  void forward_step(int k) {
    chunk_ = chunk_of_step(k, true);
    forward(micro_batch_of_step(k));
  }
  void backward_step(int k) {
    chunk_ = chunk_of_step(k, false);
    backward(micro_batch_of_step(k));
  }

  /// Megatron's default (no --overlap-p2p-communication), call by call: which chunk's tensors
  /// each exchange receives follows its recv_prev / recv_next rules (the first stage is
  /// pp - 1 steps ahead of the last).
  void interleaved_batched() {
    const int pp = par_.pp, v = par_.virtual_stages, total = par_.micro_batches * v;
    const int warmup = warmup_steps(), remaining = total - warmup;
    const bool all_warmup = warmup == total;
    const bool first_stage = stage_ == 0, last_stage = stage_ == pp - 1;
    received_.assign(static_cast<std::size_t>(2 * v), 0);
    if (!first_stage) exchange(-1, -1, 0, -1);  // recv_forward of chunk 0 before the loop
    for (int k = 0; k < warmup; ++k) {
      forward_step(k);
      const int next_chunk = chunk_of_step(k + 1, true);
      const bool recv_prev = !(first_stage && next_chunk == 0) && k != total - 1;
      if (k == warmup - 1 && !all_warmup) {  // send_forward_backward_recv_forward_backward
        exchange(k, -1, recv_prev ? next_chunk : -1, last_stage ? -1 : v - 1);
      } else {  // send_forward_recv_forward
        exchange(k, -1, recv_prev ? next_chunk : -1, -1);
      }
    }
    for (int k = 0; k < remaining; ++k) {
      const int forward_k = k + warmup;
      forward_step(forward_k);
      backward_step(k);
      int next_forward = 0, next_backward = 0;
      bool recv_prev = true, recv_next = true;
      if (first_stage) {
        next_forward = chunk_of_step(forward_k - (pp - 1), true);
        recv_prev = next_forward != v - 1;
        ++next_forward;
      } else {
        next_forward = chunk_of_step(forward_k + 1, true);
      }
      if (last_stage) {
        next_backward = chunk_of_step(k - (pp - 1), false);
        recv_next = next_backward != 0;
        --next_backward;
      } else {
        next_backward = chunk_of_step(k + 1, false);
      }
      if (k == remaining - 1) recv_prev = false;
      exchange(forward_k, k, recv_prev ? next_forward : -1, recv_next ? next_backward : -1);
    }
    // recv_backward at the virtual stage of the last forward (chunk v - 1): none on the last stage.
    if (all_warmup && !last_stage) exchange(-1, -1, -1, v - 1);
    for (int k = remaining; k < total; ++k) {
      backward_step(k);
      const int next_chunk = chunk_of_step(k + 1, false);
      const bool recv_next = !(last_stage && next_chunk == v - 1) && k != total - 1;
      exchange(-1, k, -1, recv_next ? next_chunk : -1);  // send_backward_recv_backward
    }
    chunk_ = 0;
  }

  void gradients_and_optimizer() {
    const double params = stage_params_per_rank(model_, par_, stage_);
    const int ge = dtype_bytes(sizes_.grad_dtype);
    if (par_.dp > 1) {
      const trace::GroupKind group = trace::GroupKind::kData;
      const std::uint64_t grads = padded(params * ge, par_.dp, ge);
      if (bucketing()) {
        after_ = {last_bucket_};  // reduced in buckets during the backward: the optimizer waits for the last
      } else if (par_.zero == 0) {
        collective(trace::OpKind::kAllReduce, group, grads, sizes_.grad_dtype, "dp:grads");
      } else if (par_.zero <= 2) {
        collective(trace::OpKind::kReduceScatter, group, grads, sizes_.grad_dtype, "dp:grads");
      }
    }
    const double shard = par_.zero >= 1 ? params / par_.dp : params;
    // Adam: read gradient, master weight, momentum, variance; write the last three and the
    // 16-bit weight: about 28 bytes and 10 FLOPs per parameter.
    compute("optimizer", "adam", 10 * shard, 28 * shard);
    if (par_.dp > 1 && (par_.zero == 1 || par_.zero == 2)) {
      // Each rank updated its shard: the parameters are all-gathered, bucket by bucket as they
      // were reduce-scattered (Megatron's distributed optimizer gathers each bucket's
      // parameters), or in one collective.
      const int e = dtype_bytes(model_.dtype);
      const std::vector<double> gathers = bucketing() ? buckets_ : std::vector<double>{params};
      for (const double bucket : gathers) {
        if (bucketing()) {  // the data group's collectives stay on one stream
          stream_ = kGradStream;
          after_ = {last_op()};
        }
        collective(trace::OpKind::kAllGather, trace::GroupKind::kData, padded(bucket * e, par_.dp, e), model_.dtype,
                   "dp:params");
      }
    }
  }

  const ModelSpec& model_;
  const Parallelism& par_;
  trace::Trace& trace_;
  LayerPlan plan_;
  MessageSizes sizes_;
  trace::Program* program_ = nullptr;
  int stage_ = 0, layers_ = 0;        ///< layers_: of one model chunk
  int chunk_ = 0;                     ///< the model chunk the operators are of
  std::uint8_t stream_ = 0;           ///< the next operator's stream
  std::vector<std::uint32_t> after_;  ///< ... and the operators it is after
  std::uint32_t last_main_op_ = 0;    ///< the last operator on the main stream
  std::vector<int> backward_calls_;   ///< backward passes of each model chunk so far
  std::vector<std::uint32_t> join_;   ///< the last exchange's operators off the main stream
  std::vector<int> received_;         ///< per chunk: activations (2 c) and gradients (2 c + 1) received
  double pending_params_ = 0;         ///< gradients ready but not in a bucket yet
  std::uint32_t last_bucket_ = 0;     ///< the last bucket's collective
  std::vector<double> buckets_;       ///< parameters per rank of each bucket so far
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
