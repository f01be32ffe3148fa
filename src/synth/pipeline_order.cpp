// The order of a pipeline stage's passes and messages, as Megatron-LM's schedules
// (megatron/core/pipeline_parallel/schedules.py) run them.
#include "synth/pipeline_order.hpp"

#include <algorithm>

#include "core/index.hpp"

namespace ccsim::synth {
namespace {

/// One stage's schedule. Messages between virtual stages: a lone send or receive
/// (send_forward, recv_backward, ...) is a transfer, skipped where the virtual stage has no
/// such neighbour; Megatron's combined operations (send_forward_recv_backward,
/// send_backward_recv_forward, and the batched interleaved schedule's calls) are one call.
class PipelineOrder {
 public:
  PipelineOrder(const Parallelism& par, int stage, PipelineSteps& steps) : par_(par), stage_(stage), steps_(steps) {}

  void run() {
    const bool interleaved = par_.schedule == PipelineSchedule::kInterleaved;
    if (interleaved && par_.overlap_p2p) {
      interleaved_overlapped();
    } else if (interleaved) {
      interleaved_batched();
    } else if (par_.schedule == PipelineSchedule::kGpipe || par_.pp == 1) {
      gpipe();
    } else {
      one_f_one_b();
    }
  }

 private:
  VirtualStage chunk(int c) const { return VirtualStage{par_.pp, par_.virtual_stages, stage_, c}; }
  bool first() const { return stage_ == 0; }
  bool last() const { return stage_ == par_.pp - 1; }

  void recv_forward(int c, int mb) {
    if (!chunk(c).first()) steps_.transfer({false, true, c, mb});
  }
  void send_forward(int c, int mb) {
    if (!chunk(c).last()) steps_.transfer({true, true, c, mb});
  }
  void recv_backward(int c, int mb) {
    if (!chunk(c).last()) steps_.transfer({false, false, c, mb});
  }
  void send_backward(int c, int mb) {
    if (!chunk(c).first()) steps_.transfer({true, false, c, mb});
  }

  void gpipe() {
    const int m = par_.micro_batches;
    for (int mb = 0; mb < m; ++mb) {
      recv_forward(0, mb);
      steps_.forward(0, mb);
      send_forward(0, mb);
    }
    for (int mb = m - 1; mb >= 0; --mb) {
      recv_backward(0, mb);
      steps_.backward(0, mb);
      send_backward(0, mb);
    }
  }

  /// Megatron's forward_backward_pipelining_without_interleaving: pp - stage - 1 forwards of
  /// warm-up, then one forward one backward, then the remaining backwards.
  void one_f_one_b() {
    const int m = par_.micro_batches;
    const int warmup = std::min(par_.pp - stage_ - 1, m);
    const int remaining = m - warmup;
    for (int i = 0; i < warmup; ++i) {
      recv_forward(0, i);
      steps_.forward(0, i);
      send_forward(0, i);
    }
    if (remaining > 0) recv_forward(0, warmup);
    for (int i = 0; i < remaining; ++i) {
      const int fmb = warmup + i;
      steps_.forward(0, fmb);
      // send_forward_recv_backward and send_backward_recv_forward: one call each (none on the
      // last and the first stage respectively, which have no such neighbour).
      if (!last()) steps_.call({{true, true, 0, fmb}, {false, false, 0, i}});
      steps_.backward(0, i);
      if (i == remaining - 1) {
        send_backward(0, i);
      } else if (!first()) {
        steps_.call({{true, false, 0, i}, {false, true, 0, fmb + 1}});
      }
    }
    for (int i = 0; i < warmup; ++i) {
      const int mb = remaining + i;
      recv_backward(0, mb);
      steps_.backward(0, mb);
      send_backward(0, mb);
    }
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
      const int c = chunk_of_step(k, forward_step);
      const int mb = micro_batch_of_step(k);
      if (forward_step) {
        recv_forward(c, mb);
        steps_.forward(c, mb);
        send_forward(c, mb);
      } else {
        recv_backward(c, mb);
        steps_.backward(c, mb);
        send_backward(c, mb);
      }
    };
    for (int k = 0; k < warmup; ++k) step(k, true);
    for (int k = 0; k < total - warmup; ++k) {
      step(k + warmup, true);
      step(k, false);
    }
    for (int k = total - warmup; k < total; ++k) step(k, false);
  }

  /// The interleaved schedule's call: the activations of step `forward_out` to the next virtual
  /// stage, the input gradient of step `backward_out` to the previous one (-1: none, or nothing
  /// to send from the last / first virtual stage), and the next activations of chunk
  /// `recv_forward` and gradients of chunk `recv_backward` (-1: none). A chunk's messages
  /// arrive in micro-batch order: the j-th received is the j-th micro-batch's.
  void exchange(int forward_out, int backward_out, int recv_forward, int recv_backward) {
    std::vector<PipelineMessage> messages;
    if (recv_forward >= 0) messages.push_back({false, true, recv_forward, at(received_, 2 * recv_forward)++});
    if (recv_backward >= 0) {
      messages.push_back({false, false, recv_backward, at(received_, 2 * recv_backward + 1)++});
    }
    if (forward_out >= 0) {
      const int c = chunk_of_step(forward_out, true);
      if (!chunk(c).last()) messages.push_back({true, true, c, micro_batch_of_step(forward_out)});
    }
    if (backward_out >= 0) {
      const int c = chunk_of_step(backward_out, false);
      if (!chunk(c).first()) messages.push_back({true, false, c, micro_batch_of_step(backward_out)});
    }
    steps_.call(messages);
  }
  void forward_step(int k) { steps_.forward(chunk_of_step(k, true), micro_batch_of_step(k)); }
  void backward_step(int k) { steps_.backward(chunk_of_step(k, false), micro_batch_of_step(k)); }

  /// Megatron's default (no --overlap-p2p-communication), call by call: which chunk's tensors
  /// each exchange receives follows its recv_prev / recv_next rules (the first stage is
  /// pp - 1 steps ahead of the last).
  void interleaved_batched() {
    const int pp = par_.pp, v = par_.virtual_stages, total = par_.micro_batches * v;
    const int warmup = warmup_steps(), remaining = total - warmup;
    const bool all_warmup = warmup == total;
    received_.assign(static_cast<std::size_t>(2 * v), 0);
    if (!first()) exchange(-1, -1, 0, -1);  // recv_forward of chunk 0 before the loop
    for (int k = 0; k < warmup; ++k) {
      forward_step(k);
      const int next_chunk = chunk_of_step(k + 1, true);
      const bool recv_prev = !(first() && next_chunk == 0) && k != total - 1;
      if (k == warmup - 1 && !all_warmup) {  // send_forward_backward_recv_forward_backward
        exchange(k, -1, recv_prev ? next_chunk : -1, last() ? -1 : v - 1);
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
      if (first()) {
        next_forward = chunk_of_step(forward_k - (pp - 1), true);
        recv_prev = next_forward != v - 1;
        ++next_forward;
      } else {
        next_forward = chunk_of_step(forward_k + 1, true);
      }
      if (last()) {
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
    if (all_warmup && !last()) exchange(-1, -1, -1, v - 1);
    for (int k = remaining; k < total; ++k) {
      backward_step(k);
      const int next_chunk = chunk_of_step(k + 1, false);
      const bool recv_next = !(last() && next_chunk == v - 1) && k != total - 1;
      exchange(-1, k, -1, recv_next ? next_chunk : -1);  // send_backward_recv_backward
    }
  }

  const Parallelism& par_;
  int stage_;
  PipelineSteps& steps_;
  std::vector<int> received_;  ///< per chunk: activations (2 c) and gradients (2 c + 1) received
};

}  // namespace

void pipeline_order(const Parallelism& par, int stage, PipelineSteps& steps) { PipelineOrder(par, stage, steps).run(); }

}  // namespace ccsim::synth
