#include "synth/stage_program.hpp"

#include <cmath>

namespace ccsim::synth {

void StageProgram::start(trace::Program& program) {
  program_ = &program;
  join_.clear();
}

void StageProgram::compute(const std::string& name, const std::string& label, double flops, double bytes,
                           const GemmShape& gemm) {
  trace::Op op;
  op.kind = trace::OpKind::kCompute;
  op.name = trace_.names.intern(name);
  op.label = trace_.names.intern(label);
  op.flops = flops;
  op.bytes = static_cast<std::uint64_t>(std::llround(bytes));
  if (gemm.m > 0) op.gemm = trace_.intern_gemm(gemm);
  add(op);
}

void StageProgram::collective(trace::OpKind kind, trace::GroupKind group, std::uint64_t bytes, DType dtype,
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

void StageProgram::p2p(trace::OpKind kind, int offset, const std::string& tag, const std::string& label,
                       std::uint64_t bytes, DType dtype) {
  trace::Op op;
  op.kind = kind;
  op.name = trace_.names.intern(trace::op_kind_name(kind));
  op.label = trace_.names.intern(label);
  op.tag = trace_.names.intern(tag);
  op.relative = trace::kPeerInGroup;
  op.peer_kind = trace::GroupKind::kPipeline;
  op.peer = offset;
  op.bytes = bytes;
  op.dtype = dtype;
  add(op);
}

void StageProgram::then_on(std::uint8_t stream, std::vector<std::uint32_t> after) {
  stream_ = stream;
  after_ = std::move(after);
}

void StageProgram::add(trace::Op op) {
  op.stream = stream_;
  if (stream_ == 0 && !join_.empty()) {  // the main stream waits for the last call's messages
    after_.insert(after_.end(), join_.begin(), join_.end());
    join_.clear();
  }
  program_->add(op, after_);
  if (stream_ == 0) last_main_op_ = last_op();
  stream_ = 0;
  after_.clear();
}

}  // namespace ccsim::synth
