#include "import/kineto.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "import/shapes.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::import {
namespace {

namespace fs = std::filesystem;

/// Timestamps of the legacy profiler are integer µs plus one offset, parsed into doubles of
/// about 1.8e15 (resolution 0.25 µs): comparisons allow this much.
constexpr double kEpsUs = 0.3;
/// The legacy profiler's resolution: a child may end this much after its parent.
constexpr double kResolutionUs = 1.0;
/// The largest byte count of one operator: what a native trace may hold.
constexpr double kMaxBytes = static_cast<double>(trace::kMaxBytes);

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

constexpr std::string_view kEvaluate = "autograd::engine::evaluate_function: ";

/// Backward nodes without a sequence-number link, by the forward kind that creates them.
std::string_view unlinked_kind(std::string_view node) {
  static const std::pair<std::string_view, std::string_view> kMap[] = {
      {"AddmmBackward0", "linear"},
      {"MmBackward0", "linear"},
      {"TBackward0", "linear"},
      {"BaddbmmBackward0", "baddbmm"},
      {"BmmBackward0", "bmm"},
      {"SoftmaxBackward0", "softmax"},
      {"ReluBackward0", "relu"},
      {"GeluBackward0", "gelu"},
      {"NativeLayerNormBackward0", "layernorm"},
      {"EmbeddingBackward0", "embedding"},
      {"MaskedFillBackward0", "mask"},
      {"torch::autograd::AccumulateGrad", "grad_accum"},
  };
  for (const auto& [n, k] : kMap)
    if (n == node) return k;
  return {};
}

/// Names whose time the importer attributes by the rules (everything else is counted as
/// not understood; its time stays in the enclosing operator).
bool understood(std::string_view name) {
  for (std::string_view p : {"aten::", "c10d::", "gloo:", "op:", "ccl:", "Iteration#",
                             "autograd::engine::", "torch::autograd::", "meta:", "record_param_comms", "nccl:"})
    if (starts_with(name, p)) return true;
  for (std::string_view s : {"Backward0", "Backward1", "Backward"})
    if (name.size() > s.size() && name.substr(name.size() - s.size()) == s) return true;
  return false;
}

enum class Phase : std::uint8_t { kFwd, kBwd, kStep };

/// Who a microsecond of the main thread belongs to: a compute operator name and label.
struct Key {
  trace::Names::Id name = 0;
  trace::Names::Id label = 0;
  Phase phase = Phase::kFwd;
  bool operator==(const Key& o) const { return name == o.name && label == o.label; }
};

/// "L0.attn.qkv" -> "attn.qkv"; "embed" -> "embed".
std::string role_of(std::string_view module) {
  if (module.size() > 1 && module[0] == 'L' && module.find('.') != std::string_view::npos &&
      std::isdigit(static_cast<unsigned char>(module[1])))
    return std::string(module.substr(module.find('.') + 1));
  return std::string(module);
}

/// A parsed `ccl:<op> k=v ...` wrapper name.
struct Ccl {
  trace::OpKind kind = trace::OpKind::kAllReduce;
  std::string op;
  std::map<std::string, std::string, std::less<>> fields;
};

struct Book {
  struct GroupInfo {
    std::vector<int> ranks;
    std::string where;
  };
  std::map<std::string, GroupInfo> groups;  ///< collective groups by name
  std::set<std::pair<int, int>> p2p;        ///< pipeline edges (src, dst) of forward sends
  std::set<std::pair<int, int>> p2p_any;    ///< all edges
};

class RankImporter {
 public:
  RankImporter(const RankProfile& p, const KinetoOptions& options, trace::Trace& trace, Book& book)
      : p_(p), options_(options), trace_(trace), book_(book) {}

  RankImport run() {
    out_.file = p_.file;
    out_.rank = p_.rank;
    find_main();
    sort_and_nest();
    link_sequences();
    out_.iteration = std::string(p_.name(p_.events[iteration_]));
    out_.iteration_ms = p_.events[iteration_].dur_us / 1000;
    const Key gap{trace_.names.intern("cpu_gap"), trace::Names::kEmpty, Phase::kFwd};
    visit(iteration_pos_, gap, false);
    for (double ms : out_.op_ms) out_.ops_ms += ms;
    summarise_streams();
    return std::move(out_);
  }

  std::vector<trace::Op> take_ops() { return std::move(ops_); }

 private:
  [[noreturn]] void fail_event(const Event& e, const std::string& field, const std::string& detail) const {
    throw InputError(p_.file, 0, fmt::format("traceEvents[{}]{}", e.ordinal, field.empty() ? "" : "." + field),
                     fmt::format("{} (event \"{}\")", detail, p_.name(e)));
  }

  void find_main() {
    std::map<int, std::uint32_t> found;
    for (std::uint32_t i = 0; i < p_.events.size(); ++i) {
      const Event& e = p_.events[i];
      if (p_.streams[e.stream].kind != StreamKind::kHostThread) continue;
      if (auto k = iteration_number(p_.name(e))) {
        if (found.count(*k)) fail_event(e, "name", fmt::format("a second Iteration#{} event", *k));
        found[*k] = i;
      }
    }
    if (found.empty())
      throw InputError(
          p_.file, 0, "traceEvents",
          "no Iteration#k event: the importer needs the iteration wrapped in record_function(\"Iteration#k\")");
    int k = options_.iteration < 0 ? found.begin()->first : options_.iteration;
    if (!found.count(k)) {
      std::string have;
      for (const auto& [n, _] : found) have += fmt::format("{}{}", have.empty() ? "" : ", ", n);
      throw InputError(p_.file, 0, "--iteration", fmt::format("no Iteration#{} in the trace (it has {})", k, have));
    }
    iteration_ = found[k];
    main_ = p_.events[iteration_].stream;
  }

  /// Orders the main thread's events by start (longer first, then file order) and nests them
  /// as the profiler does: an event is the child of the innermost open event that contains it.
  void sort_and_nest() {
    order_ = p_.streams[main_].events;
    std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
      const Event& x = p_.events[a];
      const Event& y = p_.events[b];
      if (x.ts_us != y.ts_us) return x.ts_us < y.ts_us;
      return x.dur_us > y.dur_us;
    });
    parent_.assign(order_.size(), -1);
    children_.assign(order_.size(), {});
    std::vector<std::int32_t> open;
    start_.assign(order_.size(), 0);
    end_.assign(order_.size(), 0);
    for (std::int32_t i = 0; i < static_cast<std::int32_t>(order_.size()); ++i) {
      const Event& e = p_.events[order_[i]];
      start_[i] = e.ts_us;
      end_[i] = e.end_us();
      while (!open.empty()) {
        const Event& top = p_.events[order_[open.back()]];
        const double top_end = end_[open.back()];
        if (e.ts_us >= top_end - kEpsUs && !(e.dur_us == 0 && top.dur_us == 0 && e.ts_us <= top.ts_us + kEpsUs)) {
          open.pop_back();
        } else if (e.end_us() > top_end + kResolutionUs + kEpsUs && order_[open.back()] != iteration_) {
          // Crosses the open event's end: not its child (the profiler does the same). The time
          // they share is the open event's already: this one counts from its end.
          ++out_.not_nested;
          start_[i] = std::max(start_[i], top_end);
          open.pop_back();
        } else {
          // A child is clipped to its parent: one that ends within the profiler's resolution
          // after it, one that crosses the iteration's end (the part inside is the iteration's),
          // and one whose parent was clipped.
          if (e.end_us() > top_end + kResolutionUs + kEpsUs) ++out_.crossing_iteration_end;
          end_[i] = std::min(end_[i], top_end);
          start_[i] = std::min(std::max(start_[i], start_[open.back()]), end_[i]);
          end_[i] = std::max(end_[i], start_[i]);
          parent_[i] = open.back();
          children_[open.back()].push_back(i);
          break;
        }
      }
      open.push_back(i);
      if (order_[i] == iteration_) iteration_pos_ = i;
    }
  }

  /// Sequence number -> op: region of the last forward op that carries it (ops that create
  /// no autograd node only peek the counter); backward subtrees are skipped.
  void link_sequences() {
    region_.assign(order_.size(), -1);
    std::vector<char> bwd(order_.size(), 0);
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const Event& e = p_.events[order_[i]];
      const std::string_view name = p_.name(e);
      const std::int32_t parent = parent_[i];
      bwd[i] = starts_with(name, kEvaluate) || (parent >= 0 && bwd[parent]);
      region_[i] = starts_with(name, "op:") ? static_cast<std::int32_t>(i) : parent >= 0 ? region_[parent] : -1;
      if (!bwd[i] && e.sequence >= 0) seq_region_[e.sequence] = region_[i];
    }
  }

  Key region_key(std::string_view op_name, Phase phase) {
    // op:<kind>:<module>
    const std::string_view rest = op_name.substr(3);
    const auto colon = rest.find(':');
    const std::string_view kind = colon == std::string_view::npos ? rest : rest.substr(0, colon);
    const std::string role = colon == std::string_view::npos ? std::string() : role_of(rest.substr(colon + 1));
    // The backward of a forward region is its own operator (label "bwd:<module>", as `trace
    // synth` writes it): it runs at another rate (the shared runs: 1.6x the forward's).
    return Key{trace_.names.intern(kind), trace_.names.intern(phase == Phase::kBwd ? "bwd:" + role : role), phase};
  }

  Key key_of(std::uint32_t pos, const Key& inherited) {
    const Event& e = p_.events[order_[pos]];
    const std::string_view name = p_.name(e);
    if (starts_with(name, "op:")) {
      const bool step = starts_with(name, "op:optimizer") || starts_with(name, "op:zero_grad");
      return region_key(name, step ? Phase::kStep : inherited.phase);
    }
    if (starts_with(name, kEvaluate)) {
      const std::string_view node = name.substr(kEvaluate.size());
      if (e.sequence >= 0) {
        auto it = seq_region_.find(e.sequence);
        if (it != seq_region_.end() && it->second >= 0)
          return region_key(p_.name(p_.events[order_[it->second]]), Phase::kBwd);
      }
      // Megatron's f and g (tensor-parallel copy/reduce) autograd functions.
      if (node == "CopyToTPBackward" || node == "ReduceFromTPBackward")
        return Key{trace_.names.intern("tp_comm_wrapper"), trace_.names.intern(node), Phase::kBwd};
      if (auto kind = unlinked_kind(node); !kind.empty())
        return Key{trace_.names.intern(kind), trace_.names.intern("bwd-unlinked"), Phase::kBwd};
      return Key{trace_.names.intern("bwd_other"), trace_.names.intern(node), Phase::kBwd};
    }
    return inherited;
  }

  /// Adds `us` of main-thread time to the operator `key`: the last one if it is the same.
  void emit(const Key& key, double us) {
    if (us <= 0) return;
    open_compute(key);
    ops_.back().duration_s += us * 1e-6;
    out_.op_ms.back() += us / 1000;
  }

  void open_compute(const Key& key) {
    if (!ops_.empty() && ops_.back().kind == trace::OpKind::kCompute && ops_.back().name == key.name &&
        ops_.back().label == key.label)
      return;
    trace::Op op;
    op.kind = trace::OpKind::kCompute;
    op.name = key.name;
    op.label = key.label;
    op.duration_s = 0;
    ops_.push_back(op);
    out_.op_ms.push_back(0);
    out_.op_event.push_back(-1);
  }

  Ccl parse_ccl(const Event& e) const {
    const std::string_view name = p_.name(e);
    Ccl c;
    std::size_t at = 4;
    std::size_t space = name.find(' ', at);
    c.op = std::string(name.substr(at, space == std::string_view::npos ? std::string_view::npos : space - at));
    const auto kind = trace::parse_op_kind(c.op);
    if (!kind || *kind == trace::OpKind::kCompute)
      fail_event(e, "name",
                 fmt::format("unknown ccl operation \"{}\" (expected one of {})", c.op, trace::op_kind_choices()));
    c.kind = *kind;
    while (space != std::string_view::npos) {
      at = space + 1;
      space = name.find(' ', at);
      const std::string_view item =
          name.substr(at, space == std::string_view::npos ? std::string_view::npos : space - at);
      if (item.empty()) continue;
      const auto eq = item.find('=');
      if (eq == std::string_view::npos) fail_event(e, "name", fmt::format("expected key=value, got \"{}\"", item));
      c.fields[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    }
    return c;
  }

  std::string need(const Event& e, const Ccl& c, std::string_view key) const {
    auto it = c.fields.find(key);
    if (it == c.fields.end() || it->second.empty()) fail_event(e, "name", fmt::format("ccl:{} without {}=", c.op, key));
    return it->second;
  }

  int rank_field(const Event& e, const Ccl& c, std::string_view key) const {
    const std::string text = need(e, c, key);
    const auto v = parse_int(text);
    if (!v || *v < 0) fail_event(e, "name", fmt::format("{}: expected a rank, got \"{}\"", key, text));
    check_rank(e, key, *v);
    return static_cast<int>(*v);
  }

  /// A rank named by an event exists: it is below the number of rank files imported together.
  void check_rank(const Event& e, std::string_view key, std::int64_t rank) const {
    if (rank >= trace_.world_size)
      fail_event(e, "name",
                 fmt::format("{}: rank {} but the import has {} rank file{} (ranks 0..{})", key, rank,
                             trace_.world_size, trace_.world_size == 1 ? "" : "s", trace_.world_size - 1));
  }

  /// Long: one case per collective and point-to-point form a profiler records.
  void add_comm(const Event& e) {
    const Ccl c = parse_ccl(e);
    trace::Op op;
    op.kind = c.kind;
    op.name = trace_.names.intern(trace::op_kind_name(c.kind));
    const std::string bytes_text = need(e, c, "bytes");
    const auto bytes = parse_uint(bytes_text);
    if (!bytes) fail_event(e, "name", fmt::format("bytes: expected a non-negative integer, got \"{}\"", bytes_text));
    op.bytes = *bytes;
    const std::string dtype_text = need(e, c, "dtype");
    const auto dtype = parse_dtype(dtype_text);
    if (!dtype)
      fail_event(e, "name", fmt::format("dtype: expected one of {}, got \"{}\"", dtype_choices(), dtype_text));
    op.dtype = *dtype;
    // What a native trace may hold (trace/native_reader.hpp): never write a trace the reader refuses.
    const auto element = static_cast<std::uint64_t>(dtype_bytes(op.dtype));
    if (op.bytes > trace::kMaxBytes || op.bytes % element != 0) {
      fail_event(e, "name",
                 fmt::format("bytes: expected a multiple of {} (the size of {}) up to {}, got \"{}\"", element,
                             dtype_name(op.dtype), trace::kMaxBytes, bytes_text));
    }
    if (auto shape = c.fields.find("shape"); shape != c.fields.end() && !shape->second.empty()) {
      std::uint64_t elements = 1;
      bool valid = true;
      for (std::size_t at = 0; at <= shape->second.size() && valid;) {
        const std::size_t x = std::min(shape->second.find('x', at), shape->second.size());
        const auto n = parse_uint(std::string_view(shape->second).substr(at, x - at));
        valid = n.has_value() && (*n == 0 || elements <= trace::kMaxBytes / *n);
        if (valid) elements *= *n;
        at = x + 1;
      }
      if (!valid || elements * element != op.bytes) {
        fail_event(e, "name",
                   fmt::format("shape={} of {} ({} bytes each) is not bytes={}", shape->second, dtype_name(op.dtype),
                               element, bytes_text));
      }
    }
    const std::string group = need(e, c, "group");
    const std::string tag = c.fields.count("tag") ? c.fields.find("tag")->second : "";
    // The summary's row: op(group prefix:role), role = tag without layer / micro-batch.
    std::string role = starts_with(tag, "L") && tag.find('.') != std::string::npos ? tag.substr(tag.find('.') + 1)
                                                                                   : tag.substr(0, tag.find('.'));
    op.label = trace_.names.intern(group.substr(0, 2) + (role.empty() ? "" : ":" + role));
    const std::string where = fmt::format("{}: traceEvents[{}]", p_.file, e.ordinal);
    if (c.kind == trace::OpKind::kSend || c.kind == trace::OpKind::kRecv) {
      const int src = rank_field(e, c, "src");
      const int dst = rank_field(e, c, "dst");
      const int self = c.kind == trace::OpKind::kSend ? src : dst;
      if (self != p_.rank)
        fail_event(e, "name",
                   fmt::format("ccl:{} with {}={} in the file of rank {}", c.op,
                               c.kind == trace::OpKind::kSend ? "src" : "dst", self, p_.rank));
      op.peer = c.kind == trace::OpKind::kSend ? dst : src;
      op.tag = trace_.names.intern(tag);
      book_.p2p_any.insert({src, dst});
      if (c.fields.count("phase") && c.fields.find("phase")->second == "fwd") book_.p2p.insert({src, dst});
    } else {
      std::vector<int> ranks;
      const std::string text = need(e, c, "ranks");
      std::size_t at = 0;
      while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const auto r = parse_int(std::string_view(text).substr(at, comma - at));
        if (!r || *r < 0) fail_event(e, "name", fmt::format("ranks: expected comma-separated ranks, got \"{}\"", text));
        check_rank(e, "ranks", *r);
        if (std::find(ranks.begin(), ranks.end(), static_cast<int>(*r)) != ranks.end())
          fail_event(e, "name", fmt::format("ranks: rank {} twice in \"{}\"", *r, text));
        ranks.push_back(static_cast<int>(*r));
        at = comma + 1;
      }
      if (std::find(ranks.begin(), ranks.end(), p_.rank) == ranks.end())
        fail_event(e, "name", fmt::format("group {} (ranks {}) does not hold rank {}", group, text, p_.rank));
      auto [it, inserted] = book_.groups.try_emplace(group, Book::GroupInfo{ranks, where});
      if (!inserted && it->second.ranks != ranks)
        fail_event(e, "name",
                   fmt::format("group {} has ranks {} here but other ranks at {}", group, text, it->second.where));
      if (c.kind == trace::OpKind::kBroadcast)
        op.root = c.fields.count("root") ? rank_field(e, c, "root") : ranks.front();
      op.group = -1;  // resolved once all groups are known
      group_names_.push_back({ops_.size(), group});
    }
    ops_.push_back(op);
    out_.op_ms.push_back(e.dur_us / 1000);
    out_.op_event.push_back(static_cast<std::int64_t>(e.ordinal));
  }

  void visit(std::int32_t pos, const Key& inherited, bool costed_above) {
    const Event& e = p_.events[order_[pos]];
    const std::string_view name = p_.name(e);
    if (!understood(name)) ++out_.unknown[std::string(name)];
    if (starts_with(name, "ccl:")) {
      add_comm(e);
      // The outer call counts for its whole time; calls inside it are not operators of their own.
      std::vector<std::int32_t> inside = children_[pos];
      while (!inside.empty()) {
        const std::int32_t c = inside.back();
        inside.pop_back();
        const std::string_view inner = p_.name(p_.events[order_[c]]);
        if (starts_with(inner, "ccl:")) ++out_.nested_calls[std::string(inner.substr(0, inner.find(' ')))];
        inside.insert(inside.end(), children_[c].begin(), children_[c].end());
      }
      return;
    }
    const Key key = key_of(static_cast<std::uint32_t>(pos), inherited);
    bool costed = costed_above;
    if (!costed && e.dims != 0) {
      const OpCost cost = op_cost(name, p_.input_dims(e), options_.elem_bytes);
      if (cost.known) {
        open_compute(key);
        // A native trace holds at most 2^50 bytes per operator (traces/README.md): shapes
        // beyond that are not a profile of a real program (op_cost ignores non-positive extents).
        const double total = static_cast<double>(ops_.back().bytes) + cost.bytes;
        if (!(cost.bytes >= 0 && total < kMaxBytes && cost.flops >= 0 && std::isfinite(cost.flops))) {
          fail_event(e, "args.Input Dims",
                     fmt::format("the shapes give {:g} bytes and {:g} FLOPs: more than a trace counts (fewer than {:g} "
                                 "bytes per operator)",
                                 cost.bytes, cost.flops, kMaxBytes));
        }
        ops_.back().flops += cost.flops;
        ops_.back().bytes += static_cast<std::uint64_t>(cost.bytes);
        costed = true;
      }
    }
    double cursor = start_[pos];
    for (std::int32_t child : children_[pos]) {
      const Event& c = p_.events[order_[child]];
      emit(key, start_[child] - cursor);
      if (starts_with(p_.name(c), "ccl:")) {
        visit(child, key, costed);  // a collective counts for its whole (clipped) duration
        out_.op_ms.back() = (end_[child] - start_[child]) / 1000;
      } else {
        visit(child, key, costed);
      }
      cursor = std::max(cursor, end_[child]);
    }
    emit(key, end_[pos] - cursor);
  }

  void summarise_streams() {
    const Event& it = p_.events[iteration_];
    for (std::uint32_t s = 0; s < p_.streams.size(); ++s) {
      StreamSummary sum;
      sum.kind = p_.streams[s].kind;
      sum.id = p_.streams[s].id;
      sum.main = s == main_;
      for (std::uint32_t i : p_.streams[s].events) {
        const Event& e = p_.events[i];
        if (i != iteration_ && (e.ts_us < it.ts_us - kEpsUs || e.ts_us >= it.end_us() - kEpsUs)) {
          ++out_.outside_iteration;
          continue;
        }
        ++sum.events;
        sum.busy_ms += e.dur_us / 1000;
        if (!sum.main) {
          ++sum.by_name[std::string(p_.name(e))];
          // Other streams are summarised, not imported: a name the importer has no rule for
          // is reported with the rest.
          if (!understood(p_.name(e)))
            ++out_.unknown[fmt::format("{} [{} {}]", p_.name(e), stream_kind_name(sum.kind), sum.id)];
        }
      }
      out_.streams.push_back(std::move(sum));
    }
    out_.outside_iteration += p_.dropped;  // not even kept by the reader
    for (const auto& [name, n] : p_.unknown) out_.unknown[name] += n;
  }

 public:
  std::vector<std::pair<std::size_t, std::string>> group_names_;  ///< (op index, group name)

 private:
  const RankProfile& p_;
  const KinetoOptions& options_;
  trace::Trace& trace_;
  Book& book_;
  RankImport out_;
  std::vector<trace::Op> ops_;
  std::uint32_t iteration_ = 0;
  std::int32_t iteration_pos_ = -1;
  std::uint32_t main_ = 0;
  std::vector<std::uint32_t> order_;
  std::vector<std::int32_t> parent_;
  std::vector<double> start_;  ///< start of each event, clipped to its parent's and past an overlapped sibling's end
  std::vector<double> end_;    ///< end of each event, clipped to its parent's
  std::vector<std::vector<std::int32_t>> children_;
  std::vector<std::int32_t> region_;
  std::map<std::int64_t, std::int32_t> seq_region_;
};

trace::GroupKind kind_of_group(std::string_view name) {
  if (starts_with(name, "tp")) return trace::GroupKind::kTensor;
  if (starts_with(name, "dp")) return trace::GroupKind::kData;
  if (starts_with(name, "pp")) return trace::GroupKind::kPipeline;
  return trace::GroupKind::kOther;
}

/// Pipeline groups from the point-to-point pairs: each connected set of ranks is one
/// pipeline, ordered by the direction of the forward sends (ties and cycles by rank).
std::vector<std::vector<int>> pipelines(const Book& book) {
  std::map<int, std::set<int>> adj;
  for (const auto& [a, b] : book.p2p_any) {
    adj[a].insert(b);
    adj[b].insert(a);
  }
  std::set<int> seen;
  std::vector<std::vector<int>> out;
  for (const auto& [start, _] : adj) {
    if (seen.count(start)) continue;
    std::vector<int> comp;
    std::vector<int> todo{start};
    seen.insert(start);
    while (!todo.empty()) {
      const int r = todo.back();
      todo.pop_back();
      comp.push_back(r);
      for (int n : adj[r])
        if (seen.insert(n).second) todo.push_back(n);
    }
    std::sort(comp.begin(), comp.end());
    // Kahn's order on the forward edges, smallest rank first.
    std::map<int, int> indegree;
    for (int r : comp) indegree[r] = 0;
    for (const auto& [a, b] : book.p2p)
      if (indegree.count(a) && indegree.count(b)) ++indegree[b];
    std::vector<int> order;
    std::set<int> ready;
    for (const auto& [r, d] : indegree)
      if (d == 0) ready.insert(r);
    while (!ready.empty()) {
      const int r = *ready.begin();
      ready.erase(ready.begin());
      order.push_back(r);
      for (const auto& [a, b] : book.p2p)
        if (a == r && --indegree[b] == 0) ready.insert(b);
    }
    out.push_back(order.size() == comp.size() ? order : comp);
  }
  return out;
}

}  // namespace

std::string breakdown_row(const trace::Trace& trace, const trace::Op& op) {
  const std::string name(trace.op_name(op));
  if (op.kind == trace::OpKind::kCompute && name == "cpu_gap") return "python_untraced";
  std::string label(trace.op_label(op));
  if (label.starts_with("bwd:")) label.erase(0, 4);  // the rows hold forward and backward together
  return label.empty() ? name : fmt::format("{}({})", name, label);
}

KinetoImport import_kineto(const std::vector<RankProfile>& profiles, const KinetoOptions& options) {
  if (profiles.empty()) throw InputError("command line", 0, "", "no rank files to import");
  KinetoImport result;
  trace::Trace& trace = result.trace;
  trace.name = options.name;
  trace.source = options.source;
  trace.iterations = 1;
  trace.hardware = options.hardware;

  // Ranks: each profile names its rank; together they must be 0..W-1.
  int world = static_cast<int>(profiles.size());
  std::map<int, const RankProfile*> by_rank;
  for (const RankProfile& p : profiles) {
    if (p.rank < 0)
      throw InputError(p.file, 0, "distributedInfo.rank", "missing: the file does not say which rank it profiles");
    if (p.world_size > 0 && p.world_size != world)
      throw InputError(p.file, 0, "distributedInfo.world_size",
                       fmt::format("the file says world_size {} but {} rank files were given", p.world_size, world));
    if (auto [it, inserted] = by_rank.emplace(p.rank, &p); !inserted)
      throw InputError(p.file, 0, "distributedInfo.rank",
                       fmt::format("rank {} again (also {})", p.rank, it->second->file));
    if (p.rank >= world)
      throw InputError(p.file, 0, "distributedInfo.rank",
                       fmt::format("rank {} but only {} rank files were given", p.rank, world));
  }
  trace.one_program_per_rank(world);

  Book book;
  std::vector<std::vector<std::pair<std::size_t, std::string>>> group_refs(static_cast<std::size_t>(world));
  for (const auto& [rank, profile] : by_rank) {
    RankImporter importer(*profile, options, trace, book);
    result.ranks.push_back(importer.run());
    std::vector<trace::Op>& ops = trace.programs[static_cast<std::size_t>(rank)].ops;
    ops = importer.take_ops();
    // Collectives and transfers keep their measured call time (for calibrate trace; the replay simulates them).
    const std::vector<double>& op_ms = result.ranks.back().op_ms;
    for (std::size_t i = 0; i < ops.size() && i < op_ms.size(); ++i) {
      if (ops[i].kind != trace::OpKind::kCompute) ops[i].measured_s = op_ms[i] * 1e-3;
    }
    group_refs[static_cast<std::size_t>(rank)] = importer.group_names_;
  }

  // A rank is in at most one group of each kind (as a native trace requires).
  std::map<std::pair<int, trace::GroupKind>, const std::pair<const std::string, Book::GroupInfo>*> member;
  for (const auto& entry : book.groups) {
    const auto& [name, info] = entry;
    trace::Group g;
    g.name = name;
    g.kind = kind_of_group(name);
    g.ranks = info.ranks;
    for (int r : info.ranks) {
      auto [it, fresh] = member.try_emplace({r, g.kind}, &entry);
      if (!fresh) {
        throw InputError(info.where, 0, "name",
                         fmt::format("group {} holds rank {}, which is already in {} group {} (at {}); a rank belongs "
                                     "to at most one {} group",
                                     name, r, trace::group_kind_name(g.kind), it->second->first,
                                     it->second->second.where, trace::group_kind_name(g.kind)));
      }
    }
    trace.groups.push_back(std::move(g));
  }
  int pp_index = 0;
  for (const auto& chain : pipelines(book)) {
    if (chain.size() < 2) continue;
    std::string name;
    do name = fmt::format("pp{}", pp_index++);
    while (trace.group_index(name) >= 0);
    trace.groups.push_back(trace::Group{name, trace::GroupKind::kPipeline, chain, 0});
  }
  for (std::size_t r = 0; r < group_refs.size(); ++r)
    for (const auto& [op, name] : group_refs[r]) trace.programs[r].ops[op].group = trace.group_index(name);
  trace.index_groups();

  trace.description = fmt::format(
      "imported by ccsim trace import kineto from {} PyTorch profiler rank files, {} of each; compute durations "
      "are measured on the profiled machine, collectives and transfers are simulated",
      world, result.ranks.empty() ? std::string("one iteration") : result.ranks.front().iteration);
  return result;
}

std::vector<std::string> kineto_rank_files(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      std::vector<std::pair<long, std::string>> found;
      for (const auto& entry : fs::directory_iterator(input)) {
        const std::string name = entry.path().filename().string();
        std::string_view stem = name;
        if (stem.ends_with(".gz")) stem.remove_suffix(3);
        if (!starts_with(stem, "rank") || !stem.ends_with(".json")) continue;
        const auto n = parse_int(stem.substr(4, stem.size() - 9));
        if (!n) continue;  // rank0.legacy.json and friends
        found.emplace_back(static_cast<long>(*n), entry.path().string());
      }
      if (found.empty()) throw InputError(input, 0, "", "no rank<N>.json or rank<N>.json.gz files in this directory");
      std::sort(found.begin(), found.end());
      for (std::size_t i = 1; i < found.size(); ++i) {
        if (found[i].first == found[i - 1].first) {
          throw InputError(
              found[i].second, 0, "",
              fmt::format("rank {} has two files here (also {}): keep one", found[i].first, found[i - 1].second));
        }
      }
      for (auto& [_, f] : found) files.push_back(std::move(f));
    } else if (fs::is_regular_file(input, ec)) {
      files.push_back(input);
    } else {
      throw InputError(input, 0, "", "no such file or directory");
    }
  }
  return files;
}

}  // namespace ccsim::import
