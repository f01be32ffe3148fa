#include "trace/trace.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace ccsim::trace {
namespace {

constexpr std::array<std::pair<std::string_view, OpKind>, 8> kOpKinds = {{
    {"compute", OpKind::kCompute},
    {"all_reduce", OpKind::kAllReduce},
    {"all_gather", OpKind::kAllGather},
    {"reduce_scatter", OpKind::kReduceScatter},
    {"broadcast", OpKind::kBroadcast},
    {"all_to_all", OpKind::kAllToAll},
    {"send", OpKind::kSend},
    {"recv", OpKind::kRecv},
}};

constexpr std::array<std::pair<std::string_view, GroupKind>, 4> kGroupKinds = {{
    {"tensor", GroupKind::kTensor},
    {"pipeline", GroupKind::kPipeline},
    {"data", GroupKind::kData},
    {"other", GroupKind::kOther},
}};

}  // namespace

std::string_view op_kind_name(OpKind kind) {
  for (const auto& [name, k] : kOpKinds) {
    if (k == kind) return name;
  }
  return "?";
}

std::optional<OpKind> parse_op_kind(std::string_view text) {
  for (const auto& [name, k] : kOpKinds) {
    if (name == text) return k;
  }
  return std::nullopt;
}

std::string_view op_kind_choices() {
  return "compute, all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, send, recv";
}

bool is_collective(OpKind kind) {
  return kind != OpKind::kCompute && kind != OpKind::kSend && kind != OpKind::kRecv;
}

std::string_view group_kind_name(GroupKind kind) {
  for (const auto& [name, k] : kGroupKinds) {
    if (k == kind) return name;
  }
  return "?";
}

std::optional<GroupKind> parse_group_kind(std::string_view text) {
  for (const auto& [name, k] : kGroupKinds) {
    if (name == text) return k;
  }
  return std::nullopt;
}

Names::Names() { intern(""); }

Names::Id Names::intern(std::string_view text) {
  auto it = ids_.find(std::string(text));
  if (it != ids_.end()) return it->second;
  Id id = static_cast<Id>(strings_.size());
  strings_.emplace_back(text);
  ids_.emplace(strings_.back(), id);
  return id;
}

int Group::index_of(int rank) const {
  auto it = std::find(ranks.begin(), ranks.end(), rank);
  return it == ranks.end() ? -1 : static_cast<int>(it - ranks.begin());
}

int Trace::group_index(std::string_view group_name) const {
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (groups[i].name == group_name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> Trace::pipeline_stages() const {
  std::vector<int> stage(static_cast<std::size_t>(world_size), 0);
  for (const Group& group : groups) {
    if (group.kind != GroupKind::kPipeline) continue;
    for (std::size_t i = 0; i < group.ranks.size(); ++i) stage[static_cast<std::size_t>(group.ranks[i])] = static_cast<int>(i);
  }
  return stage;
}

int Trace::pipeline_stage_count() const {
  int count = 1;
  for (const Group& group : groups) {
    if (group.kind == GroupKind::kPipeline) count = std::max(count, static_cast<int>(group.ranks.size()));
  }
  return count;
}

std::size_t Trace::op_count() const {
  std::size_t count = 0;
  for (const auto& rank_ops : ops) count += rank_ops.size();
  return count;
}

}  // namespace ccsim::trace
