#include "collective/schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace ccsim::collective {

Schedule::Schedule(int size, std::uint64_t count, int element_bytes)
    : size_(size), count_(count), element_bytes_(element_bytes) {
  if (size < 1) throw std::invalid_argument("Schedule: a group has at least one rank");
  if (element_bytes < 1) throw std::invalid_argument("Schedule: elements have at least one byte");
}

Block Schedule::chunk(int i, int parts) const {
  auto p = static_cast<std::uint64_t>(parts);
  auto index = static_cast<std::uint64_t>(i);
  std::uint64_t base = count_ / p;
  std::uint64_t extra = count_ % p;
  std::uint64_t offset = index * base + std::min(index, extra);
  return Block{offset, base + (index < extra ? 1 : 0)};
}

std::vector<int> Schedule::send_peers(int rank) const { return send_peers_of(steps(rank)); }

std::vector<int> send_peers_of(const std::vector<Step>& steps) {
  // Once each, in order of first use; a pairwise all-to-all has a peer per step.
  std::vector<int> peers;
  std::vector<char> seen;
  for (const Step& step : steps) {
    if (step.kind != StepKind::kExchange || step.send_peer < 0) continue;
    const auto peer = static_cast<std::size_t>(step.send_peer);
    if (peer >= seen.size()) seen.resize(peer + 1, 0);
    if (seen[peer] != 0) continue;
    seen[peer] = 1;
    peers.push_back(step.send_peer);
  }
  return peers;
}

Step exchange(int send_peer, Block send, int recv_peer, Block recv, RecvMode mode, bool compressed) {
  Step step;
  step.kind = StepKind::kExchange;
  step.send_peer = send_peer;
  step.send = send;
  step.recv_peer = recv_peer;
  step.recv = recv;
  step.mode = mode;
  step.compressed = compressed;
  return step;
}

Step send_only(int peer, Block block, bool compressed) {
  return exchange(peer, block, -1, Block{}, RecvMode::kCopy, compressed);
}

Step recv_only(int peer, Block block, RecvMode mode, bool compressed) {
  return exchange(-1, Block{}, peer, block, mode, compressed);
}

Step compress_block(Block block) {
  Step step;
  step.kind = StepKind::kCompress;
  step.local = block;
  return step;
}

Step decompress_block(Block block, RecvMode mode) {
  Step step;
  step.kind = StepKind::kDecompress;
  step.local = block;
  step.mode = mode;
  return step;
}

}  // namespace ccsim::collective
