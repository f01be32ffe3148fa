#include "trace/trace.hpp"
#include "core/index.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>

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

const std::vector<std::string>& op_kind_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : kOpKinds) out.emplace_back(entry.first);
    return out;
  }();
  return names;
}

bool is_collective(OpKind kind) { return kind != OpKind::kCompute && kind != OpKind::kSend && kind != OpKind::kRecv; }

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
    for (std::size_t i = 0; i < group.ranks.size(); ++i)
      stage[static_cast<std::size_t>(group.ranks[i])] = static_cast<int>(i);
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
  for (int p : program_of) count += at(programs, p).ops.size();
  return count;
}

std::size_t Trace::program_op_count() const {
  std::size_t count = 0;
  for (const Program& program : programs) count += program.ops.size();
  return count;
}

std::vector<int> Trace::ranks_per_program() const {
  std::vector<int> count(programs.size(), 0);
  for (int p : program_of) ++at(count, p);
  return count;
}

void Program::add(Op op, std::span<const std::uint32_t> deps) {
  if (deps.size() > static_cast<std::size_t>(kMaxAfter) || op.stream >= kMaxStreams) {
    throw std::invalid_argument(
        fmt::format("an operator on stream {} after {} operators (at most stream {}, {} operators)", op.stream,
                    deps.size(), kMaxStreams - 1, kMaxAfter));
  }
  for (std::uint32_t d : deps) {
    if (d >= ops.size())
      throw std::invalid_argument(fmt::format("operator #{} cannot wait for operator #{}", ops.size(), d));
  }
  op.after_first = static_cast<std::uint32_t>(after.size());
  op.after_count = static_cast<std::uint8_t>(deps.size());
  after.insert(after.end(), deps.begin(), deps.end());
  ops.push_back(op);
}

std::vector<std::uint32_t> Program::partner_forms(bool sizes, std::vector<std::int32_t>* form_of) const {
  using Form = std::tuple<int, int, int, int, int, int, Names::Id, std::uint64_t, int>;
  std::map<Form, std::int32_t> seen;
  std::vector<std::uint32_t> first;
  if (form_of != nullptr) form_of->assign(ops.size(), -1);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.kind == OpKind::kCompute) continue;
    const auto [it, fresh] =
        seen.try_emplace(Form{static_cast<int>(op.kind), op.relative, static_cast<int>(op.peer_kind), op.group, op.peer,
                              op.root, op.tag, sizes ? op.bytes : 0, sizes ? static_cast<int>(op.dtype) : 0},
                         static_cast<std::int32_t>(first.size()));
    if (fresh) first.push_back(static_cast<std::uint32_t>(i));
    if (form_of != nullptr) (*form_of)[i] = it->second;
  }
  return first;
}

int Program::stream_count() const {
  int streams = 1;
  for (const Op& op : ops) streams = std::max(streams, op.stream + 1);
  return streams;
}

std::vector<char> Program::alone(bool but_messages) const {
  const std::size_t n = ops.size();
  const auto streams = static_cast<std::size_t>(stream_count());
  std::vector<char> out(n, 1);
  if (streams == 1) return out;
  // Per stream, its operators' positions in it; count[s]: how many it has; counted[s][k]: of
  // its first k operators, those that count (all, or all but sends and receives).
  std::vector<std::uint32_t> position(n);
  std::vector<std::uint32_t> count(streams, 0);
  std::vector<std::vector<std::uint32_t>> counted(streams, std::vector<std::uint32_t>(1, 0));
  for (std::size_t i = 0; i < n; ++i) {
    position[i] = count[ops[i].stream]++;
    const bool message = ops[i].kind == OpKind::kSend || ops[i].kind == OpKind::kRecv;
    counted[ops[i].stream].push_back(counted[ops[i].stream].back() + (but_messages && message ? 0 : 1));
  }
  // ended[i][s]: operators of stream s that have ended whenever i starts (stream order and
  // `after`, transitively: a prefix of the stream). Program order is a topological order.
  std::vector<std::uint32_t> ended(n * streams, 0);
  std::vector<std::size_t> last_on(streams, n);  // the latest operator of each stream so far
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t* mine = &ended[i * streams];
    auto take = [&](std::size_t j) {  // j has ended before i starts
      const std::uint32_t* theirs = &ended[j * streams];
      for (std::size_t s = 0; s < streams; ++s) mine[s] = std::max(mine[s], theirs[s]);
      mine[ops[j].stream] = std::max(mine[ops[j].stream], position[j] + 1);
    };
    if (last_on[ops[i].stream] != n) take(last_on[ops[i].stream]);
    for (std::uint32_t d : after_of(ops[i])) take(d);
    last_on[ops[i].stream] = i;
  }
  // waiting[i][s]: position in stream s of its first operator that cannot start before i
  // ends (count[s] when none): the operators after i on its stream and those after them.
  std::vector<std::vector<std::uint32_t>> dependants(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint32_t d : after_of(ops[i])) dependants[d].push_back(static_cast<std::uint32_t>(i));
  }
  std::vector<std::uint32_t> waiting(n * streams);
  std::vector<std::size_t> next_on(streams, n);
  for (std::size_t i = n; i-- > 0;) {
    std::uint32_t* mine = &waiting[i * streams];
    for (std::size_t s = 0; s < streams; ++s) mine[s] = count[s];
    auto take = [&](std::size_t j) {  // j cannot start before i ends
      const std::uint32_t* theirs = &waiting[j * streams];
      for (std::size_t s = 0; s < streams; ++s) mine[s] = std::min(mine[s], theirs[s]);
      mine[ops[j].stream] = std::min(mine[ops[j].stream], position[j]);
    };
    if (next_on[ops[i].stream] != n) take(next_on[ops[i].stream]);
    for (std::uint32_t j : dependants[i]) take(j);
    next_on[ops[i].stream] = i;
    for (std::size_t s = 0; s < streams; ++s) {
      // Stream s's operators [ended, mine[s]) may run meanwhile: any that counts?
      if (s != ops[i].stream && ended[i * streams + s] < mine[s] &&
          counted[s][mine[s]] > counted[s][ended[i * streams + s]])
        out[i] = 0;
    }
  }
  return out;
}

std::uint16_t Trace::intern_gemm(const GemmShape& shape) {
  // A trace has a few dozen distinct shapes (a layer's products): a scan beats a hash map.
  for (std::size_t i = gemms.size(); i-- > 0;) {
    if (gemms[i] == shape) return static_cast<std::uint16_t>(i + 1);
  }
  if (gemms.size() >= kMaxGemms) {
    throw std::length_error(fmt::format("more than {} distinct matrix-product shapes", kMaxGemms));
  }
  gemms.push_back(shape);
  return static_cast<std::uint16_t>(gemms.size());
}

void Trace::one_program_per_rank(int world) {
  world_size = world;
  programs.assign(static_cast<std::size_t>(world), {});
  program_of.resize(static_cast<std::size_t>(world));
  for (int r = 0; r < world; ++r) {
    at(programs, r).field = fmt::format("ranks[{}].ops", r);
    at(program_of, r) = r;
  }
}

std::string Trace::op_field(int rank, std::size_t k) const {
  return fmt::format("{}[{}]", programs[static_cast<std::size_t>(at(program_of, rank))].field, k);
}

void Trace::index_groups() {
  places_.assign(static_cast<std::size_t>(world_size), Place{});
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const Group& group = groups[g];
    if (group.kind == GroupKind::kOther) continue;
    const auto kind = static_cast<std::size_t>(group.kind);
    for (std::size_t i = 0; i < group.ranks.size(); ++i) {
      // Readers check ranks against world_size first; a caller that did not is a bug, not bad input.
      if (group.ranks[i] < 0 || group.ranks[i] >= world_size)
        throw std::logic_error(fmt::format("Trace::index_groups: group \"{}\" holds rank {} of {}", group.name,
                                           group.ranks[i], world_size));
      Place& place = places_[static_cast<std::size_t>(group.ranks[i])];
      place.group[kind] = static_cast<std::int32_t>(g);
      place.position[kind] = static_cast<std::int32_t>(i);
    }
  }
}

int Trace::group_of_kind(int rank, GroupKind kind) const {
  if (kind == GroupKind::kOther) return -1;
  if (places_.size() != static_cast<std::size_t>(world_size))
    throw std::logic_error("Trace::index_groups() was not called");
  return at(places_, rank).group[static_cast<std::size_t>(kind)];
}

std::string Trace::resolve(int rank, Op& op) const {
  if (op.relative == 0) return "";
  if (op.relative & kGroupByKind) {
    const auto kind = static_cast<GroupKind>(op.group);
    const int g = group_of_kind(rank, kind);
    if (g < 0) return fmt::format("rank {} is in no {} group", rank, group_kind_name(kind));
    op.group = g;
  }
  if (op.relative & kPeerInGroup) {
    const int g = group_of_kind(rank, op.peer_kind);
    if (g < 0) return fmt::format("rank {} is in no {} group", rank, group_kind_name(op.peer_kind));
    const Group& group = at(groups, g);
    const std::int64_t position =
        std::int64_t{at(places_, rank).position[static_cast<std::size_t>(op.peer_kind)]} + op.peer;
    if (position < 0 || position >= static_cast<std::int64_t>(group.ranks.size())) {
      return fmt::format("rank {} is member {} of {} group \"{}\" ({} ranks): it has no member {}", rank,
                         position - op.peer, group_kind_name(op.peer_kind), group.name, group.ranks.size(), position);
    }
    op.peer = at(group.ranks, position);
  }
  if (op.relative & kRootInGroup) {
    const Group& group = at(groups, op.group);
    if (op.root >= static_cast<std::int32_t>(group.ranks.size())) {
      return fmt::format("group \"{}\" of rank {} has {} ranks: it has no member {}", group.name, rank,
                         group.ranks.size(), op.root);
    }
    op.root = at(group.ranks, op.root);
  }
  op.relative = 0;
  return "";
}

Op Trace::op(int rank, std::size_t k) const {
  Op op = program_ops(rank)[k];
  if (op.relative != 0) {
    std::string why = resolve(rank, op);
    // Readers and builders resolve every operator of every rank once (validate()).
    if (!why.empty()) throw std::logic_error(fmt::format("{} on rank {}: {}", op_field(rank, k), rank, why));
  }
  return op;
}

}  // namespace ccsim::trace
