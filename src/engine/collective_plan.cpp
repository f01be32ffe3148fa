#include "engine/collective_plan.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "collective/error_model.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "engine/network_factors.hpp"

namespace ccsim::engine {

collective::Collective to_collective(trace::OpKind kind) {
  switch (kind) {
    case trace::OpKind::kAllReduce: return collective::Collective::kAllReduce;
    case trace::OpKind::kAllGather: return collective::Collective::kAllGather;
    case trace::OpKind::kReduceScatter: return collective::Collective::kReduceScatter;
    case trace::OpKind::kBroadcast: return collective::Collective::kBroadcast;
    case trace::OpKind::kAllToAll: return collective::Collective::kAllToAll;
    default: break;
  }
  throw std::logic_error("to_collective: not a collective");
}

std::string CompressionOptions::describe() const {
  if (!enabled()) return "none";
  std::string point;
  if (query.error_bound) point = fmt::format(" eb={:g}", *query.error_bound);
  if (query.bits) point = fmt::format(" bits={}", *query.bits);
  if (query.density) point = fmt::format(" density={:g}", *query.density);
  compress::Placement where = query.where.value_or(model->info().placement);
  std::string min = min_bytes > 0 ? fmt::format(", all_reduce of {} bytes or more", min_bytes) : std::string();
  return fmt::format("{}{} on the {}{}", model->name(), point, compress::placement_name(where), min);
}

CollectivePlanner::CollectivePlanner(const trace::Trace& trace, const topology::Network& network,
                                     const std::vector<int>& placement, const ReplayOptions& options,
                                     compress::TargetHardware target)
    : trace_(trace), network_(network), placement_(placement), options_(options), target_(std::move(target)) {}

compress::TargetHardware target_hardware(const topology::Platform& platform) {
  compress::TargetHardware target;
  target.platform = platform.name;
  target.accelerator = platform.network.accelerator().model;
  target.accelerator_memory_Bps = platform.network.accelerator().memory_Bps;
  return target;
}

const compress::CompressorCost& CollectivePlanner::compressor_cost(DType dtype) {
  auto it = cost_by_dtype_.find(static_cast<int>(dtype));
  if (it != cost_by_dtype_.end()) return it->second;
  compress::Evaluation evaluation = options_.compression.model->evaluate(options_.compression.query, dtype, target_);
  for (const std::string& note : evaluation.notes) add_note(note);
  return cost_by_dtype_.emplace(static_cast<int>(dtype), evaluation.cost).first->second;
}

void CollectivePlanner::add_note(const std::string& note) {
  if (std::find(notes_.begin(), notes_.end(), note) == notes_.end()) notes_.push_back(note);
}

CollectivePlan CollectivePlanner::make_plan(const trace::Op& op) {
  const trace::Group& group = trace_.groups[static_cast<std::size_t>(op.group)];
  CollectivePlan plan;
  collective::Request& request = plan.request;
  request.op = to_collective(op.kind);
  request.size = static_cast<int>(group.ranks.size());
  request.element_bytes = dtype_bytes(op.dtype);
  request.count = op.bytes / static_cast<std::uint64_t>(request.element_bytes);
  if (op.kind == trace::OpKind::kBroadcast) request.root = group.index_of(op.root);
  for (int rank : group.ranks) request.node_of_rank.push_back(network_.node_of(placement_[static_cast<std::size_t>(rank)]));
  const CompressionOptions& compression = options_.compression;
  plan.compressed = compression.enabled() && op.kind == trace::OpKind::kAllReduce && op.bytes >= compression.min_bytes &&
                    request.size > 1;
  if (plan.compressed && !compression.model->accepts(op.dtype)) {
    // Integer all_reduces (counters, flags) stay exact.
    plan.compressed = false;
    add_note(fmt::format("{} all_reduces run plain: {} compresses floating-point data only", dtype_name(op.dtype),
                         compression.model->name()));
  }
  if (plan.compressed) {
    request.compression = collective::compression_of(*compression.model);
    plan.cost = compressor_cost(op.dtype);
  }
  if (op.kind == trace::OpKind::kAllReduce) {
    // A plain algorithm named for a compressed run (or the reverse) falls back to auto only
    // where it cannot apply: collectives below min_bytes run plain whatever --algo says.
    const std::string& wanted = options_.all_reduce_algorithm;
    const collective::AlgorithmInfo* named = collective::find_algorithm(collective::Collective::kAllReduce, wanted);
    const bool wanted_compressed = named != nullptr && named->compresses();
    request.algorithm = (plan.compressed || !wanted_compressed) ? wanted : "auto";
    if (request.algorithm == "auto" && request.size > 1) choose_by_cost(op, group, plan);
  }
  plan.algorithm = collective::choose_algorithm(request);
  if (request.algorithm != "auto" && plan.algorithm != request.algorithm) {
    // Hierarchical on one node, or with one rank per node, is a single ring.
    add_note(fmt::format("{} --algo {} runs as {} on groups within one node or with one rank per node",
                         trace::op_kind_name(op.kind), request.algorithm, plan.algorithm));
  }
  request.algorithm = plan.algorithm;
  if (plan.compressed) {
    collective::ResultError error = collective::all_reduce_error(plan.algorithm, request.size);
    plan.error_worst_eb = static_cast<float>(error.worst);
    plan.error_expected_eb = static_cast<float>(error.expected);
  }
  plan.schedule = schedule(request);
  return plan;
}

std::shared_ptr<const collective::Schedule> CollectivePlanner::schedule(const collective::Request& request) {
  // The nodes of the group's ranks matter by their pattern only (which ranks share a node):
  // numbered in order of appearance, every tensor-parallel group of a job has the same layout.
  std::vector<int> layout;
  layout.reserve(request.node_of_rank.size());
  std::map<int, int> number;
  for (int node : request.node_of_rank) {
    layout.push_back(number.emplace(node, static_cast<int>(number.size())).first->second);
  }
  ScheduleKey key{static_cast<int>(request.op), request.algorithm,    request.size,
                  request.count,                 request.element_bytes, request.root,
                  static_cast<int>(request.compression), std::move(layout)};
  auto it = schedules_.find(key);
  if (it != schedules_.end()) return it->second;
  std::shared_ptr<const collective::Schedule> made = collective::make_schedule(request);
  schedules_.emplace(std::move(key), made);
  return made;
}

void CollectivePlanner::choose_by_cost(const trace::Op& op, const trace::Group& group, CollectivePlan& plan) {
  std::vector<int> accelerators;
  for (int rank : group.ranks) accelerators.push_back(placement_[static_cast<std::size_t>(rank)]);
  collective::GroupLinks links = group_links(network_, accelerators);
  links.compressor = plan.cost;
  std::string model;  // what the prediction assumed of the network, when not the platform's links
  if (options_.network.calibrated != nullptr) {
    // A calibrated model (its own latency and bandwidth by message size): its segments for the
    // chunks of a ring, bytes / ranks.
    const double message_bytes = static_cast<double>(op.bytes) / plan.request.size;
    links = calibrated_links(links, NetworkFactors(options_.network.calibrated), message_bytes);
    model = fmt::format(" with calibrated network model \"{}\" (its figures for {} messages)",
                        options_.network.calibrated->name, format_bytes(message_bytes));
  }
  std::vector<collective::Prediction> predictions = collective::predict_all_reduce(plan.request, links);
  plan.request.algorithm = collective::fastest(predictions).algorithm;
  const auto nodes = std::set<int>(plan.request.node_of_rank.begin(), plan.request.node_of_rank.end()).size();
  add_note(fmt::format("auto: all_reduce of {} on \"{}\" ({} ranks on {} node{}): {}; predicted by closed form{}", format_bytes(static_cast<double>(op.bytes)),
                       group.name, plan.request.size, nodes, nodes == 1 ? "" : "s",
                       collective::describe(predictions, plan.request.algorithm), model));
}

collective::GroupLinks group_links(const topology::Network& network, const std::vector<int>& accelerators) {
  collective::GroupLinks links;
  const topology::AcceleratorSpec& acc = network.accelerator();
  links.gamma_s_per_byte = 1.0 / acc.reduce_Bps;
  if (network.accelerators_per_node() >= 2) {
    topology::Network::PathCost intra = network.path_cost(0, 1);
    links.intra_alpha_s = intra.latency_s;
    links.intra_beta_s_per_byte = 1.0 / intra.bandwidth_Bps;
  }
  links.nics_per_node = network.nics_per_node();
  if (network.nics_per_node() > 0) links.nic_Bps = network.link(network.nic_link(0, 0)).bandwidth_Bps;
  if (accelerators.empty()) return links;
  const int first = accelerators.front();
  bool inter = false;
  for (int a : accelerators) {
    if (network.node_of(a) == network.node_of(first)) continue;
    topology::Network::PathCost path = network.path_cost(first, a);
    links.inter_alpha_s = std::max(links.inter_alpha_s, path.latency_s);
    links.inter_beta_s_per_byte = std::max(links.inter_beta_s_per_byte, 1.0 / path.bandwidth_Bps);
    inter = true;
  }
  if (!inter) {
    links.inter_alpha_s = links.intra_alpha_s;
    links.inter_beta_s_per_byte = links.intra_beta_s_per_byte;
  }
  return links;
}

const CollectivePlan& CollectivePlanner::plan(const trace::Op& op, int rank, std::size_t index) {
  Key key{op.group, static_cast<int>(op.kind), op.bytes, static_cast<int>(op.dtype), op.root};
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second;
  try {
    CollectivePlan plan = make_plan(op);
    ++used_[{std::string(trace::op_kind_name(op.kind)), plan.algorithm}];
    return plans_.emplace(key, std::move(plan)).first->second;
  } catch (const InputError& e) {
    const trace::Group& group = trace_.groups[static_cast<std::size_t>(op.group)];
    throw InputError(trace_.source, op.line, fmt::format("ranks[{}].ops[{}]", rank, index),
                     fmt::format("{} on group \"{}\": {}{}", trace::op_kind_name(op.kind), group.name,
                                 e.file().empty() ? "" : e.file() + ": ", e.detail()));
  } catch (const std::invalid_argument& e) {
    throw InputError(trace_.source, op.line, fmt::format("ranks[{}].ops[{}]", rank, index), e.what());
  }
}

void CollectivePlanner::plan_all() {
  for (int rank = 0; rank < trace_.world_size; ++rank) {
    const auto& ops = trace_.ops[static_cast<std::size_t>(rank)];
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (trace::is_collective(ops[i].kind)) plan(ops[i], rank, i);
    }
  }
}

std::string CollectivePlanner::describe() const {
  if (used_.empty()) return "none";
  std::string out;
  std::string kind;
  for (const auto& [key, count] : used_) {
    if (key.first != kind) {
      out += fmt::format("{}{}: ", out.empty() ? "" : "; ", key.first);
      kind = key.first;
    } else {
      out += ", ";
    }
    out += fmt::format("{} ({} distinct)", key.second, count);
  }
  return out;
}

}  // namespace ccsim::engine
