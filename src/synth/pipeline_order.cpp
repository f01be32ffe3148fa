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

  /// Megatron with --overlap-p2p-communication: each step's call is posted without its wait,
  /// and the wait comes just before the next step of the same direction (fwd_wait_handles
  /// before a forward, bwd_wait_handles before a backward), so the messages overlap the
  /// steps between; the warm-up's last step also posts the first gradient's receive. The
  /// receive before the loop and the cool-down's calls block, as in Megatron.
  void interleaved_overlapped() {
    const int v = par_.virtual_stages, total = par_.micro_batches * v;
    const int warmup = warmup_steps(), remaining = total - warmup;
    const bool all_warmup = warmup == total;
    received_.assign(static_cast<std::size_t>(2 * v), 0);
    if (!first()) exchange(-1, -1, 0, -1);  // recv_forward of chunk 0 before the loop
    int forward_handle = -1, backward_handle = -1;
    for (int k = 0; k < warmup; ++k) {
      steps_.wait(forward_handle);
      forward_step(k);
      const int next_chunk = chunk_of_step(k + 1, true);
      const bool recv_prev = !(first() && next_chunk == 0) && k != total - 1;
      forward_handle = steps_.post(messages(k, -1, recv_prev ? next_chunk : -1, -1));
      if (k == warmup - 1 && !all_warmup) backward_handle = steps_.post(messages(-1, -1, -1, last() ? -1 : v - 1));
    }
    for (int k = 0; k < remaining; ++k) {
      steps_.wait(forward_handle);
      forward_step(k + warmup);
      forward_handle = steps_.post(messages(k + warmup, -1, steady_recv_forward(k), -1));
      steps_.wait(backward_handle);
      backward_step(k);
      backward_handle = steps_.post(messages(-1, k, -1, steady_recv_backward(k)));
    }
    steps_.wait(backward_handle);
    cooldown();
  }

  /// The messages of one of the interleaved schedule's calls: the activations of step `forward_out` to the next virtual
  /// stage, the input gradient of step `backward_out` to the previous one (-1: none, or nothing
  /// to send from the last / first virtual stage), and the next activations of chunk
  /// `recv_forward` and gradients of chunk `recv_backward` (-1: none). A chunk's messages
  /// arrive in micro-batch order: the j-th received is the j-th micro-batch's.
  std::vector<PipelineMessage> messages(int forward_out, int backward_out, int recv_forward, int recv_backward) {
    std::vector<PipelineMessage> out;
    if (recv_forward >= 0) out.push_back({false, true, recv_forward, at(received_, 2 * recv_forward)++});
    if (recv_backward >= 0) out.push_back({false, false, recv_backward, at(received_, 2 * recv_backward + 1)++});
    if (forward_out >= 0) {
      const int c = chunk_of_step(forward_out, true);
      if (!chunk(c).last()) out.push_back({true, true, c, micro_batch_of_step(forward_out)});
    }
    if (backward_out >= 0) {
      const int c = chunk_of_step(backward_out, false);
      if (!chunk(c).first()) out.push_back({true, false, c, micro_batch_of_step(backward_out)});
    }
    return out;
  }
  void exchange(int forward_out, int backward_out, int recv_forward, int recv_backward) {
    steps_.call(messages(forward_out, backward_out, recv_forward, recv_backward));
  }
  void forward_step(int k) { steps_.forward(chunk_of_step(k, true), micro_batch_of_step(k)); }
  void backward_step(int k) { steps_.backward(chunk_of_step(k, false), micro_batch_of_step(k)); }

  /// Megatron's default (no --overlap-p2p-communication), call by call: which chunk's tensors
  /// each exchange receives follows its recv_prev / recv_next rules (the first stage is
  /// pp - 1 steps ahead of the last).
  void interleaved_batched() {
    const int v = par_.virtual_stages, total = par_.micro_batches * v;
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
      forward_step(k + warmup);
      backward_step(k);
      exchange(k + warmup, k, steady_recv_forward(k), steady_recv_backward(k));
    }
    cooldown();
  }

  /// The chunk whose activations the call after steady-state step k receives (Megatron's
  /// recv_prev: the first stage runs pp - 1 steps ahead of the last and receives nothing for
  /// chunk 0, the last call nothing), -1 for none.
  int steady_recv_forward(int k) const {
    const int pp = par_.pp, v = par_.virtual_stages;
    const int forward_k = k + warmup_steps();
    if (k == par_.micro_batches * v - warmup_steps() - 1) return -1;
    if (!first()) return chunk_of_step(forward_k + 1, true);
    const int next = chunk_of_step(forward_k - (pp - 1), true);
    return next == v - 1 ? -1 : next + 1;
  }
  /// The chunk whose gradients the call after steady-state step k receives (recv_next: the
  /// last stage receives none for its last chunk), -1 for none.
  int steady_recv_backward(int k) const {
    if (!last()) return chunk_of_step(k + 1, false);
    const int next = chunk_of_step(k - (par_.pp - 1), false);
    return next == 0 ? -1 : next - 1;
  }

  /// The cool-down's blocking calls (send_backward_recv_backward), after the recv_backward
  /// at the virtual stage of the last forward (chunk v - 1; none on the last stage) when every
  /// step was a warm-up one.
  void cooldown() {
    const int v = par_.virtual_stages, total = par_.micro_batches * v;
    const int remaining = total - warmup_steps();
    if (remaining == 0 && !last()) exchange(-1, -1, -1, v - 1);
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
