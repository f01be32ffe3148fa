#include "synth/torch_program.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/index.hpp"

namespace ccsim::synth {
namespace {

/// FLOPs and bytes of C[m,n] (+)= A[m,k] B[k,n], `batch` times, `extra` elements of a bias
/// read: the importer's rule (src/import/shapes.cpp).
struct Cost {
  double flops = 0;
  double bytes = 0;
};
Cost product(double batch, double m, double k, double n, double extra, double e) {
  return {2 * batch * m * k * n + (extra > 0 ? batch * m * n : 0), (batch * (m * k + k * n + m * n) + extra) * e};
}
Cost operator+(Cost a, Cost b) { return {a.flops + b.flops, a.bytes + b.bytes}; }

/// The process groups of the program's job, named as gen_traces.py names them:
/// tp{pp_rank*dp+dp_rank}, dp{pp_rank*tp+tp_rank}, pp{dp_rank*tp+tp_rank}, in Megatron's rank
/// order; tensor and data groups only where they have more than one rank, pipeline groups
/// where pp > 1.
class TorchGroups {
 public:
  /// Adds the groups to `trace`.
  TorchGroups(const Parallelism& par, trace::Trace& trace) : par_(par) {
    for (int p = 0; p < par_.pp; ++p) {
      for (int d = 0; d < par_.dp; ++d) {
        if (par_.tp == 1) continue;
        std::vector<int> ranks;
        for (int t = 0; t < par_.tp; ++t) ranks.push_back(rank(p, d, t));
        tensor_[{p, d}] = static_cast<int>(trace.groups.size());
        add(trace, fmt::format("tp{}", p * par_.dp + d), trace::GroupKind::kTensor, std::move(ranks));
      }
    }
    for (int p = 0; p < par_.pp; ++p) {
      for (int t = 0; t < par_.tp; ++t) {
        if (par_.dp == 1) continue;
        std::vector<int> ranks;
        for (int d = 0; d < par_.dp; ++d) ranks.push_back(rank(p, d, t));
        data_[{p, t}] = static_cast<int>(trace.groups.size());
        add(trace, fmt::format("dp{}", p * par_.tp + t), trace::GroupKind::kData, std::move(ranks));
      }
    }
    if (par_.pp > 1) {
      for (int d = 0; d < par_.dp; ++d) {
        for (int t = 0; t < par_.tp; ++t) {
          std::vector<int> ranks;
          for (int p = 0; p < par_.pp; ++p) ranks.push_back(rank(p, d, t));
          add(trace, fmt::format("pp{}", d * par_.tp + t), trace::GroupKind::kPipeline, std::move(ranks));
        }
      }
    }
  }

  /// The rank of pipeline stage `p`, data-parallel replica `d`, tensor-parallel rank `t`.
  int rank(int p, int d, int t) const { return p * par_.dp * par_.tp + d * par_.tp + t; }
  /// The index of the tensor group of stage `p`, replica `d` (tp > 1), and of the data group of
  /// stage `p`, tensor rank `t` (dp > 1).
  int tensor(int p, int d) const { return tensor_.at({p, d}); }
  int data(int p, int t) const { return data_.at({p, t}); }

 private:
  static void add(trace::Trace& trace, std::string name, trace::GroupKind kind, std::vector<int> ranks) {
    trace::Group g;
    g.name = std::move(name);
    g.kind = kind;
    g.ranks = std::move(ranks);
    trace.groups.push_back(std::move(g));
  }

  const Parallelism& par_;
  std::map<std::pair<int, int>, int> tensor_, data_;
};

class TorchBuilder {
 public:
  TorchBuilder(const ModelSpec& model, const Parallelism& par, trace::Trace& trace)
      : model_(model), par_(par), trace_(trace), groups_(par, trace) {
    e_ = dtype_bytes(model.dtype);
    s_ = par.seq > 0 ? par.seq : model.seq;
    b_ = par.micro_batch_size;
    tokens_ = static_cast<double>(s_) * b_;
    h_ = model.hidden;
    f_ = model.ffn;
    t_ = par.tp;
    heads_ = static_cast<double>(model.heads) / par.tp;
    hn_ = static_cast<double>(model.head_dim());
  }

  /// The groups are in the trace once constructed; build() writes every rank's program.
  void build() {
    for (int r = 0; r < par_.world(); ++r) build_rank(r);
  }

 private:
  // --- operators of the current rank; a cpu_gap (host time between operators) before each ---
  void push(trace::Op op) {
    if (!ops_->empty()) {
      trace::Op gap;
      gap.kind = trace::OpKind::kCompute;
      gap.name = trace_.names.intern("cpu_gap");
      ops_->push_back(gap);
    }
    ops_->push_back(op);
  }
  void compute(const char* name, const std::string& label, Cost c = {}) {
    trace::Op op;
    op.kind = trace::OpKind::kCompute;
    op.name = trace_.names.intern(name);
    op.label = trace_.names.intern(label);
    op.flops = c.flops;
    op.bytes = static_cast<std::uint64_t>(std::llround(c.bytes));
    push(op);
  }
  void host(const char* name, const char* label, int times = 1) {
    for (int i = 0; i < times; ++i) compute(name, label);
  }
  /// The backward of a forward region: label "bwd:<module>", as the importer writes it.
  void backward_of(const char* name, const char* label, Cost c = {}) { compute(name, std::string("bwd:") + label, c); }
  void all_reduce(int group, double bytes, const char* label) {
    trace::Op op;
    op.kind = trace::OpKind::kAllReduce;
    op.name = trace_.names.intern(trace::op_kind_name(op.kind));
    op.label = trace_.names.intern(label);
    op.group = group;
    op.bytes = static_cast<std::uint64_t>(std::llround(bytes));
    op.dtype = DType::kF32;
    push(op);
  }
  void p2p(trace::OpKind kind, int peer, const std::string& tag, const char* label) {
    trace::Op op;
    op.kind = kind;
    op.name = trace_.names.intern(trace::op_kind_name(kind));
    op.label = trace_.names.intern(label);
    op.tag = trace_.names.intern(tag);
    op.peer = peer;
    op.bytes = static_cast<std::uint64_t>(std::llround(tokens_ * h_ * e_));
    op.dtype = model_.dtype;
    push(op);
  }
  void tp_all_reduce(const char* label) {
    if (par_.tp > 1) all_reduce(groups_.tensor(stage_, d_), tokens_ * h_ * e_, label);
  }

  // Forward of a linear layer [tokens, in] -> [tokens, out] (aten::linear), and its backward
  // (AddmmBackward0 / MmBackward0: the input and the weight gradient, two aten::mm).
  Cost linear(double in, double out, bool bias) const { return product(1, tokens_, in, out, bias ? out : 0, e_); }
  Cost linear_backward(double in, double out) const {
    return product(1, tokens_, out, in, 0, e_) + product(1, out, tokens_, in, 0, e_);
  }
  Cost elementwise(double per_element, double elements) const { return {per_element * elements, 2 * elements * e_}; }
  double act_flops() const { return model_.activation == Activation::kGelu ? 8 : 1; }
  const char* act_name() const { return model_.activation == Activation::kGelu ? "gelu" : "relu"; }

  void forward_layer() {
    const double batch = b_ * heads_;
    const double s = s_;
    compute("layernorm", "ln1", elementwise(8, tokens_ * h_));
    compute("linear", "attn.qkv", linear(h_, 3 * h_ / t_, true));
    Cost scores = product(batch, s, hn_, s, 0, e_);
    scores.bytes += batch * s * s * e_;  // the (uninitialised) self tensor, read
    compute("baddbmm", "attn.scores", scores);
    compute("mask", "attn.mask");
    compute("softmax", "attn.softmax", elementwise(5, batch * s * s));
    compute("bmm", "attn.ctx", product(batch, s, s, hn_, 0, e_));
    compute("linear", "attn.out", linear(h_ / t_, h_, false));
    tp_all_reduce("tp:attn");
    compute("layernorm", "ln2", elementwise(8, tokens_ * h_));
    compute("linear", "mlp.up", linear(h_, f_ / t_, true));
    compute(act_name(), "mlp.act", elementwise(act_flops(), tokens_ * f_ / t_));
    compute("linear", "mlp.down", linear(f_ / t_, h_, false));
    tp_all_reduce("tp:mlp");
  }

  // Backward of one layer in the order autograd runs it (observed in the shared profiles):
  // the residual adds and bias gradients (AddBackward0), ReduceFromTP (g), the MLP, CopyToTP
  // (f) around the TP all_reduce of the input gradient, the norm, then attention likewise.
  void copy_to_tp(const char* label) {
    host("tp_comm_wrapper", "CopyToTPBackward");
    if (par_.tp > 1) {
      tp_all_reduce(label);
      host("tp_comm_wrapper", "CopyToTPBackward");
    }
  }
  void backward_layer() {
    const double batch = b_ * heads_;
    const double s = s_;
    host("bwd_other", "AddBackward0", 2);
    host("grad_accum", "bwd-unlinked");
    host("tp_comm_wrapper", "ReduceFromTPBackward");
    backward_of("linear", "mlp.down", linear_backward(f_ / t_, h_));
    host("grad_accum", "bwd-unlinked");
    backward_of(act_name(), "mlp.act");
    backward_of("linear", "mlp.up", linear_backward(h_, f_ / t_));
    host("grad_accum", "bwd-unlinked", 2);
    copy_to_tp("tp:mlp");
    backward_of("layernorm", "ln2");
    host("grad_accum", "bwd-unlinked", 2);
    host("bwd_other", "AddBackward0", 2);
    host("grad_accum", "bwd-unlinked");
    host("tp_comm_wrapper", "ReduceFromTPBackward");
    backward_of("linear", "attn.out", linear_backward(h_ / t_, h_));
    host("grad_accum", "bwd-unlinked");
    host("bwd_other", "UnsafeViewBackward0");
    host("bwd_other", "CloneBackward0");
    host("bwd_other", "PermuteBackward0");
    host("bwd_other", "ViewBackward0");
    backward_of("bmm", "attn.ctx", product(batch, s, s, hn_, 0, e_) + product(batch, s, s, hn_, 0, e_));
    backward_of("softmax", "attn.softmax");
    backward_of("mask", "attn.mask");
    backward_of("baddbmm", "attn.scores", product(batch, s, s, hn_, 0, e_) + product(batch, hn_, s, s, 0, e_));
    host("bwd_other", "TransposeBackward0", 3);
    host("bwd_other", "SplitBackward0");
    host("bwd_other", "ViewBackward0");
    backward_of("linear", "attn.qkv", linear_backward(h_, 3 * h_ / t_));
    host("grad_accum", "bwd-unlinked", 2);
    copy_to_tp("tp:attn");
    backward_of("layernorm", "ln1");
    host("grad_accum", "bwd-unlinked", 2);
  }

  bool first() const { return stage_ == 0; }
  bool last() const { return stage_ == par_.pp - 1; }

  void forward(int mb) {
    if (!first()) p2p(trace::OpKind::kRecv, groups_.rank(stage_ - 1, d_, tt_), fmt::format("act.mb{}", mb), "pp:act");
    if (first()) compute("embedding", "embed");
    for (int l = 0; l < layers_; ++l) forward_layer();
    if (last()) {
      compute("layernorm", "lnf", elementwise(8, tokens_ * h_));
      compute("linear", "lm_head", product(1, tokens_, h_, model_.vocab, 0, e_));
      compute("loss", "cross_entropy");
    }
    if (!last()) p2p(trace::OpKind::kSend, groups_.rank(stage_ + 1, d_, tt_), fmt::format("act.mb{}", mb), "pp:act");
  }

  void backward(int mb) {
    if (!last()) p2p(trace::OpKind::kRecv, groups_.rank(stage_ + 1, d_, tt_), fmt::format("grad.mb{}", mb), "pp:grad");
    if (last()) {
      for (int i = 0; i < 3; ++i) backward_of("loss", "cross_entropy");
      backward_of("linear", "lm_head", linear_backward(h_, model_.vocab));
      host("grad_accum", "bwd-unlinked");
      backward_of("layernorm", "lnf");
      host("grad_accum", "bwd-unlinked", 2);
    }
    for (int l = 0; l < layers_; ++l) backward_layer();
    if (first()) {
      for (int i = 0; i < 4; ++i) backward_of("embedding", "embed");
      host("grad_accum", "bwd-unlinked", 2);
    }
    if (!first()) {
      host("grad_accum", "bwd-unlinked");  // the received activation, a leaf that requires its gradient
      p2p(trace::OpKind::kSend, groups_.rank(stage_ - 1, d_, tt_), fmt::format("grad.mb{}", mb), "pp:grad");
    }
  }

  void build_rank(int r) {
    stage_ = r / (par_.dp * par_.tp);
    d_ = (r / par_.tp) % par_.dp;
    tt_ = r % par_.tp;
    layers_ = model_.layers / par_.pp;
    ops_ = &at(trace_.programs, r).ops;
    compute("zero_grad", "grad_buf");
    for (int mb = 0; mb < par_.micro_batches; ++mb) forward(mb);
    for (int mb = par_.micro_batches - 1; mb >= 0; --mb) backward(mb);
    if (par_.dp > 1) {
      all_reduce(groups_.data(stage_, tt_), 4 * torch_stage_params(model_, par_, stage_), "dp:grads");
      compute("optimizer", "grad_scale");
    }
    compute("optimizer", "sgd");
  }

  const ModelSpec& model_;
  const Parallelism& par_;
  trace::Trace& trace_;
  TorchGroups groups_;
  double e_ = 4, tokens_ = 0, h_ = 0, f_ = 0, t_ = 1, heads_ = 0, hn_ = 0;
  int s_ = 0, b_ = 1;
  std::vector<trace::Op>* ops_ = nullptr;
  int stage_ = 0, d_ = 0, tt_ = 0, layers_ = 0;
};

}  // namespace

double torch_stage_params(const ModelSpec& model, const Parallelism& par, int stage) {
  const double h = model.hidden;
  const double f = model.ffn;
  const double t = par.tp;
  // Per layer and TP rank: norms (2 x 2h) and the row-parallel biases (2 x h) replicated;
  // QKV and MLP-up (weights and biases) and the row-parallel weights split over TP.
  const double layer = 4 * h + 2 * h + (3 * h * h + 3 * h) / t + h * h / t + (h * f + f) / t + f * h / t;
  const int stage_layers = model.layers / par.pp;  // whole layers per stage
  double params = layer * stage_layers;
  const int seq = par.seq > 0 ? par.seq : model.seq;
  if (stage == 0) params += static_cast<double>(model.vocab) * h + static_cast<double>(seq) * h;  // token and position
  if (stage == par.pp - 1) params += 2 * h + static_cast<double>(model.vocab) * h;                // final norm, LM head
  return params;
}

trace::Trace synthesize_torch(const ModelSpec& model, const Parallelism& par, const std::string& platform) {
  check_parallelism(model, par);
  if (par.sp)
    throw InputError("command line", 0, "--sp", "the PyTorch program of the shared runs has no sequence parallelism");
  if (par.zero != 0) {
    throw InputError("command line", 0, "--zero",
                     fmt::format("the PyTorch program of the shared runs has no ZeRO, got \"{}\"", par.zero));
  }
  if (par.schedule != PipelineSchedule::kGpipe && par.pp > 1) {
    throw InputError(
        "command line", 0, "--schedule",
        fmt::format("the PyTorch program of the shared runs runs GPipe, got \"{}\"", schedule_name(par.schedule)));
  }
  if (model.activation == Activation::kSwiglu) {
    throw InputError("command line", 0, "--model",
                     fmt::format("{} uses SwiGLU; the PyTorch program has ReLU or GELU", model.name));
  }
  trace::Trace trace = empty_iteration(par, platform);
  trace.source = "ccsim predict";
  trace.name = fmt::format("{}-h{}-l{}-tp{}-pp{}-dp{}", model.name, model.hidden, model.layers, par.tp, par.pp, par.dp);
  trace.description = fmt::format(
      "synthesized: the PyTorch program of the shared runs (gen_traces.py) for {} (hidden {}, {} layers, {} heads, "
      "sequence {}), TP {} PP {} DP {}, {} micro-batches of {}, GPipe; FLOPs and bytes as the Kineto importer derives "
      "them, no durations",
      model.name, model.hidden, model.layers, model.heads, par.seq > 0 ? par.seq : model.seq, par.tp, par.pp, par.dp,
      par.micro_batches, par.micro_batch_size);
  TorchBuilder(model, par, trace).build();
  return trace;
}

}  // namespace ccsim::synth
