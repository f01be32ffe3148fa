#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.hpp"

namespace ccsim::synth {

/// The streams of a synthesised stage's program besides the main one (0), which runs its
/// computation and its blocking communication.
inline constexpr std::uint8_t kGradStream = 1;          ///< gradient buckets
inline constexpr std::uint8_t kForwardSendStream = 2;   ///< interleaved: activations to the next chunk
inline constexpr std::uint8_t kBackwardSendStream = 3;  ///< interleaved: gradients to the previous chunk
inline constexpr std::uint8_t kGradRecvStream = 4;      ///< interleaved: gradients received with activations
inline constexpr std::uint8_t kActRecvStream = 5;       ///< interleaved, overlapped: activations received

/// One pipeline stage's program as the Megatron builder writes it, operator by operator, with
/// names interned in the trace. Each operator goes on the main stream with no dependency,
/// unless then_on() placed the next one; the first operator of the main stream after a call
/// of messages (join()) also waits for the call's operators off the main stream. Collectives
/// name the rank's own group of a kind, transfers a peer by its offset in the pipeline group:
/// the program is shared by every rank of the stage.
class StageProgram {
 public:
  explicit StageProgram(trace::Trace& trace) : trace_(trace) {}

  /// Writes to `program` from now on; a join left by the previous program is dropped.
  void start(trace::Program& program);

  void compute(const std::string& name, const std::string& label, double flops, double bytes,
               const GemmShape& gemm = GemmShape{0, 0, 0, 1});
  /// A collective on the rank's own group of `group` kind.
  void collective(trace::OpKind kind, trace::GroupKind group, std::uint64_t bytes, DType dtype,
                  const std::string& label);
  /// A transfer with the rank `offset` stages away in its pipeline group.
  void p2p(trace::OpKind kind, int offset, const std::string& tag, const std::string& label, std::uint64_t bytes,
           DType dtype);

  /// The next operator runs on `stream`, after the operators `after` (then the main stream
  /// with no dependency again).
  void then_on(std::uint8_t stream, std::vector<std::uint32_t> after);
  /// The next operator of the main stream waits for `ops` too (a call's messages off it).
  void join(std::vector<std::uint32_t> ops) { join_ = std::move(ops); }
  /// The next operator of the main stream waits for `ops` too, besides what it waited for
  /// already (a posted call's messages, waited later).
  void wait_for(const std::vector<std::uint32_t>& ops) { join_.insert(join_.end(), ops.begin(), ops.end()); }

  /// The index of the last operator written, and of the last on the main stream.
  std::uint32_t last_op() const { return static_cast<std::uint32_t>(program_->ops.size() - 1); }
  std::uint32_t last_main_op() const { return last_main_op_; }

 private:
  void add(trace::Op op);

  trace::Trace& trace_;
  trace::Program* program_ = nullptr;
  std::uint8_t stream_ = 0;           ///< the next operator's stream
  std::vector<std::uint32_t> after_;  ///< ... and the operators it is after
  std::uint32_t last_main_op_ = 0;    ///< the last operator on the main stream
  std::vector<std::uint32_t> join_;   ///< the last call's operators off the main stream
};

}  // namespace ccsim::synth
