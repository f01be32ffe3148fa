#include "measure/real_executor.hpp"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace ccsim::measure {

using collective::Block;
using collective::RecvMode;
using collective::Step;

namespace {

bool overlap(const Block& a, const Block& b) {
  return a.count > 0 && b.count > 0 && a.offset < b.offset + b.count && b.offset < a.offset + a.count;
}

}  // namespace

RealExecutor::RealExecutor(Transport& transport, std::span<float> buffer, const compress::Codec* codec,
                           std::span<float> feedback)
    : transport_(transport), buffer_(buffer), codec_(codec), feedback_(feedback) {
  if (!feedback_.empty() && feedback_.size() != buffer_.size()) {
    throw std::invalid_argument("RealExecutor: the feedback residual must have the buffer's size");
  }
}

std::span<float> RealExecutor::block(const Block& block) const {
  if (block.offset + block.count > buffer_.size()) {
    throw std::logic_error(fmt::format("RealExecutor: block [{}, {}) outside a buffer of {} elements", block.offset,
                                       block.offset + block.count, buffer_.size()));
  }
  return buffer_.subspan(block.offset, block.count);
}

const compress::Codec& RealExecutor::codec(const char* use) const {
  if (codec_ == nullptr) throw std::logic_error(fmt::format("RealExecutor: {} step without a codec", use));
  return *codec_;
}

void RealExecutor::start_call() {
  stats_ = {};
  ++call_;
}

std::vector<std::byte>& RealExecutor::fresh(std::uint64_t offset) {
  Compressed& c = compressed_[offset];
  c.call = call_;
  return c.bytes;
}

const std::vector<std::byte>& RealExecutor::compressed(const Block& block, const char* use) const {
  auto it = compressed_.find(block.offset);
  if (it == compressed_.end() || it->second.call != call_) {
    throw std::logic_error(fmt::format(
        "RealExecutor: {} of compressed block at {} that was never compressed or received", use, block.offset));
  }
  return it->second.bytes;
}

void RealExecutor::start_exchange(int /*rank*/, const Step& step) {
  std::span<const std::byte> send;
  if (step.send_peer >= 0) {
    if (step.compressed) {
      const auto& stream = compressed(step.send, "send");
      if (codec("send").element_count(stream) != step.send.count) {
        throw std::logic_error(fmt::format("RealExecutor: compressed block at {} holds {} elements, the step sends {}",
                                           step.send.offset, codec("send").element_count(stream), step.send.count));
      }
      send = std::as_bytes(std::span<const std::byte>(stream));
    } else {
      send = std::as_bytes(block(step.send));
    }
    stats_.bytes_sent += send.size();
    stats_.raw_bytes_sent += step.send.count * sizeof(float);
    ++stats_.messages;
  }
  std::span<std::byte> recv;
  bool in_place = false;
  if (step.recv_peer >= 0) {
    const std::size_t capacity =
        step.compressed ? codec("receive").max_compressed_bytes(step.recv.count) : step.recv.count * sizeof(float);
    in_place =
        !step.compressed && step.mode == RecvMode::kCopy && !(step.send_peer >= 0 && overlap(step.send, step.recv));
    if (in_place) {
      recv = std::as_writable_bytes(block(step.recv));
    } else {
      if (received_.size() < capacity) received_.resize(capacity);
      recv = std::span<std::byte>(received_.data(), capacity);
    }
  }
  received_bytes_ = transport_.exchange(step.send_peer, send, step.recv_peer, recv);
  if (step.recv_peer < 0) return;
  if (step.compressed) {
    const auto stream = std::span<const std::byte>(received_.data(), received_bytes_);
    if (codec("receive").element_count(stream) != step.recv.count) {
      throw std::runtime_error(
          fmt::format("RealExecutor: received a compressed block of {} elements from rank {}, "
                      "expected {}",
                      codec("receive").element_count(stream), step.recv_peer, step.recv.count));
    }
    if (step.mode == RecvMode::kCopy) fresh(step.recv.offset).assign(stream.begin(), stream.end());
    return;
  }
  if (received_bytes_ != step.recv.count * sizeof(float)) {
    throw std::runtime_error(fmt::format("RealExecutor: received {} bytes from rank {}, expected {}", received_bytes_,
                                         step.recv_peer, step.recv.count * sizeof(float)));
  }
  // memcpy's pointers must not be null even for 0 bytes, and an empty block's may be.
  if (!in_place && step.mode == RecvMode::kCopy && received_bytes_ > 0) {
    std::memcpy(block(step.recv).data(), received_.data(), received_bytes_);
  }
}

bool RealExecutor::finish_exchange(int /*rank*/, const Step& /*step*/) { return true; }

void RealExecutor::reduce(int /*rank*/, const Step& step) {
  if (step.compressed) {
    const auto& mine = compressed(step.recv, "homomorphic add");
    codec("homomorphic add")
        .add_compressed(mine, std::span<const std::byte>(received_.data(), received_bytes_), scratch_bytes_);
    fresh(step.recv.offset).swap(scratch_bytes_);
    return;
  }
  std::span<float> target = block(step.recv);
  const auto* incoming = reinterpret_cast<const float*>(received_.data());
  for (std::size_t i = 0; i < target.size(); ++i) target[i] += incoming[i];
}

void RealExecutor::compress(int /*rank*/, const Step& step) {
  const compress::Codec& c = codec("compress");
  std::vector<std::byte>& out = fresh(step.local.offset);
  const std::span<float> in = block(step.local);
  if (feedback_.empty()) {
    c.compress(in, out);
  } else {
    compress::compress_with_feedback(c, in, feedback_.subspan(step.local.offset, step.local.count), out, scratch_);
  }
  ++stats_.compressions;
  stats_.compressed_input_bytes += in.size_bytes();
}

void RealExecutor::decompress(int /*rank*/, const Step& step) {
  const compress::Codec& c = codec("decompress");
  const auto& stream = compressed(step.local, "decompress");
  if (step.mode == RecvMode::kReduce) {
    c.decompress_add(stream, block(step.local));
  } else {
    c.decompress(stream, block(step.local));
  }
}

}  // namespace ccsim::measure
