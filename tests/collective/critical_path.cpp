#include "critical_path.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

namespace ccsim::collective::testing {
namespace {

/// Post times of the sends and receives between one ordered pair, matched in FIFO order.
struct Channel {
  std::vector<double> sends;
  std::vector<double> recvs;
};

}  // namespace

double critical_path_s(const Schedule& schedule, const CostParams& params, const LinkModel& link) {
  const int p = schedule.size();
  const auto element_bytes = static_cast<std::uint64_t>(schedule.element_bytes());
  const auto& codec = params.compressor;
  auto link_of = [&](int from, int to) {
    return link ? link(from, to) : LinkCost{params.alpha_s, params.beta_s_per_byte};
  };
  auto transfer_s = [&](int from, int to, const Block& block, bool compressed) {
    const std::uint64_t raw = block.count * element_bytes;
    const LinkCost cost = link_of(from, to);
    return cost.alpha_s + static_cast<double>(compressed ? codec.wire_bytes(raw) : raw) * cost.beta_s_per_byte;
  };

  std::vector<std::vector<Step>> steps;
  for (int r = 0; r < p; ++r) steps.push_back(schedule.steps(r));
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<double> clock(static_cast<std::size_t>(p), 0.0);
  std::vector<bool> posted(static_cast<std::size_t>(p), false);
  std::vector<std::size_t> send_index(static_cast<std::size_t>(p)), recv_index(static_cast<std::size_t>(p));
  std::map<std::pair<int, int>, Channel> channels;

  bool progress = true;
  while (progress) {
    progress = false;
    for (int r = 0; r < p; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      while (next[ur] < steps[ur].size()) {
        const Step& step = steps[ur][next[ur]];
        const double raw = static_cast<double>((step.kind == StepKind::kExchange ? step.recv : step.local).count *
                                               element_bytes);
        if (step.kind == StepKind::kCompress) {
          clock[ur] += codec.compress_s(raw);
        } else if (step.kind == StepKind::kDecompress) {
          clock[ur] += codec.decompress_s(raw) + (step.mode == RecvMode::kReduce ? raw * params.gamma_s_per_byte : 0);
        } else {
          if (!posted[ur]) {
            if (step.send_peer >= 0) {
              auto& sends = channels[{r, step.send_peer}].sends;
              send_index[ur] = sends.size();
              sends.push_back(clock[ur]);
            }
            if (step.recv_peer >= 0) {
              auto& recvs = channels[{step.recv_peer, r}].recvs;
              recv_index[ur] = recvs.size();
              recvs.push_back(clock[ur]);
            }
            posted[ur] = true;
            progress = true;
          }
          double end = clock[ur];
          if (step.send_peer >= 0) {
            const auto& recvs = channels[{r, step.send_peer}].recvs;
            if (recvs.size() <= send_index[ur]) break;
            end = std::max(end, std::max(clock[ur], recvs[send_index[ur]]) +
                                    transfer_s(r, step.send_peer, step.send, step.compressed));
          }
          if (step.recv_peer >= 0) {
            const auto& sends = channels[{step.recv_peer, r}].sends;
            if (sends.size() <= recv_index[ur]) break;
            end = std::max(end, std::max(clock[ur], sends[recv_index[ur]]) +
                                    transfer_s(step.recv_peer, r, step.recv, step.compressed));
            if (step.mode == RecvMode::kReduce) end += step.compressed ? codec.add_s(raw) : raw * params.gamma_s_per_byte;
          }
          clock[ur] = end;
          posted[ur] = false;
        }
        ++next[ur];
        progress = true;
      }
    }
  }
  for (int r = 0; r < p; ++r) {
    if (next[static_cast<std::size_t>(r)] < steps[static_cast<std::size_t>(r)].size()) {
      throw std::logic_error("critical_path_s: the schedule deadlocks");
    }
  }
  return p == 0 ? 0.0 : *std::max_element(clock.begin(), clock.end());
}

}  // namespace ccsim::collective::testing
