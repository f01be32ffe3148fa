#include "engine/replay_progress.hpp"

namespace ccsim::engine::detail {

ReplayProgress::ReplayProgress(const trace::Trace& trace, const StreamLanes& lanes)
    : trace_(trace), lanes_(lanes), line_("replay", true) {
  for (int r = 0; r < trace.world_size; ++r) total_ops_ += trace.program_ops(r).size();
}

void ReplayProgress::tick() {
  if (++ticks_ % kEvery != 0 || total_ops_ == 0) return;
  std::uint64_t passed = 0;
  for (int r = 0; r < trace_.world_size; ++r) passed += lanes_.passed(r);
  line_.update(static_cast<double>(passed) / static_cast<double>(total_ops_));
}

}  // namespace ccsim::engine::detail
