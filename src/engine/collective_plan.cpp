#include "engine/collective_plan.hpp"

#include <algorithm>
#include <limits>
#include <cstdlib>
#include <set>
#include <tuple>
#include <unordered_map>
#include <stdexcept>

#include <fmt/format.h>

#include "collective/critical_path_executor.hpp"
#include "collective/error_model.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "engine/network_factors.hpp"
#include "engine/placement.hpp"
#include "core/index.hpp"

namespace ccsim::engine {

collective::Collective to_collective(trace::OpKind kind) {
  switch (kind) {
    case trace::OpKind::kAllReduce:
      return collective::Collective::kAllReduce;
    case trace::OpKind::kAllGather:
      return collective::Collective::kAllGather;
    case trace::OpKind::kReduceScatter:
      return collective::Collective::kReduceScatter;
    case trace::OpKind::kBroadcast:
      return collective::Collective::kBroadcast;
    case trace::OpKind::kAllToAll:
      return collective::Collective::kAllToAll;
    default:
      break;
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
  return fmt::format("{}{} on the {}{}, {}", model->name(), point, compress::placement_name(where), min,
                     all ? "every one (--compress-all)" : "where predicted faster");
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

std::string CollectivePlanner::group_names(const std::vector<std::string>& groups) {
  std::string name = fmt::format("\"{}\"", groups.front());
  if (groups.size() > 1) {
    name += fmt::format(" and {} other group{} alike", groups.size() - 1, groups.size() == 2 ? "" : "s");
  }
  return name;
}

namespace {

/// `pattern` with its "{group}" replaced by `name`.
std::string with_group(std::string pattern, const std::string& name) {
  pattern.replace(pattern.find("{group}"), 7, name);
  return pattern;
}

/// "8 ranks on 1 node", for notes about a group.
std::string group_shape(const collective::Request& request) {
  const auto nodes = std::set<int>(request.node_of_rank.begin(), request.node_of_rank.end()).size();
  return fmt::format("{} ranks on {} node{}", request.size, nodes, nodes == 1 ? "" : "s");
}

}  // namespace

void CollectivePlanner::add_group_note(const std::string& pattern, const std::string& group) {
  auto [it, fresh] = group_notes_.try_emplace(pattern, GroupNote{notes_.size(), {}});
  if (fresh) notes_.emplace_back();
  GroupNote& note = it->second;
  if (std::find(note.groups.begin(), note.groups.end(), group) != note.groups.end()) return;
  note.groups.push_back(group);
  notes_[note.line] = with_group(pattern, group_names(note.groups));
}

void CollectivePlanner::add_compression_part(const std::string& pattern, const std::string& group) {
  auto part = std::find_if(compression_parts_.begin(), compression_parts_.end(),
                           [&](const auto& p) { return p.first == pattern; });
  if (part == compression_parts_.end()) {
    compression_parts_.emplace_back(pattern, std::vector<std::string>{});
    part = compression_parts_.end() - 1;
  }
  std::vector<std::string>& groups = part->second;
  if (std::find(groups.begin(), groups.end(), group) != groups.end()) return;
  groups.push_back(group);
  if (compression_line_ == std::string::npos) {
    compression_line_ = notes_.size();
    notes_.emplace_back();
  }
  std::string text = "compression: ";
  for (const auto& [each, names] : compression_parts_) text += with_group(each, group_names(names)) + "; ";
  text += "predicted by closed form";
  if (options_.network.calibrated != nullptr) {
    text += fmt::format(" with calibrated network model \"{}\"", options_.network.calibrated->name);
  }
  notes_[compression_line_] = std::move(text);
}

CollectivePlan CollectivePlanner::make_plan(const trace::Op& op) {
  const trace::Group& group = at(trace_.groups, op.group);
  CollectivePlan plan;
  collective::Request& request = plan.request;
  request.op = to_collective(op.kind);
  request.size = static_cast<int>(group.ranks.size());
  request.element_bytes = dtype_bytes(op.dtype);
  request.count = op.bytes / static_cast<std::uint64_t>(request.element_bytes);
  if (op.kind == trace::OpKind::kBroadcast) request.root = group.index_of(op.root);
  for (int rank : group.ranks) request.node_of_rank.push_back(network_.node_of(at(placement_, rank)));
  const CompressionOptions& compression = options_.compression;
  plan.compressed = compression.enabled() && op.kind == trace::OpKind::kAllReduce &&
                    op.bytes >= compression.min_bytes && request.size > 1;
  if (plan.compressed && !compression.model->accepts(op.dtype)) {
    // Integer all_reduces (counters, flags) stay exact.
    plan.compressed = false;
    add_note(fmt::format("{} all_reduces run plain: {} compresses floating-point data only", dtype_name(op.dtype),
                         compression.model->name()));
  }
  if (compression.enabled() && op.kind != trace::OpKind::kAllReduce && request.size > 1) {
    add_note(
        fmt::format("{}s run plain: ccsim compresses all_reduces only (its compressed schedules are "
                    "all_reduce algorithms)",
                    trace::op_kind_name(op.kind)));
  }
  if (plan.compressed) {
    request.compression = collective::compression_of(*compression.model);
    plan.cost = compressor_cost(op.dtype);
  }
  if (op.kind == trace::OpKind::kAllReduce) {
    // A compressed algorithm named for a plain collective falls back to auto: collectives
    // below min_bytes, or that compression would slow down, run plain whatever --algo says. A
    // plain algorithm named for a compressed one is an error (choose_algorithm).
    const std::string& wanted = options_.all_reduce_algorithm;
    const collective::AlgorithmInfo* named = collective::find_algorithm(collective::Collective::kAllReduce, wanted);
    const bool wanted_compressed = named != nullptr && named->compresses();
    if (plan.compressed) {
      request.algorithm = wanted;
      decide_compression(op, group, plan);
    }
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
  ScheduleKey key{static_cast<int>(request.op),
                  request.algorithm,
                  request.size,
                  request.count,
                  request.element_bytes,
                  request.root,
                  static_cast<int>(request.compression),
                  std::move(layout)};
  auto it = schedules_.find(key);
  if (it != schedules_.end()) return it->second;
  std::shared_ptr<const collective::Schedule> made = collective::make_schedule(request);
  schedules_.emplace(std::move(key), made);
  return made;
}

collective::GroupLinks CollectivePlanner::predicted_links(const trace::Op& op, const trace::Group& group,
                                                          const compress::CompressorCost& compressor,
                                                          std::string& model) {
  std::vector<int> accelerators;
  for (int rank : group.ranks) accelerators.push_back(at(placement_, rank));
  collective::GroupLinks links = group_links(network_, accelerators);
  links.compressor = compressor;
  model.clear();
  if (options_.network.calibrated != nullptr) {
    // A calibrated model (its own latency and bandwidth by message size): its segments for the
    // chunks of a ring, bytes / ranks.
    const double message_bytes = static_cast<double>(op.bytes) / static_cast<double>(group.ranks.size());
    NetworkFactors factors(options_.network.calibrated);
    if (options_.network.per_core) factors.share_cores(cpu_core_sharing(network_, placement_));  // as the replay
    links = calibrated_links(links, factors, message_bytes);
    model = fmt::format(" with calibrated network model \"{}\" (its figures for {} messages)",
                        options_.network.calibrated->name, format_bytes(message_bytes));
  }
  return links;
}

void CollectivePlanner::choose_by_cost(const trace::Op& op, const trace::Group& group, CollectivePlan& plan) {
  std::string model;  // what the prediction assumed of the network, when not the platform's links
  const collective::GroupLinks links = predicted_links(op, group, plan.cost, model);
  std::vector<collective::Prediction> predictions = collective::predict_all_reduce(plan.request, links);
  plan.request.algorithm = collective::fastest(predictions).algorithm;
  add_group_note(fmt::format("auto: all_reduce of {} on {{group}} ({}): {}; predicted by closed form{}",
                             format_bytes(static_cast<double>(op.bytes)), group_shape(plan.request),
                             collective::describe(predictions, plan.request.algorithm), model),
                 group.name);
}

void CollectivePlanner::decide_compression(const trace::Op& op, const trace::Group& group, CollectivePlan& plan) {
  std::string model;
  const collective::GroupLinks links = predicted_links(op, group, plan.cost, model);
  // The compressed algorithm first: one that cannot run (a plain --algo with a compressor)
  // is an error, as it is under --compress-all.
  const collective::Prediction compressed =
      plan.request.algorithm == "auto" ? collective::fastest(collective::predict_all_reduce(plan.request, links))
                                       : collective::predict_algorithm(plan.request, links);
  collective::Request plain_request = plan.request;
  plain_request.compression = collective::Compression::kNone;
  plain_request.algorithm = "auto";
  const collective::Prediction plain = collective::fastest(collective::predict_all_reduce(plain_request, links));
  const bool faster = compressed.time_s < plain.time_s;
  const bool keep = faster || options_.compression.all;
  add_compression_part(
      fmt::format("all_reduce of {} on {{group}} ({}): plain {:.3f} ms ({}), compressed {:.3f} ms ({}): {}",
                  format_bytes(static_cast<double>(op.bytes)), group_shape(plan.request), plain.time_s * 1e3,
                  plain.algorithm, compressed.time_s * 1e3, compressed.algorithm,
                  !keep    ? "not compressed"
                  : faster ? "compressed"
                           : "compressed (--compress-all)"),
      group.name);
  if (keep) return;
  plan.compressed = false;
  plan.request.compression = collective::Compression::kNone;
  plan.cost = compress::CompressorCost{};
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
    const trace::Group& group = at(trace_.groups, op.group);
    throw InputError(trace_.source, op.line, trace_.op_field(rank, index),
                     fmt::format("{} on group \"{}\": {}{}", trace::op_kind_name(op.kind), group.name,
                                 e.file().empty() ? "" : e.file() + ": ", e.detail()));
  } catch (const std::invalid_argument& e) {
    throw InputError(trace_.source, op.line, trace_.op_field(rank, index), e.what());
  }
}

void CollectivePlanner::plan_all() {
  // A plan depends on the operator's form only (group, kind, size, dtype, root): each rank
  // plans the first operator of each form of its program, the first failing one in program
  // order as the operator-by-operator walk would find it.
  std::vector<std::vector<std::uint32_t>> collectives(trace_.programs.size());
  for (std::size_t p = 0; p < trace_.programs.size(); ++p) {
    for (std::uint32_t i : trace_.programs[p].partner_forms(true)) {
      if (trace::is_collective(trace_.programs[p].ops[i].kind)) collectives[p].push_back(i);
    }
  }
  for (int rank = 0; rank < trace_.world_size; ++rank) {
    for (std::uint32_t i : at(collectives, at(trace_.program_of, rank))) {
      plan(trace_.op(rank, i), rank, i);
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
