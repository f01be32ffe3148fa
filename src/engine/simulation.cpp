#include "engine/simulation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>
#include <simgrid/s4u/Barrier.hpp>

#include "collective/registry.hpp"
#include "collective/step_driver.hpp"
#include "engine/child_process.hpp"
#include "engine/collective_plan.hpp"
#include "engine/deadlock.hpp"
#include "core/input_error.hpp"
#include "core/phase.hpp"
#include "engine/graph_zone.hpp"
#include "engine/network_factors.hpp"
#include "engine/placement.hpp"
#include "engine/sg_engine.hpp"
#include "engine/simulation_state.hpp"
#include "core/index.hpp"

namespace ccsim::engine {
namespace detail {

namespace {

/// Whether ranks `a` and `b` of `placement` are on one node (their messages use a calibrated
/// model's intra tier).
bool same_node(const topology::Network& net, const std::vector<int>& placement, int a, int b) {
  return net.node_of(at(placement, a)) == net.node_of(at(placement, b));
}

/// --fast: leaves the fabric's link directions (not an accelerator's or a NIC's) that no set
/// of the job's messages in flight at once can fill (CollectiveShortcuts::never_binds) out of
/// the zone's routes (GraphZone::leave_out): they cannot bind a max-min share, so the shares,
/// and the times, are the same, and SimGrid solves many small systems instead of one that ties
/// every message of the job together. Not with a calibrated model that leaves a tier to the
/// platform (its latencies are summed over a route's links) nor with ranks that share an
/// accelerator (`sharing`). Returns the note, "" when no link was left out.
std::string leave_out_links(const topology::Network& net, const ReplayOptions& options, const NetworkFactors* factors,
                            const std::vector<int>& sharing, CollectiveShortcuts& shortcuts, GraphZone& zone) {
  if (!options.fast || net.accelerator().cpu_core) return "";
  // A tier that a calibrated model leaves to the platform sums the latencies of the links that
  // SimGrid sees (GraphZone::price_with), which would lose those left out.
  if (factors != nullptr && (factors->tier(true) == nullptr || factors->tier(false) == nullptr)) return "";
  if (std::any_of(sharing.begin(), sharing.end(), [](int ranks) { return ranks > 1; })) return "";
  // A message's own ends stay (the links of its accelerators and NICs): a SimGrid flow on an
  // empty route would not be bounded by its rate, and the ends do not tie a job together.
  std::vector<char> out(2 * as_index(net.link_count()), 0);
  for (std::uint32_t link = 0; link < net.link_count(); ++link) {
    if (!shortcuts.fabric_link(link)) continue;
    const bool split = net.link(link).sharing == topology::Sharing::kSplitDuplex;
    for (std::uint32_t d = 0; d < 2; ++d) out[2 * link + d] = shortcuts.never_binds(2 * link + (split ? d : 0)) ? 1 : 0;
  }
  const auto [left, links] = zone.leave_out(out);
  if (left == 0) return "";
  return fmt::format(
      "shortcuts: {} of the {} simulated links could never be filled by the messages the job can have in flight across "
      "each at once, and were left out of SimGrid's sharing (a message keeps their latency and is bounded by their "
      "bandwidth): the same max-min shares, from smaller systems to solve",
      left, links);
}

/// The most actors a replay can have: a lane per simulated rank (not of a folded replica) and
/// its rank's other streams that hold operators (a fused rank starts those when its group
/// parts, StreamLanes::start_lane).
std::size_t most_actors(const trace::Trace& trace, const FoldedReplicas& replicas) {
  std::vector<std::size_t> streams_with_ops(trace.programs.size(), 0);
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    std::vector<char> has(as_index(trace.programs[p].stream_count()), 0);
    for (const Op& op : trace.programs[p].ops) has[op.stream] = 1;
    streams_with_ops[p] = static_cast<std::size_t>(std::count(has.begin() + 1, has.end(), 1));
  }
  std::size_t actors = 0;
  for (int r = 0; r < trace.world_size; ++r) {
    if (!replicas.folded(r)) actors += 1 + at(streams_with_ops, at(trace.program_of, r));
  }
  return actors;
}

/// The time compute operator `op` of `trace` takes on an `accelerator` (a core) of its own
/// under the compute cost model `cost`.
double compute_s(const topology::ComputeCost& cost, const trace::Trace& trace,
                 const topology::AcceleratorSpec& accelerator, const Op& op) {
  topology::ComputeOp view{
      trace.op_name(op), trace.op_label(op), trace.gemm_of(op), op.flops, static_cast<double>(op.bytes), op.duration_s};
  return cost.seconds(view, accelerator);
}

/// After the replay: whether collectives that ran as their critical path across guarded links
/// had them to themselves (GuardedLinks::check); says so in a note, or records the breach.
void check_guarded_links(CollectiveShortcuts& shortcuts, CollectiveRunner& collectives, const trace::Trace& trace,
                         const topology::Network& network, Result& result) {
  const GuardedLinks& guarded = shortcuts.guarded();
  if (guarded.empty()) return;
  Phase phase("checking the links that collectives crossed as their critical path", "");
  const GuardedLinks::Job job{
      result.ops,
      [&](std::uint32_t direction) { return shortcuts.senders(direction); },
      [&](int rank, std::size_t i) {
        const Op op = trace.op(rank, i);
        if (op.kind == OpKind::kCompute) return false;
        return !trace::is_collective(op.kind) || !collectives.critical_path(rank, op, i);
      },
      [&](std::uint32_t direction) { return shortcuts.capacity_Bps(direction / 2); },
      [&](std::uint32_t direction) { return network.link_name(direction / 2); },
      [&](int group) { return at(trace.groups, group).name; },
  };
  result.guard_breach = guarded.check(job);
  if (!result.guard_breach.empty()) return;
  result.notes.push_back(fmt::format(
      "shortcuts: {} collective call{} crossed fabric links that other messages may use as {} critical path: "
      "nothing else crossed those links meanwhile (checked after the replay against every rank's operators)",
      guarded.calls(), guarded.calls() == 1 ? "" : "s", guarded.calls() == 1 ? "its" : "their"));
}

}  // namespace

void Simulation::check_fit() {
  const topology::Network& net = platform_.network;
  const bool cpu_ranks = net.accelerator().cpu_core;  // CPU ranks share cores by nature
  if (trace_.world_size > net.accelerator_count() && !options_.oversubscribe && !cpu_ranks) {
    throw InputError(trace_.source, 0, "world_size",
                     fmt::format("the trace has {} ranks but platform \"{}\" has only {} accelerators ({} nodes x {}); "
                                 "--oversubscribe shares accelerators",
                                 trace_.world_size, platform_.name, net.accelerator_count(), net.node_count(),
                                 net.accelerators_per_node()));
  }
  placement_policy_ = resolve_placement(trace_, options_.placement);
  try {
    placement_ = place_ranks(trace_, net, options_.placement, options_.oversubscribe || cpu_ranks);
  } catch (const InputError& e) {
    if (options_.placement != "auto" || trace_.placement.empty()) throw;
    throw InputError(trace_.source, trace_.placement_line, "placement",
                     e.detail());  // the trace's own placement is wrong
  }
  sharing_.assign(as_index(net.accelerator_count()), 0);
  for (int a : placement_) ++at(sharing_, a);
  planner_ = std::make_unique<CollectivePlanner>(trace_, net, placement_, options_, target_hardware(platform_));
  planner_->plan_all();
  shortcuts_ = std::make_unique<CollectiveShortcuts>(trace_, net, placement_, options_, planner_.get());
  collectives_ = std::make_unique<CollectiveRunner>(*this, trace_, options_, placement_, sharing_,
                                                    net.accelerator().cpu_core, *planner_, *shortcuts_, replicas_,
                                                    net.accelerator().flops, 1.0 / net.accelerator().reduce_Bps);
}

void Simulation::prepare_result() {
  result_.trace_name = trace_.name;
  result_.iterations = trace_.iterations;
  result_.trace_file = trace_.source;
  result_.platform_name = platform_.name;
  result_.platform_file = platform_.file;
  result_.network_model = options_.network.describe();
  result_.algorithm = planner_->describe();
  result_.compression = options_.compression.describe();
  result_.compute = options_.compute;
  result_.notes = platform_.notes;
  const std::vector<std::string> planned = planner_->notes();
  result_.notes.insert(result_.notes.end(), planned.begin(), planned.end());
  if (options_.fast) {
    result_.notes.insert(result_.notes.begin(),
                         "shortcuts: consecutive compute operators of a rank alone on its accelerator ran as one busy "
                         "period, and collectives whose messages cannot slow one another down as their critical path "
                         "(times as the full replay's up to floating-point rounding)");
  }
  result_.error_bound_abs = std::numeric_limits<double>::quiet_NaN();
  if (options_.compression.enabled()) {
    // A relative bound needs the data's value range (--compress ...,range=R) to be absolute.
    const compress::CompressorModel& model = *options_.compression.model;
    const compress::Query& query = options_.compression.query;
    if (model.kind() != compress::Kind::kErrorBounded) {
      result_.error_bound_abs = std::numeric_limits<double>::infinity();
    } else if (model.info().error_mode == compress::ErrorMode::kAbs || query.value_range) {
      result_.error_bound_abs = model.absolute_error_bound(query, query.value_range.value_or(0.0));
    }
  }
  result_.placement = placement_policy_;
  if (trace_.world_size > platform_.network.accelerator_count()) {
    if (platform_.network.accelerator().cpu_core) {
      result_.placement +=
          fmt::format(", {} CPU ranks on {} cores ({})", trace_.world_size, platform_.network.accelerator_count(),
                      options_.dedicated_durations ? "compute, of ranks with a core each, time-shares the cores"
                                                   : "measured compute is not time-shared again");
    } else {
      result_.placement += fmt::format(", oversubscribed: {} ranks on {} accelerators", trace_.world_size,
                                       platform_.network.accelerator_count());
    }
  }
  result_.world_size = trace_.world_size;
  std::vector<int> nodes;
  nodes.reserve(placement_.size());
  for (int a : placement_) nodes.push_back(platform_.network.node_of(a));
  std::sort(nodes.begin(), nodes.end());
  result_.nodes_used = static_cast<int>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
  result_.has_waits = true;
  result_.stage = trace_.pipeline_stages();
  result_.stage_count = trace_.pipeline_stage_count();
  result_.names.reserve(trace_.names.size() + 8);
  for (std::size_t i = 0; i < trace_.names.size(); ++i)
    result_.names.emplace_back(trace_.names[static_cast<trace::Names::Id>(i)]);
  kind_name_.assign(8, 0);
  for (int k = 0; k < 8; ++k) {
    at(kind_name_, k) = static_cast<std::uint32_t>(result_.names.size());
    result_.names.emplace_back(trace::op_kind_name(static_cast<OpKind>(k)));
  }
  result_.ops.resize(as_index(trace_.world_size));
  if (options_.wait_spans) result_.waits.resize(as_index(trace_.world_size));
}

void Simulation::allocate_records() {
  // The streams of the operators of programs that have several, one table per program.
  std::vector<std::shared_ptr<const std::vector<std::uint8_t>>> streams(trace_.programs.size());
  bool any = false;
  for (std::size_t p = 0; p < trace_.programs.size(); ++p) {
    if (trace_.programs[p].stream_count() == 1) continue;
    auto table = std::make_shared<std::vector<std::uint8_t>>();
    for (const Op& op : trace_.programs[p].ops) table->push_back(op.stream);
    streams[p] = std::move(table);
    any = true;
  }
  if (any) {
    for (int r = 0; r < trace_.world_size; ++r) {
      result_.streams.push_back(at(streams, at(trace_.program_of, r)));
    }
  }
  // The followers of a fusion read their leader's records until their own differ
  // (FusedGroups); those of ranks with streams hold their own (their other lanes record as the
  // fusion runs).
  for (int r = 0; r < trace_.world_size; ++r) {
    const auto rr = as_index(r);
    if (replicas_.folded(r)) continue;  // its image's list, once the simulation is over (unfold)
    if (const int lead = fusions_->reads_records_of(r); lead >= 0) {
      result_.ops.share(rr, as_index(lead));
      continue;
    }
    const auto& ops = trace_.program_ops(r);
    auto& records = result_.ops.writable(rr);
    records.resize(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      records[i].name = ops[i].name;
      records[i].label = ops[i].label;
      records[i].kind = kind_name_[static_cast<std::size_t>(ops[i].kind)];
      records[i].bytes = ops[i].kind == OpKind::kCompute ? 0 : ops[i].bytes;
    }
  }
}

OpRecord& Simulation::record(int rank, std::size_t i) {
  if (OpRecord* fork = fusions_->fork_record(rank, i)) return *fork;
  return result_.ops.writable(as_index(rank))[i];
}

sg4::Host* Simulation::shared_cores(int rank, const Op& op) const {
  // Durations measured under the traced run's own sharing are not shared again (they run on
  // the rank's own host); work of a rank with a core of its own shares its node's cores.
  if (!platform_.network.accelerator().cpu_core || (op.duration_s >= 0 && !options_.dedicated_durations))
    return nullptr;
  return zone_->cores_of_rank(rank);
}

std::size_t Simulation::run_compute(int rank, std::size_t first) {
  if (progress_ != nullptr) progress_->tick();
  const auto& ops = trace_.program_ops(rank);
  auto& records = result_.ops.writable(as_index(rank));  // the leader's or a rank's own
  const double start_s = sg4::Engine::get_clock();
  // --fast: a rank alone on its accelerator computes undisturbed: its consecutive compute
  // operators are one busy period, each operator's times follow by addition, and SimGrid
  // executes the sum once (one activity instead of one per operator; a compute-bound trace is
  // mostly compute operators). The full replay advances SimGrid's clock once per operator,
  // whose rounding the additions do not repeat bit for bit. Shared accelerators time-share
  // every operator with the other ranks, and a time that is not finite is reported for its own
  // operator: those run one by one.
  double total_s = 0;
  std::size_t end = first;
  if (options_.fast && at(sharing_, at(placement_, rank)) == 1) {
    // (Work on the node's shared cores runs one operator at a time: others may join them. On
    // a rank with streams, only operators that no other stream can overlap are undisturbed.)
    const int stream = ops[first].stream;
    while (end < ops.size() && ops[end].kind == OpKind::kCompute && shared_cores(rank, ops[end]) == nullptr &&
           ops[end].stream == stream && (end == first || ops[end].after_count == 0) &&
           shortcuts_->runs_alone(rank, end)) {
      const double seconds = compute_s(*cost_, trace_, platform_.network.accelerator(), ops[end]);
      if (!std::isfinite(seconds * speed_) || !std::isfinite((total_s + std::max(seconds, 0.0)) * speed_)) break;
      records[end].start_s = start_s + total_s;
      if (seconds > 0) total_s += seconds;  // NaN or negative work takes no time, as in busy()
      records[end].end_s = start_s + total_s;
      ++end;
    }
  }
  if (end == first) {  // one operator, executed on its own
    records[first].start_s = start_s;
    busy(rank, compute_s(*cost_, trace_, platform_.network.accelerator(), ops[first]), "computing",
         shared_cores(rank, ops[first]));
    records[first].end_s = sg4::Engine::get_clock();
    return first + 1;
  }
  state(rank).op = first;
  busy(rank, total_s, "computing", nullptr, /*alone=*/true);
  return end;
}

sg4::CommPtr Simulation::post_p2p(int rank, const Op& op, int** received) {
  RankState& st = state(rank);
  if (op.kind == OpKind::kSend) {
    st.send_peer = op.peer;
    return post_send(channels_.get(Channels::kPointToPoint, static_cast<int>(op.tag), rank, op.peer), rank, op.peer,
                     op.bytes);
  }
  st.recv_peer = op.peer;
  return channels_.get(Channels::kPointToPoint, static_cast<int>(op.tag), op.peer, rank)->get_async<int>(received);
}

void Simulation::run_p2p(int rank, const Op& op) {
  RankState& st = state(rank);
  const bool send = op.kind == OpKind::kSend;
  if (send) {
    st.send_peer = op.peer;  // named while the overhead is paid
    send_overhead(rank, op.peer);
  }
  const double posted_s = sg4::Engine::get_clock();
  int* received = nullptr;
  sg4::CommPtr comm = post_p2p(rank, op, send ? nullptr : &received);
  comm->wait();
  waited_for(rank, posted_s, {comm.get()});
  if (send) {
    st.send_peer = -1;
  } else {
    st.recv_peer = -1;
    recv_overhead(rank, op.peer);
  }
}

void Simulation::label(OpRecord& record, const CollectivePlan& plan) {
  auto [it, added] = algorithm_ids_.try_emplace(plan.algorithm, static_cast<std::uint32_t>(result_.names.size()));
  if (added) result_.names.push_back(plan.algorithm);
  record.algorithm = it->second;
  record.error_worst_eb = plan.error_worst_eb;
  record.error_expected_eb = plan.error_expected_eb;
}

void Simulation::not_finite(int rank, std::string what) { non_finite_.skipped(rank, state(rank).op, std::move(what)); }

void Simulation::not_finite(int rank, std::size_t op, std::string what) {
  non_finite_.skipped(rank, op, std::move(what));
}

void Simulation::waited(int rank, double from_s, double to_s) { waited(rank, state(rank).op, from_s, to_s); }

void Simulation::waited(int rank, std::size_t op, double from_s, double to_s) {
  if (!(to_s > from_s)) return;
  record(rank, op).wait_s += to_s - from_s;
  if (options_.wait_spans) {
    at(result_.waits, rank).push_back({static_cast<std::uint32_t>(op), from_s, to_s});
  }
}

void Simulation::waited_for(int rank, double posted_s, std::initializer_list<const sg4::Comm*> comms) {
  // A transfer is in progress from its start (SimGrid starts a communication once both sides
  // have posted it: the peer's matching call) to its finish. A step waits for at most a send
  // and a receive: no allocation on this path.
  std::array<std::pair<double, double>, 2> transfers;
  std::size_t n = 0;
  for (const sg4::Comm* comm : comms) {
    if (comm == nullptr) continue;
    if (n == transfers.size()) throw std::logic_error("Simulation::waited_for: more than two transfers");
    transfers[n++] = {comm->get_start_time(), comm->get_finish_time()};
  }
  waited_for(rank, state(rank).op, posted_s, std::span(transfers.data(), n));
}

void Simulation::waited_for(int rank, std::size_t op, double posted_s, std::span<std::pair<double, double>> transfers) {
  // The gaps between the transfers are waits. At most two (a step's send and receive).
  if (transfers.size() > 2) throw std::logic_error("Simulation::waited_for: more than two transfers");
  if (transfers.size() == 2 && transfers[1] < transfers[0]) std::swap(transfers[0], transfers[1]);
  double cursor = posted_s;
  for (const auto& [start_s, finish_s] : transfers) {
    waited(rank, op, cursor, start_s);
    cursor = std::max(cursor, finish_s);
  }
  waited(rank, op, cursor, sg4::Engine::get_clock());
}

void Simulation::busy(int rank, double seconds, const char* what, sg4::Host* on, bool alone) {
  if (seconds <= 0) return;  // NaN goes on, to be reported
  RankState& st = state(rank);
  if (!std::isfinite(seconds * speed_)) {
    // SimGrid cannot execute an infinite amount (it crashes or never ends): skip it and fail
    // once the simulation is over, naming the operator.
    not_finite(rank, fmt::format("{} for {:g} s", what, seconds));
    return;
  }
  st.busy_with = what;
  st.busy_s = seconds;
  if (alone) {
    // Nobody else computes on this accelerator: the time is known, and a sleep costs SimGrid
    // far less than an execution (no share of the host to solve for): a 1,024-accelerator
    // --fast replay takes 35 % less CPU time for the same report (bench/results/scale.md).
    sg4::this_actor::sleep_for(seconds);
  } else if (on != nullptr) {
    sg4::this_actor::exec_init(seconds * speed_)->set_host(on)->wait();
  } else {
    sg4::this_actor::execute(seconds * speed_);
  }
  st.busy_with = nullptr;
}

void Simulation::send_overhead(int rank, int peer) { busy(rank, send_overhead_s(rank, peer), "sending"); }

void Simulation::recv_overhead(int rank, int peer) { busy(rank, recv_overhead_s(rank, peer), "receiving"); }

double Simulation::send_overhead_s(int rank, int peer) const {
  return factors_ == nullptr ? 0.0 : factors_->send_overhead_s(same_node(platform_.network, placement_, rank, peer));
}

double Simulation::recv_overhead_s(int rank, int peer) const {
  return factors_ == nullptr ? 0.0 : factors_->recv_overhead_s(same_node(platform_.network, placement_, rank, peer));
}

sg4::CommPtr Simulation::post_send(sg4::Mailbox* box, int rank, int peer, std::uint64_t bytes) {
  sg4::CommPtr comm = box->put_init(&message_payload, bytes);
  // A message is bounded by its route's links (CM02) and by the cables of the trunks it crosses
  // and by the links left out of its route (GraphZone::flow_cap_Bps), which are not links there.
  const double cap_Bps = zone_->flow_cap_Bps(zone_->host_of_rank(rank), zone_->host_of_rank(peer));
  if (cap_Bps < std::numeric_limits<double>::infinity()) comm->set_rate(cap_Bps);
  comm->start();
  return comm;
}

void Simulation::run_op(int rank, std::size_t i) {
  if (progress_ != nullptr) progress_->tick();
  const Op op = trace_.op(rank, i);  // its group or peer as this rank's
  record(rank, i).start_s = sg4::Engine::get_clock();
  switch (op.kind) {
    case OpKind::kSend:
    case OpKind::kRecv:
      run_p2p(rank, op);
      break;
    default:
      collectives_->run(rank, op, i);
      break;
  }
  record(rank, i).end_s = sg4::Engine::get_clock();
}

void Simulation::run_individually(int rank, std::size_t first) {
  RankState& st = state(rank);
  const auto& ops = trace_.program_ops(rank);
  for (std::size_t i = first; i < ops.size();) {
    st.op = i;
    if (ops[i].kind == OpKind::kCompute) {
      i = run_compute(rank, i);
      continue;
    }
    run_op(rank, i);
    ++i;
  }
  st.op = ops.size();
  st.done = true;
}

void Simulation::rank_main(int rank) {
  const int stream = state(rank).stream;
  std::size_t first = 0;
  if (stream == 0 && fusions_->fused(rank)) {
    first = fusions_->run(rank);
    for (int k = 1; k < lanes_->lanes(rank); ++k) lanes_->start_lane(rank, k, first);
    // The leader ran the whole program for all and marked them done.
    if (fusions_->ran_whole_program(rank)) return;
  }
  if (lanes_->lanes(rank) > 1) {
    lanes_->run_stream(rank, stream, first);
    return;
  }
  run_individually(rank, first);
}

void Simulation::build_zone() {
  const topology::Network& net = platform_.network;
  GraphZoneOptions zone_options;
  zone_options.bandwidth_factor = options_.network.bandwidth_factor;
  zone_options.latency_factor = options_.network.latency_factor;
  zone_options.host_per_rank = net.accelerator().cpu_core;
  if (net.accelerator().cpu_core) zone_options.cores_per_node = net.accelerators_per_node();
  if (options_.network.calibrated != nullptr) {
    factors_ = std::make_unique<NetworkFactors>(options_.network.calibrated);
    // CPU ranks that outnumber their node's cores pay the model's tier as shared cores do.
    const double sharing = options_.network.per_core ? cpu_core_sharing(net, placement_) : 1.0;
    if (sharing > 1 && options_.network.calibrated->has_intra) {
      factors_->share_cores(sharing);
      result_.notes.push_back(fmt::format(
          "{:g} ranks per core: the calibrated model's intra tier (of processes with a core each) x {:g}, plus its "
          "core hand-off of {:.3g} us per message",
          sharing, sharing, options_.network.calibrated->intra.handoff_s * 1e6));
    }
    zone_options.unit_latency = true;
    zone_options.intra_floor_Bps = factors_->max_bandwidth_Bps(true);
    zone_options.inter_floor_Bps = factors_->max_bandwidth_Bps(false);
  }
  {
    Phase phase(fmt::format("building the platform ({} links, {} nodes, {} accelerators)", net.link_count(),
                            net.node_count(), net.accelerator_count()),
                "reduce the platform's size (nodes, levels, groups, routers)");
    zone_ = new GraphZone(net, placement_, zone_options);
    if (factors_ != nullptr) zone_->price_with(*factors_);
    if (std::string note = leave_out_links(net, options_, factors_.get(), sharing_, *shortcuts_, *zone_); !note.empty())
      result_.notes.push_back(std::move(note));
    if (std::string note = replicas_.decide(trace_, net, placement_, sharing_, options_, factors_.get(), *planner_,
                                            *shortcuts_, *zone_);
        !note.empty())
      result_.notes.push_back(std::move(note));
  }
}

Result Simulation::run() {
  const topology::Network& net = platform_.network;
  {
    Phase phase(fmt::format("placing {} ranks and planning their collectives", trace_.world_size),
                "reduce the trace's ranks or operators");
    check_fit();
  }
  prepare_result();
  std::unique_ptr<sg4::Engine> engine =
      make_engine(options_.stack_kib, options_.simgrid_log, /*single_core_hosts=*/!net.accelerator().cpu_core);

  build_zone();
  // Under a calibrated model too: a message that crosses a bound crosses the NICs, so it is
  // priced by the inter-node tier, whose bandwidth no link falls below (the zone's floors),
  // and its bandwidth factor (tier / bottleneck) is at most 1: its bound, divided by the
  // factor, stays above what its links give it.
  messages_uncapped_ = !zone_->caps_can_bind();
  lanes_ = std::make_unique<StreamLanes>(*this, trace_, *zone_);  // one lane (actor) per stream of a rank's program
  speed_ = net.accelerator().flops;
  fusions_ = std::make_unique<FusedGroups>(*this, *lanes_, *collectives_, trace_, placement_, sharing_, *planner_,
                                           *shortcuts_, speed_);
  // Compute on a node's shared cores (CPU ranks) is time-shared operator by operator.
  if (options_.fast && !net.accelerator().cpu_core) fusions_->plan(replicas_.folding(), factors_.get());
  allocate_records();

  {
    Phase phase(replicas_.folding().image.empty() || replicas_.folding().replicas == 0
                    ? fmt::format("simulating {} ranks", trace_.world_size)
                    : fmt::format("simulating {} ranks ({} of {} data-parallel replicas)", trace_.world_size,
                                  replicas_.folding().simulated, replicas_.folding().replicas),
                "reduce the trace's ranks or operators");
    set_actor_stacks(*engine, most_actors(trace_, replicas_));
    for (int r = 0; r < trace_.world_size; ++r) {
      if (!replicas_.folded(r)) lanes_->start_rank(r, fusions_->fused(r), [this, r] { rank_main(r); });
    }
    if (options_.progress) progress_ = std::make_unique<ReplayProgress>(trace_, *lanes_);
    engine->run();
    progress_.reset();
  }
  if (std::string note = replicas_.unfold(trace_, result_, *lanes_); !note.empty())
    result_.notes.push_back(std::move(note));

  if (std::string note = fusions_->note(); !note.empty()) result_.notes.push_back(std::move(note));
  if (factors_ != nullptr) {
    if (std::string note = factors_->extrapolation_note(); !note.empty()) result_.notes.push_back(std::move(note));
  }
  if (std::string note = collectives_->note(); !note.empty()) result_.notes.push_back(std::move(note));
  result_.event_calls = collectives_->event_calls();
  check_guarded_links(*shortcuts_, *collectives_, trace_, platform_.network, result_);
  non_finite_.check(result_, trace_, platform_);
  if (!lanes_->all_done()) throw SimulationError(explain_deadlock(trace_, *lanes_, *collectives_, replicas_.folding()));
  const std::vector<std::size_t> first = result_.ops.first_readers();
  for (int r = 0; r < trace_.world_size; ++r) {
    if (at(first, r) != as_index(r) && result_.streams_of(r) == result_.streams_of(static_cast<int>(at(first, r))))
      continue;  // the same end
    result_.makespan_s = std::max(result_.makespan_s, result_.rank_end_s(r));
  }
  return std::move(result_);
}

}  // namespace detail

Result simulate(const trace::Trace& trace, const topology::Platform& platform, const ReplayOptions& options) {
  return detail::Simulation(trace, platform, options).run();
}

}  // namespace ccsim::engine
