#pragma once

// Engine-internal (Simulation): the progress line of a replay.

#include <cstdint>

#include "core/progress.hpp"
#include "engine/stream_lanes.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine::detail {

/// The progress line of a replay (ReplayOptions::progress, core/progress.hpp): at every
/// kEvery-th operator started, the share of all ranks' operators that their lanes have passed
/// (StreamLanes::passed). Any actor may tick it: it reads every rank's lanes, not the caller's.
class ReplayProgress {
 public:
  static constexpr std::uint64_t kEvery = 4096;
  ReplayProgress(const trace::Trace& trace, const StreamLanes& lanes);
  /// An operator (or a fused run of them) starts.
  void tick();

 private:
  const trace::Trace& trace_;
  const StreamLanes& lanes_;
  Progress line_;
  std::uint64_t ticks_ = 0;
  std::uint64_t total_ops_ = 0;
};

}  // namespace ccsim::engine::detail
