#pragma once

#include <algorithm>

#include <string>
#include <vector>

#include "synth/model_spec.hpp"
#include "trace/trace.hpp"

namespace ccsim::synth {

/// GPipe (all forwards, then all backwards), 1F1B (Megatron's non-interleaved schedule) and
/// Megatron's interleaved 1F1B (Narayanan et al. 2021, section 2.2: each rank holds
/// `virtual_stages` model chunks, the bubble shrinks by that factor).
enum class PipelineSchedule : std::uint8_t { kGpipe, k1F1B, kInterleaved };
/// "gpipe", "1f1b", "interleaved": the --schedule values.
std::string_view schedule_name(PipelineSchedule s);

/// Activation recomputation, as Megatron-LM runs it (Korthikanti et al. 2022, "Reducing
/// Activation Recomputation in Large Transformer Models"). kFull: every layer keeps only its
/// input and runs its forward again before its backward (--recompute-granularity full
/// --recompute-method uniform --recompute-num-layers 1). kSelective: only the attention core
/// (scores, mask and softmax, attention dropout, context) is recomputed, when the backward
/// reaches it (--recompute-granularity selective).
enum class Recompute : std::uint8_t { kNone, kSelective, kFull };
/// "none", "selective", "full": the --recompute values.
std::string_view recompute_name(Recompute r);

/// How a job splits the model and the batch, in Megatron-LM's terms.
struct Parallelism {
  int tp = 1;                ///< tensor parallel size t
  int pp = 1;                ///< pipeline stages
  int dp = 1;                ///< data-parallel replicas
  bool sp = false;           ///< sequence parallelism (Korthikanti et al. 2022) on the TP group
  int micro_batches = 1;     ///< M per iteration and replica
  int micro_batch_size = 1;  ///< b, sequences per micro-batch
  int seq = 0;               ///< s; 0: the model's
  PipelineSchedule schedule = PipelineSchedule::k1F1B;
  /// Model chunks per rank (Megatron's virtual pipeline stages); more than 1 only with the
  /// interleaved schedule. Rank p holds chunks p, p + pp, p + 2 pp, ... of pp x v chunks.
  int virtual_stages = 1;
  /// Interleaved schedule: Megatron's --overlap-p2p-communication. Off (Megatron's default),
  /// each step's sends and receives are posted together and the next computation waits for all
  /// of them; on, a send overlaps the computations after it and a receive waits only before
  /// the computation that needs it.
  bool overlap_p2p = false;
  /// 0 (plain DDP), 1/2 (optimizer state / + gradient sharding), 3 (+ parameters). Stage 1 is
  /// Megatron's distributed optimizer (--use-distributed-optimizer): gradients reduce-scattered
  /// over the DP group, each rank updates its shard, the parameters all-gathered.
  int zero = 0;
  /// Megatron's --overlap-grad-reduce: the gradients of the last micro-batch's backward are
  /// reduced in buckets on a stream of their own as their layers finish (all_reduce, or
  /// reduce_scatter with ZeRO 1/2), overlapping the rest of the backward; the optimizer waits
  /// for the last bucket. Off: one collective of all gradients after the backward.
  bool overlap_grad_reduce = false;
  /// Parameters per bucket; 0: Megatron's default, max(40 M, 1 M x dp).
  double bucket_params = 0;
  /// The bucket size in parameters that applies.
  double bucket() const { return bucket_params > 0 ? bucket_params : std::max(40e6, 1e6 * dp); }

  Recompute recompute = Recompute::kNone;
  /// Layers of the first and last pipeline stage (Megatron's --decoder-first-pipeline-num-layers
  /// and --decoder-last-pipeline-num-layers); 0: by stage_layers()'s default rule.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  /// Megatron's kernel fusions, all on by default: the causal mask with the softmax in one
  /// kernel (--no-masked-softmax-fusion), the MLP's bias with its activation (bias_gelu /
  /// bias_swiglu; --no-bias-gelu-fusion), bias, dropout and residual add after attention and
  /// after the MLP (--no-bias-dropout-fusion).
  bool masked_softmax_fusion = true;
  bool bias_activation_fusion = true;
  bool bias_dropout_fusion = true;

  int world() const { return tp * pp * dp; }
};

/// One compute operator of one rank for one micro-batch: FLOPs and bytes moved.
struct ComputeCost {
  std::string name;   ///< linear, baddbmm, softmax, bmm, layernorm, gelu, ...
  std::string label;  ///< attn.qkv, mlp.up, ...
  double flops = 0;
  double bytes = 0;
  GemmShape gemm{0, 0, 0, 1};  ///< a matrix product's shape; m == 0 for the other operators
};

/// What one rank of a tensor-parallel group does in one transformer layer for one
/// micro-batch. `tp_points` are the layer's TP communication points in forward order,
/// placed before op `before_op`: Megatron's f (copy to TP: forward identity, backward
/// all_reduce) and g (reduce from TP: forward all_reduce, backward identity); with sequence
/// parallelism f is an all_gather forward / reduce_scatter backward and g the converse.
struct LayerPlan {
  struct TpPoint {
    int before_op;
    bool copy_to_tp;  ///< f (true) or g (false)
    std::string label;
  };
  std::vector<ComputeCost> forward;   ///< forward order
  std::vector<ComputeCost> backward;  ///< backward order (forward reversed)
  std::vector<TpPoint> tp_points;
  double tp_bytes = 0;  ///< the buffer of each TP collective: b * s * h * element size
  /// forward[core_begin, core_end): the attention core (scores to context), what selective
  /// recomputation runs again.
  int core_begin = 0;
  int core_end = 0;
};

LayerPlan plan_layer(const ModelSpec& model, const Parallelism& par);

/// The sequence length s: the split's, or the model's when it sets none.
int sequence_length(const ModelSpec& model, const Parallelism& par);
/// Parameters one TP rank holds, as Megatron splits them: of one transformer layer (QKV and
/// MLP input projections column-parallel, output projections row-parallel with replicated
/// biases, norms replicated, KV heads replicated when TP exceeds them); of the first stage's
/// embedding (vocabulary-parallel, learned positions replicated); of the last stage beyond its
/// layers (the final norm, an untied head vocabulary-parallel, and a tied head's own copy of
/// the embedding when the last stage is not the first); and of stage `stage` in all.
double layer_params_per_rank(const ModelSpec& model, int tp);
double embedding_params_per_rank(const ModelSpec& model, int tp);
double head_params_per_rank(const ModelSpec& model, int tp);
double last_stage_extra_params_per_rank(const ModelSpec& model, const Parallelism& par);
double stage_params_per_rank(const ModelSpec& model, const Parallelism& par, int stage);
/// Transformer layers of each pipeline stage. Given --first-stage-layers / --last-stage-layers,
/// the other stages share the rest evenly (Megatron's rule: it must divide). Otherwise, when
/// the stages do not divide the layers, each stage gets floor(L / pp) and the L mod pp layers
/// left over go one each to the middle stages, from the second on, then to the last: the first
/// and last stages take fewer, as in Llama 3 405B's 126 layers on 16 stages (7, 8 x 14, 7;
/// Dubey et al. 2024, section 3.3.2), which puts its embedding and its head on lighter stages.
std::vector<int> stage_layers(const ModelSpec& model, const Parallelism& par);
/// The layers of one stage by the same rule (stage_layers()[stage], without the vector).
int layers_of_stage(const ModelSpec& model, const Parallelism& par, int stage);
/// KV heads (query groups) per TP rank: kv_heads / tp, or 1 when TP exceeds them.
double kv_heads_per_rank(const ModelSpec& model, int tp);

/// Sizes of the messages of the job (bytes).
struct MessageSizes {
  double tp = 0;        ///< each TP collective's buffer
  double pp = 0;        ///< each pipeline activation / gradient message
  double dp_grads = 0;  ///< the gradient buffer of one rank of the largest stage
  DType grad_dtype = DType::kF32;
  double zero3_layer = 0;  ///< ZeRO-3: one layer's parameters (gathered per layer)
};
MessageSizes message_sizes(const ModelSpec& model, const Parallelism& par);

/// Memory of one accelerator of the fullest pipeline stage in bytes: model states of
/// mixed-precision Adam (Rajbhandari et al. 2020: 2 + 2 + 12 bytes per parameter, sharded over
/// the DP group by ZeRO stage) and activations (activation_bytes_per_layer() for each of the
/// stage's layers), held for micro_batches_in_flight(par, stage) micro-batches.
struct Memory {
  int stage = 0;   ///< the stage of the most memory
  int layers = 0;  ///< its transformer layers
  double params_per_rank = 0;
  double model_states = 0;
  double activations = 0;
  double total() const { return model_states + activations; }
};
/// Bytes of model states per rank for `params` parameters on it (ZeRO paper, Figure 1).
double model_state_bytes(double params, int zero, int dp);
/// Activation bytes one layer keeps for one micro-batch until its backward (Korthikanti et al.
/// 2022, a GPT layer with dropout, 16-bit activations). No recomputation (eq. 2-4): s b h (34 +
/// 5 a s / h), with TP (10 + 24/t + 5 a s / (h t)), with TP and SP (34 + 5 a s / h) / t.
/// Selective (section 5, Table 2: the attention core's 5 a s / h dropped): 34 s b h, with TP
/// s b h (10 + 24/t), with TP and SP 34 s b h / t. Full (section 5, Table 2): the layer's input alone,
/// 2 s b h, split over the TP group with SP (the input is sequence-parallel then): 2 s b h / t.
double activation_bytes_per_layer(const ModelSpec& model, const Parallelism& par);
/// Micro-batches whose activations stage `stage` holds at its fullest: M (GPipe), min(pp -
/// stage, M) (1F1B); with the interleaved schedule Megatron's warm-up of (pp - stage - 1) 2 +
/// (v - 1) pp chunk forwards plus one, in micro-batches of v chunks (stage 0: pp (1 + (pp -
/// 1) / (pp v)), Korthikanti et al. 2022, section 4.2.3), at most M.
double micro_batches_in_flight(const Parallelism& par, int stage = 0);
/// The stage of the most memory (model states and activations) and its figures.
Memory memory_per_accelerator(const ModelSpec& model, const Parallelism& par);

/// A job's memory against one accelerator's `capacity_bytes`: whether it fits and, when it
/// does not, a message naming both figures and the changes that would fit (recomputation, the
/// distributed optimizer, more pipeline stages or tensor parallelism).
struct MemoryFit {
  bool fits = true;
  Memory memory;
  std::string message;  ///< empty when it fits
};
MemoryFit check_memory(const ModelSpec& model, const Parallelism& par, double capacity_bytes,
                       const std::string& accelerator);

/// Refuses a job of more ranks (TP x PP x DP) than platform `platform` has accelerators
/// (`nodes` x `per_node`), one rank per accelerator: InputError naming both numbers.
void check_ranks_fit(const Parallelism& par, const std::string& platform, int nodes, int per_node);

/// Layers per stage in runs: "7, 8 x 14, 7".
std::string format_stage_layers(const std::vector<int>& layers);

/// Checks that the split fits the model (layers by pp, heads and hidden by tp, ...): throws
/// InputError naming the command-line flag.
void check_parallelism(const ModelSpec& model, const Parallelism& par);

/// The trace one iteration of the job produces: per rank, in Megatron rank order
/// (rank = pp_rank * dp * tp + dp_rank * tp + tp_rank), the compute operators with FLOPs and
/// bytes (no durations: the platform's rates time them), TP collectives, pipeline
/// send/recv of the schedule, and data-parallel gradient (and ZeRO parameter) collectives.
trace::Trace synthesize(const ModelSpec& model, const Parallelism& par, const std::string& platform);

/// One iteration of a synthesised job before its operators: `platform`, one (empty) op list per
/// rank, and the rank order every synthesiser lays ranks out in ("tp,dp,pp": TP peers adjacent).
trace::Trace empty_iteration(const Parallelism& par, const std::string& platform);

}  // namespace ccsim::synth
