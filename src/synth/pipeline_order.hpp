#pragma once

#include <vector>

#include "synth/megatron.hpp"

namespace ccsim::synth {

/// Model chunk `chunk` of pipeline stage `stage`: virtual stage chunk * pp + stage of the
/// pp x v virtual stages (Megatron's numbering; v = 1 without the interleaved schedule).
struct VirtualStage {
  int pp = 1;
  int v = 1;
  int stage = 0;
  int chunk = 0;
  int index() const { return chunk * pp + stage; }
  bool first() const { return index() == 0; }
  bool last() const { return index() == pp * v - 1; }
};

/// A message of the pipeline schedule: the activations (`forward`) or gradients of micro-batch
/// `mb`, sent out of or received into model chunk `chunk` of the stage.
struct PipelineMessage {
  bool send = false;
  bool forward = true;
  int chunk = 0;
  int mb = 0;
};

/// What a stage's pipeline schedule does, step by step; pipeline_order() calls it in
/// Megatron-LM's order and the trace's builder writes each step's operators.
class PipelineSteps {
 public:
  virtual ~PipelineSteps() = default;
  /// The forward or backward pass of model chunk `chunk` on micro-batch `mb`.
  virtual void forward(int chunk, int mb) = 0;
  virtual void backward(int chunk, int mb) = 0;
  /// A message on its own, blocking (send_forward, recv_backward, ...); only those with a peer
  /// are asked for.
  virtual void transfer(const PipelineMessage& message) = 0;
  /// One call of Megatron's p2p_communication._communicate: the messages posted together,
  /// then a wait for all. May be empty (a call with nothing to send or receive on this stage
  /// still ends the previous call's wait).
  virtual void call(const std::vector<PipelineMessage>& messages) = 0;
  /// The same call posted without its wait (overlap_p2p_comm=True: Megatron keeps the request
  /// handles): the messages start after the last computation, and wait() later makes the
  /// next computation wait for them. Returns the handle; -1 for an empty call.
  virtual int post(const std::vector<PipelineMessage>& messages) = 0;
  /// The next computation waits for the messages of post()'s `handle` (none for -1).
  virtual void wait(int handle) = 0;
};

/// Walks the schedule of pipeline stage `stage` of `par` (GPipe, also for pp = 1; 1F1B;
/// interleaved, batched or with overlap_p2p) in the order Megatron-LM's
/// forward_backward_pipelining_* functions run it, calling `steps` once per step.
void pipeline_order(const Parallelism& par, int stage, PipelineSteps& steps);

}  // namespace ccsim::synth
