#include "engine/collective_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <simgrid/s4u.hpp>
#include <simgrid/s4u/Barrier.hpp>

#include "collective/step_driver.hpp"
#include "engine/coarse_rings.hpp"
#include "engine/collective_plan.hpp"
#include "engine/collective_shortcuts.hpp"
#include "engine/critical_path_meetings.hpp"
#include "engine/event_steps.hpp"
#include "engine/mirror_collectives.hpp"
#include "engine/replica_fold.hpp"
#include "engine/simulation_state.hpp"
#include "core/index.hpp"

// The collective operators of a simulation: CollectiveRunner, the engine's StepExecutor, which
// carries out a rank's steps of a schedule in simulated time, and what a step costs
// (step_busy_s, wire_bytes); with Simulation's mailboxes (channel).

namespace ccsim::engine::detail {

/// The engine's blocking StepExecutor: carries out one rank's steps of one collective in
/// simulated time through Simulation's public interface (messages, busy time, waits), keeping
/// the rank's RankState current for explain_deadlock().
class StepRunner final : public collective::StepExecutor {
 public:
  /// `mirror`: every message goes from the rank to itself (MirrorCollectives), through its
  /// mailbox, or to `mirror_to` where given (a host-to-host message along a pair mirror,
  /// GraphZone::set_pair_mirror; no bound of its own can bind it). `lone`: nothing else can
  /// execute on the rank's accelerator meanwhile (Simulation::busy's `alone`).
  StepRunner(Simulation& sim, int rank, int group_index, const trace::Group& group, const CollectivePlan& plan,
             double seconds_per_reduced_byte, bool mirror, bool lone, sg4::Host* mirror_to = nullptr)
      : sim_(sim),
        rank_(rank),
        group_index_(group_index),
        group_(group),
        plan_(plan),
        seconds_per_reduced_byte_(seconds_per_reduced_byte),
        mirror_(mirror),
        lone_(lone),
        mirror_to_(mirror_to),
        state_(sim.state(rank)) {}

  void start_exchange(int, const collective::Step& step) override {
    ++state_.step;
    posted_s_ = sg4::Engine::get_clock();  // the send overhead below is busy time, not wait

    if (mirror_to_ != nullptr) {  // the step's message is the one it receives: one transfer
      state_.send_peer = state_.recv_peer = rank_;
      send_ = sg4::Comm::sendto_init(sg4::this_actor::get_host(), mirror_to_);
      send_->set_payload_size(wire_bytes(plan_, step));  // before start(), as EventSteps does
      send_->start();
      return;
    }
    if (step.send_peer >= 0) {
      state_.send_peer = mirror_ ? rank_ : at(group_.ranks, step.send_peer);
      sim_.send_overhead(rank_, state_.send_peer);
      posted_s_ = sg4::Engine::get_clock();
      send_ = sim_.post_send(sim_.channels().get(Channels::kCollective, group_index_, rank_, state_.send_peer), rank_,
                             state_.send_peer, wire_bytes(plan_, step));
    }
    if (step.recv_peer >= 0) {
      state_.recv_peer = mirror_ ? rank_ : at(group_.ranks, step.recv_peer);
      recv_ =
          sim_.channels().get(Channels::kCollective, group_index_, state_.recv_peer, rank_)->get_async<int>(&received_);
    }
  }

  bool finish_exchange(int, const collective::Step&) override {
    if (send_) send_->wait();
    if (recv_) recv_->wait();
    sim_.waited_for(rank_, posted_s_, {send_.get(), recv_.get()});
    const int received_from = recv_ ? state_.recv_peer : -1;
    send_ = recv_ = nullptr;
    state_.send_peer = state_.recv_peer = -1;
    if (received_from >= 0) sim_.recv_overhead(rank_, received_from);
    return true;
  }

  void reduce(int, const collective::Step& step) override {
    sim_.busy(rank_, step_busy_s(plan_, step, seconds_per_reduced_byte_), "reducing", nullptr, lone_);
  }

  void compress(int, const collective::Step& step) override {
    ++state_.step;
    sim_.busy(rank_, step_busy_s(plan_, step, seconds_per_reduced_byte_), "compressing", nullptr, lone_);
  }

  void decompress(int, const collective::Step& step) override {
    ++state_.step;
    sim_.busy(rank_, step_busy_s(plan_, step, seconds_per_reduced_byte_), "decompressing", nullptr, lone_);
  }

 private:
  Simulation& sim_;
  int rank_;
  int group_index_;
  const trace::Group& group_;
  const CollectivePlan& plan_;
  double seconds_per_reduced_byte_;
  bool mirror_;
  bool lone_;
  sg4::Host* mirror_to_;
  RankState& state_;
  sg4::CommPtr send_;
  sg4::CommPtr recv_;
  int* received_ = nullptr;
  double posted_s_ = 0;  ///< when the exchange in progress was posted
};

double step_busy_s(const CollectivePlan& plan, const collective::Step& step, double seconds_per_reduced_byte) {
  const auto raw = [&](const collective::Block& block) {
    return static_cast<double>(block.count * static_cast<std::uint64_t>(plan.request.element_bytes));
  };
  const compress::CompressorCost& codec = plan.cost;
  const bool reduces = step.mode == collective::RecvMode::kReduce;
  switch (step.kind) {
    case collective::StepKind::kCompress:
      return codec.compress_s(raw(step.local));
    case collective::StepKind::kDecompress:
      return codec.decompress_s(raw(step.local)) + (reduces ? raw(step.local) * seconds_per_reduced_byte : 0.0);
    case collective::StepKind::kExchange:
      if (step.recv_peer < 0 || !reduces) return 0;
      return step.compressed ? codec.add_s(raw(step.recv)) : raw(step.recv) * seconds_per_reduced_byte;
  }
  return 0;
}

std::uint64_t wire_bytes(const CollectivePlan& plan, const collective::Step& step) {
  const std::uint64_t raw = step.send.count * static_cast<std::uint64_t>(plan.request.element_bytes);
  return step.compressed ? plan.cost.wire_bytes(raw) : raw;
}

CollectiveRunner::CollectiveRunner(Simulation& sim, const trace::Trace& trace, const ReplayOptions& options,
                                   const std::vector<int>& placement, const std::vector<int>& sharing, bool cpu_core,
                                   CollectivePlanner& planner, CollectiveShortcuts& shortcuts, FoldedReplicas& replicas,
                                   double speed, double seconds_per_reduced_byte)
    : sim_(sim),
      trace_(trace),
      options_(options),
      planner_(planner),
      shortcuts_(shortcuts),
      replicas_(replicas),
      speed_(speed),
      seconds_per_reduced_byte_(seconds_per_reduced_byte),
      placement_(placement),
      sharing_(sharing),
      coarse_rings_(std::make_unique<CoarseRings>(sim, trace, placement, sharing, cpu_core, seconds_per_reduced_byte)),
      meetings_(std::make_unique<CriticalPathMeetings>(sim, shortcuts)),
      events_(std::make_unique<EventSteps>(sim, trace, speed, seconds_per_reduced_byte)) {
  coarse_rings_->use(shortcuts);
  memberships_.resize(as_index(trace.world_size));
  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    const auto& ranks = trace.groups[g].ranks;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      at(memberships_, ranks[i]).push_back({static_cast<int>(g), static_cast<int>(i), 0});
    }
  }
}

CollectiveRunner::~CollectiveRunner() = default;

int CollectiveRunner::slot(int rank, int group) const {
  const auto& list = at(memberships_, rank);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].group == group) return static_cast<int>(i);
  }
  return -1;
}

CollectiveRunner::Membership& CollectiveRunner::enter(int rank, int group) {
  Membership& member = at(at(memberships_, rank), slot(rank, group));
  ++member.entered;
  return member;
}

int CollectiveRunner::entered(int rank, int group) const {
  return at(at(memberships_, rank), slot(rank, group)).entered;
}

std::string CollectiveRunner::note() const { return coarse_rings_->note(); }

std::uint64_t CollectiveRunner::event_calls() const { return events_->calls_run(); }

void CollectiveRunner::run(int rank, const Op& op, std::size_t index) {
  RankState& st = sim_.state(rank);
  Membership& member = enter(rank, op.group);
  st.sequence = member.entered;
  const CollectivePlan& plan = planner_.plan(op, rank, index);  // planned in check_fit(): cannot throw here
  sim_.label(sim_.record(rank, index), plan);
  st.plan = &plan;
  st.group_rank = member.index;
  st.step = -1;
  // With streams, only a collective that no other stream of the rank can overlap (the same
  // for all its members: CollectiveShortcuts::stream_disagreement).
  if (critical_path(rank, op, index)) {
    run_shortcut(rank, op, plan, member.index, member.entered);
    st.plan = nullptr;
    return;
  }
  // Its busy periods are the only executions on the accelerator (a sleep each, not an
  // execution) where the accelerator runs no other rank and only data moves beside the call.
  const bool lone = at(sharing_, at(placement_, rank)) == 1 && shortcuts_.computes_alone(rank, index);
  if (replicas_.mirrored(op.group)) {
    // The rank stands for every member (ReplicaFolding): each step's message to itself.
    auto [kept, fresh] = mirror_steps_.try_emplace({plan.schedule.get(), member.index});
    if (fresh) kept->second = widest_steps(*plan.schedule, member.index);
    StepRunner runner(sim_, rank, op.group, at(trace_.groups, op.group), plan, seconds_per_reduced_byte_, true, lone,
                      replicas_.mirror_host(rank, op.group));
    collective::run_rank(*plan.schedule, kept->second, member.index, runner);
    st.step = -1;
    st.plan = nullptr;
    return;
  }
  std::span<const collective::Step> steps = kept_steps(plan, member.index);
  std::vector<collective::Step> generated;
  if (steps.empty()) {
    generated = plan.schedule->steps(member.index);
    steps = generated;
  }
  if (options_.fast && options_.coarse_rings && options_.network.calibrated == nullptr &&
      shortcuts_.runs_alone(rank, index) && coarse_rings_->applies(plan, op.group)) {
    const CoarseRings::Ring ring = *coarse_rings_->ring(plan, steps);
    if (coarse_rings_->arrive_together(rank, ring, op, member.entered)) {
      coarse_rings_->run(rank, op, ring);
      st.step = -1;
      st.plan = nullptr;
      return;
    }
  }
  if (options_.event_steps && sim_.messages_uncapped()) {
    events_->run(rank, op.group, member.entered, member.index, plan, steps, st, lone);
  } else {
    StepRunner runner(sim_, rank, op.group, at(trace_.groups, op.group), plan, seconds_per_reduced_byte_, false, false);
    collective::run_rank(*plan.schedule, steps, member.index, runner);
  }
  st.step = -1;
  st.plan = nullptr;
}

bool CollectiveRunner::critical_path(int rank, const Op& op, std::size_t index) {
  return options_.fast && shortcuts_.runs_alone(rank, index) &&
         shortcuts_.refusal(planner_.plan(op, rank, index), op.group).empty();
}

void CollectiveRunner::run_shortcut(int rank, const Op& op, const CollectivePlan& plan, int group_rank, int sequence) {
  // Members of folded replicas (ReplicaFolding) are not simulated: each starts when the
  // simulated member that stands for it does.
  const std::vector<int>* stand_in = replicas_.stand_ins(op.group);
  const CriticalPathMeetings::End end = meetings_->meet(rank, op.group, sequence, plan, group_rank, stand_in);
  if (stand_in != nullptr) replicas_.ended(end.earliest_s, end.end_s);
  const double end_s = end.end_s;
  // Reported once the simulation is over, as busy() does: the full replay would have run into
  // an amount of work too large for SimGrid (busy periods are part of the rank's time).
  if (!std::isfinite(end_s * speed_)) {
    sim_.not_finite(rank, fmt::format("ends at {:g} s", end_s));
    return;
  }
  if (end_s < sg4::Engine::get_clock()) {
    throw std::logic_error(fmt::format("collective shortcut: group rank {} ends at {} s, before the last start {} s",
                                       group_rank, end_s, sg4::Engine::get_clock()));
  }
  sg4::this_actor::sleep_until(end_s);
}

std::span<const collective::Step> CollectiveRunner::kept_steps(const CollectivePlan& plan, int group_rank) {
  // Kept from a rank's second call of the collective on: a collective called once (a large
  // gradient all_reduce) would only hold memory, one called in every micro-batch (tensor
  // parallelism's) is generated once instead of at every call.
  PlanSteps& cache = steps_[plan.schedule.get()];
  if (cache.ranks.empty()) cache.ranks.resize(as_index(plan.request.size));
  PlanSteps::Rank& mine = at(cache.ranks, group_rank);
  if (mine.calls < 2 && ++mine.calls == 2) mine.steps = plan.schedule->steps(group_rank);
  return mine.steps;  // empty on the first call
}

}  // namespace ccsim::engine::detail
