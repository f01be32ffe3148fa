#include "engine/event_steps.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <simgrid/simix.hpp>

#include "engine/collective_plan.hpp"
#include "engine/collective_runner.hpp"
#include "engine/simulation_state.hpp"
#include "core/index.hpp"

namespace ccsim::engine::detail {

namespace {

/// The simulation whose EventSteps the kernel's reports go to (one SimGrid engine per process).
EventSteps* current = nullptr;

}  // namespace

EventSteps::EventSteps(Simulation& sim, const trace::Trace& trace, double speed, double seconds_per_reduced_byte)
    : sim_(sim), trace_(trace), speed_(speed), seconds_per_reduced_byte_(seconds_per_reduced_byte) {
  // SimGrid's signal cannot be disconnected: connected once per process, it reports to the
  // simulation in progress.
  static const bool connected = [] {
    sg4::Activity::on_completion_cb(&EventSteps::on_completion);
    // What holds SimGrid objects goes before the engine does (calls left by a deadlock too).
    sg4::Engine::on_simulation_end_cb([] {
      if (current == nullptr) return;
      current->ended_.clear();
      current->calls_.clear();
    });
    return true;
  }();
  (void)connected;
  if (current != nullptr) throw std::logic_error("EventSteps: two simulations at once");
  current = this;
}

EventSteps::~EventSteps() { current = nullptr; }

void EventSteps::on_completion(const sg4::Activity& activity) {
  // Every activity that the kernel started or an actor waited for ends here; ours carry their
  // member.
  if (current == nullptr) return;
  Member* m = activity.get_data<Member>();
  if (m != nullptr) current->completed(*m, activity);
}

int EventSteps::global(const Member& m, int group_rank) const {
  return at(at(trace_.groups, m.call->group).ranks, group_rank);
}

void EventSteps::run(int rank, int group, int sequence, int group_rank, const CollectivePlan& plan,
                     std::span<const collective::Step> steps, RankState& st, bool lone) {
  sg4::SemaphorePtr wake = sg4::Semaphore::create(0);
  sg4::Host* host = sg4::this_actor::get_host();
  simgrid::kernel::actor::simcall_answered([&] {
    // In the kernel, so that what this starts is the kernel's and reports its end.
    const std::uint64_t key =
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(group)) << 32 | static_cast<std::uint32_t>(sequence);
    auto [it, fresh] = calls_.try_emplace(key);
    if (fresh) {
      it->second = std::make_unique<Call>();
      Call& call = *it->second;
      call.plan = &plan;
      call.group = group;
      call.key = key;
      call.members.resize(at(trace_.groups, group).ranks.size());
      for (std::size_t i = 0; i < call.members.size(); ++i) {
        call.members[i].call = &call;
        call.members[i].index = static_cast<int>(i);
      }
    }
    Member& m = at(it->second->members, group_rank);
    m.rank = rank;
    m.state = &st;
    m.host = host;
    m.lone = lone;
    m.wake = wake;
    m.steps = steps;
    proceed(m);
    erase_ended_calls();
  });
  wake->acquire();
}

void EventSteps::completed(Member& m, const sg4::Activity& activity) {
  // The kernel is done with the activities of earlier reports, not yet with this one.
  ended_.clear();
  if (&activity == m.send.get()) {
    Member& to = at(m.call->members, step(m).send_peer);
    const std::pair<double, double> transfer{activity.get_start_time(), activity.get_finish_time()};
    ended_.push_back(std::move(m.send));
    for (Member* x : {&m, &to}) {
      x->transfers.at(x->transfer_count++) = transfer;
      if (--x->open == 0) go_on(*x);
    }
  } else {
    ended_.push_back(std::move(m.busy));
    m.state->busy_with = nullptr;
    go_on(m);
  }
}

void EventSteps::go_on(Member& m) {
  // The members whose activities end at one instant go on together once the kernel has
  // reported all those ends: it removes each ended communication from a list of those in
  // flight, which new ones would lengthen (SimGrid 3.32 scans the list: half the replay's time
  // with a thousand members in flight).
  ready_.push_back(&m);
  if (ready_.size() == 1) simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock(), [this] { go_on_ready(); });
}

void EventSteps::go_on_ready() {
  ended_.clear();
  std::swap(ready_, going_);
  for (Member* m : going_) proceed(*m);
  going_.clear();
  erase_ended_calls();
}

void EventSteps::busy_ended(Member& m) {
  ended_.clear();
  m.state->busy_with = nullptr;
  proceed(m);
  erase_ended_calls();
}

void EventSteps::erase_ended_calls() {
  for (std::uint64_t key : ended_calls_) calls_.erase(key);
  ended_calls_.clear();
}

bool EventSteps::start_busy(Member& m, double seconds, const char* what) {
  if (seconds <= 0) return false;  // NaN goes on, to be reported
  if (!std::isfinite(seconds * speed_)) {
    // As Simulation::busy: skipped, and reported once the simulation is over.
    sim_.not_finite(m.rank, m.state->op, fmt::format("{} for {:g} s", what, seconds));
    return false;
  }
  m.state->busy_with = what;
  m.state->busy_s = seconds;
  if (m.lone) {
    // Nobody else runs on the accelerator meanwhile: its time is known, and a timer costs the
    // kernel far less than an execution.
    simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock() + seconds, [this, &m] { busy_ended(m); });
    return true;
  }
  sg4::ExecPtr exec = sg4::Exec::init();
  exec->set_flops_amount(seconds * speed_);
  exec->set_host(m.host);
  exec->set_data(&m);
  exec->start();
  m.busy = exec;
  return true;
}

void EventSteps::proceed(Member& m) {
  const CollectivePlan& plan = *m.call->plan;
  for (;;) {
    switch (m.phase) {
      case Phase::kStart: {
        if (m.next == m.steps.size()) {
          finish(m);
          return;
        }
        const collective::Step& s = step(m);
        ++m.state->step;
        if (s.kind != collective::StepKind::kExchange) {
          m.phase = Phase::kCodec;
          const char* what = s.kind == collective::StepKind::kCompress ? "compressing" : "decompressing";
          if (start_busy(m, step_busy_s(plan, s, seconds_per_reduced_byte_), what)) return;
          break;
        }
        m.phase = Phase::kSendOverhead;
        if (s.send_peer >= 0) {
          m.state->send_peer = global(m, s.send_peer);
          if (start_busy(m, sim_.send_overhead_s(m.rank, m.state->send_peer), "sending")) return;
        }
        break;
      }
      case Phase::kSendOverhead:
        m.phase = Phase::kExchange;
        post_exchange(m);
        if (m.open > 0) return;
        break;
      case Phase::kExchange: {
        exchange_ended(m);
        m.phase = Phase::kRecvOverhead;
        const collective::Step& s = step(m);
        if (s.recv_peer >= 0 && start_busy(m, sim_.recv_overhead_s(m.rank, global(m, s.recv_peer)), "receiving"))
          return;
        break;
      }
      case Phase::kRecvOverhead: {
        m.phase = Phase::kReduce;
        const collective::Step& s = step(m);
        if (s.recv_peer >= 0 && s.mode == collective::RecvMode::kReduce &&
            start_busy(m, step_busy_s(plan, s, seconds_per_reduced_byte_), "reducing"))
          return;
        break;
      }
      case Phase::kReduce:
      case Phase::kCodec:
        ++m.next;
        m.phase = Phase::kStart;
        break;
      case Phase::kDone:
        return;
    }
  }
}

void EventSteps::post_exchange(Member& m) {
  const collective::Step& s = step(m);
  m.posted_s = sg4::Engine::get_clock();
  m.transfer_count = 0;
  m.open = 0;
  if (s.send_peer >= 0) {
    ++m.open;
    Member& to = at(m.call->members, s.send_peer);
    // Messages between two members are matched in order (Channels): the receiver's receive in
    // progress is from this member only if it is this message's (both ended all before).
    if (to.recv_waiting && step(to).recv_peer == m.index) {
      start_message(m, to);
    } else {
      m.send_waiting = true;
    }
  }
  if (s.recv_peer >= 0) {
    ++m.open;
    m.state->recv_peer = global(m, s.recv_peer);
    Member& from = at(m.call->members, s.recv_peer);
    if (from.send_waiting && step(from).send_peer == m.index) {
      start_message(from, m);
    } else {
      m.recv_waiting = true;
    }
  }
}

void EventSteps::start_message(Member& from, Member& to) {
  from.send_waiting = false;
  to.recv_waiting = false;
  // The payload size is set before start(): a host-to-host communication of 0 bytes does not
  // start by itself.
  sg4::CommPtr comm = sg4::Comm::sendto_init(from.host, to.host);
  comm->set_payload_size(wire_bytes(*from.call->plan, step(from)));
  comm->set_data(&from);
  comm->start();
  from.send = comm;
}

void EventSteps::exchange_ended(Member& m) {
  sim_.waited_for(m.rank, m.state->op, m.posted_s, std::span(m.transfers.data(), m.transfer_count));
  m.state->send_peer = m.state->recv_peer = -1;
}

void EventSteps::finish(Member& m) {
  ++calls_run_;
  m.phase = Phase::kDone;
  m.wake->release();
  Call& call = *m.call;
  if (++call.finished == static_cast<int>(call.members.size())) {
    ended_calls_.push_back(call.key);
  }
}

}  // namespace ccsim::engine::detail
