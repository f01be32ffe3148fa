#include "engine/critical_path_meetings.hpp"

#include <algorithm>
#include <cstddef>

#include <simgrid/s4u.hpp>

#include "engine/collective_plan.hpp"
#include "engine/collective_shortcuts.hpp"
#include "engine/simulation_state.hpp"
#include "core/index.hpp"

namespace ccsim::engine::detail {

CriticalPathMeetings::End CriticalPathMeetings::meet(int rank, int group, int sequence, const CollectivePlan& plan,
                                                     int group_rank, const std::vector<int>* stand_in) {
  auto [it, fresh] = meetings_.try_emplace(std::make_pair(group, sequence));
  Meeting& meeting = it->second;
  const auto size = as_index(plan.request.size);
  if (fresh) {
    std::size_t simulated = size;
    if (stand_in != nullptr) {
      simulated = 0;
      for (std::size_t i = 0; i < size; ++i) simulated += (*stand_in)[i] == static_cast<int>(i) ? 1 : 0;
    }
    meeting.barrier = sg4::Barrier::create(static_cast<unsigned>(simulated));
    meeting.starts_s.assign(size, 0.0);
    meeting.left = static_cast<int>(simulated);
  }
  at(meeting.starts_s, group_rank) = sg4::Engine::get_clock();
  meeting.barrier->wait();
  if (meeting.times.ends_s.empty()) {
    if (stand_in != nullptr) {
      for (std::size_t i = 0; i < size; ++i) meeting.starts_s[i] = at(meeting.starts_s, (*stand_in)[i]);
    }
    meeting.times = shortcuts_.times(plan, group, meeting.starts_s);
  }
  End end;
  end.own_s = end.end_s = end.earliest_s = at(meeting.times.ends_s, group_rank);
  if (stand_in != nullptr) {
    // The latest of the ranks it stands for (equal where the critical path treats them alike).
    for (std::size_t i = 0; i < size; ++i) {
      if ((*stand_in)[i] != group_rank) continue;
      end.end_s = std::max(end.end_s, meeting.times.ends_s[i]);
      end.earliest_s = std::min(end.earliest_s, meeting.times.ends_s[i]);
    }
  }
  // The waits the full replay would record, the first one (for the last rank to arrive) ending now.
  for (const collective::WaitInterval& w : at(meeting.times.waits, group_rank)) {
    sim_.waited(rank, w.from_s, w.to_s);
  }
  if (--meeting.left == 0) meetings_.erase(it);
  return end;
}

}  // namespace ccsim::engine::detail
