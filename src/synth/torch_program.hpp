#pragma once

#include <string>

#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"
#include "trace/trace.hpp"

namespace ccsim::synth {

/// The trace of one iteration of the PyTorch program of the shared runs
/// (../shared/tools/gen_traces.py, README "Model and schedule"), operator for operator as
/// `ccsim trace import kineto` writes a profile of it: the same names and labels (linear
/// attn.qkv, mask attn.mask, loss cross_entropy, ...), the FLOPs and bytes the importer derives
/// from the recorded shapes (src/import/shapes.cpp), the host operators the importer keeps
/// (cpu_gap between operators, grad_accum per parameter, the autograd bookkeeping nodes
/// bwd_other and tp_comm_wrapper), GPipe over blocking send/recv, TP all_reduces of
/// Megatron's f and g, one DP all_reduce of the flat fp32 gradient buffer, SGD. No durations:
/// a compute model (calibrate::adjust_compute) times it. So that a model fitted on imported
/// profiles of some configurations predicts another (`ccsim predict`).
///
/// What differs from synthesize() (Megatron-LM): the embedding is not vocabulary-parallel and
/// the LM head is replicated on the TP ranks (its own weight, not tied), biases of the
/// row-parallel layers are added after the all_reduce, the optimizer is plain SGD, the
/// schedule is GPipe. Needs ZeRO 0, no sequence parallelism; throws
/// InputError naming the flag otherwise.
trace::Trace synthesize_torch(const ModelSpec& model, const Parallelism& par, const std::string& platform);

/// Parameters one rank of pipeline stage `stage` holds in that program (its flat gradient
/// buffer, all_reduced over DP, holds as many fp32 values).
double torch_stage_params(const ModelSpec& model, const Parallelism& par, int stage);

}  // namespace ccsim::synth
