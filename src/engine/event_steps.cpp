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
    m.cursor.emplace(steps, group_rank);
    advance(m);
    drain(m);
    erase_ended_calls();
  });
  wake->acquire();
}

void EventSteps::completed(Member& m, const sg4::Activity& activity) {
  // The kernel is done with the activities of earlier reports, not yet with this one.
  ended_.clear();
  if (&activity == m.send.get()) {
    Member& to = at(m.call->members, m.exchange->send_peer);
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
  for (Member* m : going_) resume(*m);
  going_.clear();
  erase_ended_calls();
}

void EventSteps::busy_ended(Member& m) {
  ended_.clear();
  m.state->busy_with = nullptr;
  resume(m);
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

/// The cooperative StepExecutor of one member: queues what its RankCursor asks for, which
/// EventSteps::drain carries out in order; an exchange has finished once it has ended.
class EventSteps::Driver final : public collective::StepExecutor {
 public:
  Driver(EventSteps& events, Member& m) : events_(events), m_(m) {}

  void start_exchange(int, const collective::Step& step) override {
    post({Action::Kind::kBeginStep});
    if (step.send_peer >= 0) post({Action::Kind::kSendOverhead, &step});
    post({Action::Kind::kPost, &step});
  }
  bool finish_exchange(int, const collective::Step&) override {
    if (!m_.exchange_ended) return false;
    m_.exchange_ended = false;
    return true;
  }
  void reduce(int, const collective::Step& step) override { busy(step, "reducing"); }
  void compress(int, const collective::Step& step) override {
    post({Action::Kind::kBeginStep});
    busy(step, "compressing");
  }
  void decompress(int, const collective::Step& step) override {
    post({Action::Kind::kBeginStep});
    busy(step, "decompressing");
  }

 private:
  void post(Action action) { m_.actions.push_back(action); }
  void busy(const collective::Step& step, const char* what) {
    post({Action::Kind::kBusy, nullptr, step_busy_s(*m_.call->plan, step, events_.seconds_per_reduced_byte_), what});
  }

  EventSteps& events_;
  Member& m_;
};

void EventSteps::advance(Member& m) {
  Driver driver(*this, m);
  m.cursor->advance(driver);
}

void EventSteps::resume(Member& m) {
  m.running = false;
  if (m.exchange != nullptr && m.open == 0) {
    end_exchange(m);
    advance(m);
  }
  drain(m);
}

void EventSteps::drain(Member& m) {
  while (!m.running && m.next_action < m.actions.size()) {
    const Action a = m.actions[m.next_action++];
    switch (a.kind) {
      case Action::Kind::kBeginStep:
        ++m.state->step;
        break;
      case Action::Kind::kBusy:
        m.running = start_busy(m, a.seconds, a.what);
        break;
      case Action::Kind::kSendOverhead:
        m.state->send_peer = global(m, a.step->send_peer);
        m.running = start_busy(m, sim_.send_overhead_s(m.rank, m.state->send_peer), "sending");
        break;
      case Action::Kind::kPost:
        post_exchange(m, *a.step);
        m.running = m.open > 0;
        if (!m.running) {  // nothing to exchange
          end_exchange(m);
          advance(m);
        }
        break;
    }
  }
  if (m.next_action == m.actions.size()) {  // all carried out (or the one in progress last)
    m.actions.clear();
    m.next_action = 0;
  }
  if (!m.running && !m.done && m.cursor->done()) finish(m);
}

void EventSteps::post_exchange(Member& m, const collective::Step& s) {
  m.exchange = &s;
  m.posted_s = sg4::Engine::get_clock();
  m.transfer_count = 0;
  m.open = 0;
  if (s.send_peer >= 0) {
    ++m.open;
    Member& to = at(m.call->members, s.send_peer);
    // Messages between two members are matched in order (Channels): the receiver's receive in
    // progress is from this member only if it is this message's (both ended all before).
    if (to.recv_waiting && to.exchange->recv_peer == m.index) {
      start_message(m, to);
    } else {
      m.send_waiting = true;
    }
  }
  if (s.recv_peer >= 0) {
    ++m.open;
    m.state->recv_peer = global(m, s.recv_peer);
    Member& from = at(m.call->members, s.recv_peer);
    if (from.send_waiting && from.exchange->send_peer == m.index) {
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
  comm->set_payload_size(wire_bytes(*from.call->plan, *from.exchange));
  comm->set_data(&from);
  comm->start();
  from.send = comm;
}

void EventSteps::end_exchange(Member& m) {
  const collective::Step& s = *m.exchange;
  m.exchange = nullptr;
  m.exchange_ended = true;
  sim_.waited_for(m.rank, m.state->op, m.posted_s, std::span(m.transfers.data(), m.transfer_count));
  m.state->send_peer = m.state->recv_peer = -1;
  // Before what the cursor posts once it learns that the exchange has ended (the reduction of
  // what arrived): it posted nothing after the exchange.
  if (s.recv_peer >= 0) {
    m.actions.push_back(
        {Action::Kind::kBusy, nullptr, sim_.recv_overhead_s(m.rank, global(m, s.recv_peer)), "receiving"});
  }
}

void EventSteps::finish(Member& m) {
  ++calls_run_;
  m.done = true;
  m.wake->release();
  Call& call = *m.call;
  if (++call.finished == static_cast<int>(call.members.size())) {
    ended_calls_.push_back(call.key);
  }
}

}  // namespace ccsim::engine::detail
