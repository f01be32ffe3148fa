#pragma once

// Engine-internal (CollectiveRunner): the message-by-message replay of a collective call as
// events of SimGrid's kernel, without the members' actors.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include "collective/schedule.hpp"
#include "collective/step_driver.hpp"
#include "trace/trace.hpp"

namespace ccsim::engine {

struct CollectivePlan;

namespace detail {

class Simulation;
struct RankState;

/// Carries out the members' steps of collective calls message by message, as StepRunner does
/// through collective::run_rank, but from SimGrid's maestro (each member's RankCursor drives a
/// cooperative executor that queues what it asks for): every message (a host-to-host
/// communication) and every busy period (an execution on the member's host) is an activity
/// that the kernel starts when the member's previous one ends, and whose end the kernel
/// reports (s4u::Activity::on_completion). A member's actor posts its call and sleeps on a
/// semaphore until its last step ends; between, no context switch, simcall or mailbox per
/// message. The times are StepRunner's: a message starts once its sender has posted it (after
/// the send overhead) and its receiver has posted the receive, a rank's exchange ends when its
/// send and its receive have, then come the receive overhead and the reduction; a member's
/// RankState (step, peers, busy_with) and its operator's waits are kept as StepRunner keeps
/// them, so that a deadlock is explained the same way.
///
/// Applies where no message needs a bound of its own (a host-to-host communication has no
/// rate in SimGrid 3.32): Simulation::messages_uncapped(). One EventSteps per simulation.
class EventSteps {
 public:
  /// `seconds_per_reduced_byte`: as StepRunner's (step_busy_s); `speed`: the accelerator's FLOP/s.
  EventSteps(Simulation& sim, const trace::Trace& trace, double speed, double seconds_per_reduced_byte);
  ~EventSteps();
  /// Members' calls carried out so far (Result::event_calls).
  std::uint64_t calls_run() const { return calls_run_; }
  EventSteps(const EventSteps&) = delete;
  EventSteps& operator=(const EventSteps&) = delete;

  /// Runs group rank `group_rank`'s `steps` of call `sequence` of `group` (a plan of the group),
  /// for `rank`, whose calling lane has state `st`: returns once its last step has ended.
  /// `lone`: nothing else can run on the rank's accelerator during the call (its only rank, and
  /// no other stream of the rank can overlap the call), so that a busy period is a timer.
  void run(int rank, int group, int sequence, int group_rank, const CollectivePlan& plan,
           std::span<const collective::Step> steps, RankState& st, bool lone);

 private:
  struct Call;
  /// What a member does next, in order: the primitives that RankCursor asks of an executor,
  /// each carried out once the one before has ended (StepRunner's order in time).
  struct Action {
    enum class Kind : std::uint8_t { kBeginStep, kBusy, kSendOverhead, kPost };
    Kind kind;
    const collective::Step* step = nullptr;  ///< kSendOverhead, kPost
    double seconds = 0;                      ///< kBusy
    const char* what = nullptr;              ///< kBusy
  };
  struct Member {
    Call* call = nullptr;
    int index = -1;  ///< group rank
    int rank = -1;   ///< global rank, -1 until it arrives
    RankState* state = nullptr;
    simgrid::s4u::Host* host = nullptr;
    bool lone = false;  ///< run(): busy periods are timers
    simgrid::s4u::SemaphorePtr wake;
    std::optional<collective::RankCursor> cursor;  ///< its walk through its steps
    std::vector<Action> actions;                   ///< posted by the cursor, from `next_action` on
    std::size_t next_action = 0;
    bool running = false;                                  ///< a busy period or the exchange is in progress
    const collective::Step* exchange = nullptr;            ///< the exchange posted, until it ends
    bool exchange_ended = false;                           ///< ... and ended, for the cursor's finish_exchange
    int open = 0;                                          ///< parts (send, receive) of the exchange not yet ended
    bool send_waiting = false;                             ///< its send is posted, its receiver's receive not yet
    bool recv_waiting = false;                             ///< its receive is posted, its sender's send not yet
    double posted_s = 0;                                   ///< when the exchange was posted
    std::array<std::pair<double, double>, 2> transfers{};  ///< of the exchange
    std::size_t transfer_count = 0;
    simgrid::s4u::ActivityPtr send;  ///< its message in flight
    simgrid::s4u::ActivityPtr busy;  ///< its busy period in progress
    bool done = false;
  };
  struct Call {
    const CollectivePlan* plan = nullptr;
    int group = -1;
    std::uint64_t key = 0;  ///< in calls_
    std::vector<Member> members;
    int finished = 0;
  };
  class Driver;

  /// Every activity of this class carries its member as its data: `send` or `busy`.
  static void on_completion(const simgrid::s4u::Activity& activity);
  void completed(Member& m, const simgrid::s4u::Activity& activity);
  /// The end of a busy period of a lone member (a timer).
  void busy_ended(Member& m);
  /// `m` goes on (resume) once the kernel has reported every activity that ends now.
  void go_on(Member& m);
  void go_on_ready();
  /// `m`'s busy period or exchange ended: the cursor goes on, then the actions it posted.
  void resume(Member& m);
  /// Lets `m`'s cursor post its actions up to an exchange that has not ended.
  void advance(Member& m);
  /// Carries out `m`'s actions until one is in progress; finishes `m` once its cursor and
  /// actions are done.
  void drain(Member& m);
  /// Starts a busy period of `m` (false when it takes no time: nothing started).
  bool start_busy(Member& m, double seconds, const char* what);
  void post_exchange(Member& m, const collective::Step& s);
  void start_message(Member& from, Member& to);
  /// The exchange of `m` ended: its waits, its peers in RankState cleared, and the receive
  /// overhead next.
  void end_exchange(Member& m);
  void finish(Member& m);
  void erase_ended_calls();
  int global(const Member& m, int group_rank) const;

  Simulation& sim_;
  const trace::Trace& trace_;
  double speed_;
  double seconds_per_reduced_byte_;
  /// Calls in progress, by (group, sequence).
  std::unordered_map<std::uint64_t, std::unique_ptr<Call>> calls_;
  std::vector<std::uint64_t> ended_calls_;  ///< to erase once the kernel's report is handled
  std::vector<Member*> ready_;              ///< go_on(), in order
  std::vector<Member*> going_;              ///< go_on_ready()'s
  /// Activities that ended, kept until the kernel is done with them (the next report).
  std::vector<simgrid::s4u::ActivityPtr> ended_;
  std::uint64_t calls_run_ = 0;
};

}  // namespace detail
}  // namespace ccsim::engine
