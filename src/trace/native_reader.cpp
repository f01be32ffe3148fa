#include "trace/native_reader.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/phase.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"
#include "core/spelling.hpp"
#include "trace/validate.hpp"
#include "core/index.hpp"

namespace ccsim::trace {
namespace {

using json::ObjectReader;
using json::Value;

class NativeReader {
 public:
  NativeReader(Trace& trace, const std::string& file) : trace_(trace), file_(file) {}

  void read(const Value& root) {
    ObjectReader doc(root, file_, "");
    std::string format = doc.required("format").string();
    if (format != kNativeFormat) {
      doc.at("format").fail(fmt::format("expected \"{}\", got \"{}\"", kNativeFormat, format));
    }
    std::int64_t version = doc.required("version").integer();
    if (version != 1 && version != kNativeVersion) {
      doc.at("version").fail(fmt::format("expected 1 or {} (the versions this build reads), got \"{}\"", kNativeVersion,
                                         doc.required("version")->text()));
    }
    version_ = static_cast<int>(version);
    trace_.name = doc.required("name").string();
    trace_.description = doc.optional("description").string().value_or("");
    trace_.platform = doc.optional("platform").string().value_or("");
    trace_.placement = doc.optional("placement").string().value_or("");
    if (doc.has("placement")) trace_.placement_line = doc.at("placement").line;
    if (const std::optional<std::int64_t> iterations = doc.optional("iterations").positive_integer()) {
      if (*iterations > (1 << 20)) {
        doc.at("iterations").fail(fmt::format("expected at most 1048576 iterations, got \"{}\"", *iterations));
      }
      trace_.iterations = static_cast<int>(*iterations);
    }
    if (doc.optional("hardware")) read_hardware(doc);
    if (doc.optional("workload")) read_workload(doc);
    doc.allow({"config", "source"});  // free-form metadata, documented in traces/README.md
    std::int64_t world = doc.required("world_size").positive_integer();
    if (world > (1 << 24)) doc.at("world_size").fail(fmt::format("expected at most 16777216 ranks, got \"{}\"", world));
    trace_.world_size = static_cast<int>(world);
    read_groups(doc);
    trace_.index_groups();
    if (version_ == 1) {
      read_ranks(doc);
    } else {
      read_programs(doc);
    }
    doc.finish();
  }

 private:
  void read_hardware(ObjectReader& doc) {
    ObjectReader h = doc.child("hardware");
    Hardware hw;
    hw.name = h.required("name").string();
    if (hw.name.empty()) h.at("name").fail("expected a non-empty name, got \"\"");
    hw.peak_flops = h.optional("peak_flops").number_in(0, kMaxPeakFlops, true).value_or(0);
    hw.memory_Bps = h.optional("memory_bandwidth").number_in(0, kMaxMemoryBps, true).value_or(0);
    hw.source = h.optional("source").string().value_or("");
    h.finish();
    trace_.hardware = std::move(hw);
  }

  void read_workload(ObjectReader& doc) {
    ObjectReader w = doc.child("workload");
    Workload workload;
    workload.global_batch = w.optional("global_batch").integer_in(1, std::int64_t{1} << 40).value_or(0);
    workload.sequence_length = w.optional("sequence_length").integer_in(1, std::int64_t{1} << 40).value_or(0);
    workload.model_flops = w.optional("model_flops").number_in(0, kMaxWorkloadFlops, true).value_or(0);
    workload.model_flops_source = w.optional("model_flops_source").string().value_or("");
    w.finish();
    trace_.workload = std::move(workload);
  }

  void read_groups(ObjectReader& doc) {
    const Value* groups = doc.optional("groups").array();
    if (groups == nullptr) return;
    std::vector<std::vector<int>> membership(3, std::vector<int>(static_cast<std::size_t>(trace_.world_size), -1));
    for (std::size_t i = 0; i < groups->items().size(); ++i) {
      ObjectReader g(groups->items()[i], file_, json::item_path("groups", i));
      Group group;
      group.line = g.line();
      group.name = g.required("name").string();
      if (version_ >= 2 && group.name.starts_with('@')) {
        g.at("name").fail(
            fmt::format("expected a name that does not start with '@' (\"@tensor\", ... name a rank's "
                        "own group in version 2), got \"{}\"",
                        group.name));
      }
      if (group_ids_.count(group.name) != 0) {
        g.at("name").fail(fmt::format("group \"{}\" is defined twice", group.name));
      }
      std::string kind = g.required("kind").choice({"tensor", "pipeline", "data", "other"});
      group.kind = *parse_group_kind(kind);
      const Value& ranks = g.required("ranks").array();
      if (ranks.items().empty()) g.at("ranks").fail("expected at least one rank, got []");
      for (std::size_t k = 0; k < ranks.items().size(); ++k) {
        SourceRef where{file_, ranks.items()[k].line(), json::item_path(g.member_path("ranks"), k)};
        std::int64_t rank = json::as_integer(ranks.items()[k], where);
        check_rank(rank, where);
        if (group.index_of(static_cast<int>(rank)) >= 0) {
          where.fail(fmt::format("rank {} appears twice in group \"{}\"", rank, group.name));
        }
        group.ranks.push_back(static_cast<int>(rank));
        if (group.kind != GroupKind::kOther) {
          int& owner = membership[static_cast<std::size_t>(group.kind)][static_cast<std::size_t>(rank)];
          if (owner >= 0) {
            where.fail(fmt::format("rank {} is already in {} group \"{}\"; a rank belongs to at most one {} group",
                                   rank, group_kind_name(group.kind), at(trace_.groups, owner).name,
                                   group_kind_name(group.kind)));
          }
          owner = static_cast<int>(trace_.groups.size());
        }
      }
      g.finish();
      group_ids_.emplace(group.name, static_cast<int>(trace_.groups.size()));
      trace_.groups.push_back(std::move(group));
    }
  }

  void check_rank(std::int64_t rank, const SourceRef& where) const {
    if (rank < 0 || rank >= trace_.world_size) {
      where.fail(fmt::format("expected a rank in 0..{} (world_size is {}), got \"{}\"", trace_.world_size - 1,
                             trace_.world_size, rank));
    }
  }

  void read_ranks(ObjectReader& doc) {
    const Value& ranks = doc.required("ranks").array();
    trace_.one_program_per_rank(trace_.world_size);
    // Entries are in rank order, so that 'ranks[R].ops[K]' names rank R's operator K everywhere.
    for (std::size_t i = 0; i < ranks.items().size(); ++i) {
      ObjectReader r(ranks.items()[i], file_, json::item_path("ranks", i));
      if (i >= static_cast<std::size_t>(trace_.world_size)) {
        r.here().fail(fmt::format("more rank entries than world_size ({})", trace_.world_size));
      }
      std::int64_t rank = r.required("rank").integer();
      if (rank != static_cast<std::int64_t>(i)) {
        r.at("rank").fail(fmt::format("expected {} (entries are listed in rank order), got \"{}\"", i, rank));
      }
      const Value& ops = r.required("ops").array();
      const std::string ops_path = r.member_path("ops");
      trace_.programs[i].ops.reserve(ops.items().size());
      for (std::size_t k = 0; k < ops.items().size(); ++k) {
        ObjectReader o(ops.items()[k], file_, json::item_path(ops_path, k));
        read_op(o, static_cast<int>(rank), trace_.programs[i]);
      }
      r.finish();
    }
    if (ranks.items().size() < static_cast<std::size_t>(trace_.world_size)) {
      doc.at("ranks").fail(
          fmt::format("expected {} entries (world_size), got {}", trace_.world_size, ranks.items().size()));
    }
  }

  /// Version 2: "programs", each with the ranks that run it (integers, or [first, last]
  /// ranges) and its operators, whose partners may be relative to the rank ("@tensor",
  /// "@pipeline+1", "@0"). Every rank runs exactly one program.
  void read_programs(ObjectReader& doc) {
    const Value& programs = doc.required("programs").array();
    trace_.program_of.assign(static_cast<std::size_t>(trace_.world_size), -1);
    for (std::size_t p = 0; p < programs.items().size(); ++p) {
      ObjectReader r(programs.items()[p], file_, json::item_path("programs", p));
      const int index = static_cast<int>(p);
      const Value& ranks = r.required("ranks").array();
      if (ranks.items().empty()) r.at("ranks").fail("expected at least one rank or range, got []");
      for (std::size_t k = 0; k < ranks.items().size(); ++k) {
        const Value& item = ranks.items()[k];
        SourceRef where{file_, item.line(), json::item_path(r.member_path("ranks"), k)};
        std::int64_t first = 0;
        std::int64_t last = 0;
        if (item.is_array()) {
          if (item.items().size() != 2)
            where.fail(fmt::format("expected a rank or a range [first, last], got {} numbers", item.items().size()));
          first = json::as_integer(item.items()[0], where);
          last = json::as_integer(item.items()[1], where);
          check_rank(first, where);
          check_rank(last, where);
          if (last < first)
            where.fail(fmt::format("expected a range [first, last] with first <= last, got [{}, {}]", first, last));
        } else {
          first = last = json::as_integer(item, where);
          check_rank(first, where);
        }
        for (std::int64_t rank = first; rank <= last; ++rank) {
          int& owner = at(trace_.program_of, rank);
          if (owner >= 0) {
            where.fail(fmt::format("rank {} already runs programs[{}]; a rank runs exactly one program", rank, owner));
          }
          owner = index;
        }
      }
      Program program;
      program.field = r.member_path("ops");
      const Value& ops = r.required("ops").array();
      program.ops.reserve(ops.items().size());
      for (std::size_t k = 0; k < ops.items().size(); ++k) {
        ObjectReader o(ops.items()[k], file_, json::item_path(program.field, k));
        read_op(o, -1, program);
      }
      r.finish();
      trace_.programs.push_back(std::move(program));
    }
    for (int rank = 0; rank < trace_.world_size; ++rank) {
      if (at(trace_.program_of, rank) < 0) {
        doc.at("programs")
            .fail(fmt::format("rank {} runs no program (each of the world_size {} ranks runs one)", rank,
                              trace_.world_size));
      }
    }
  }

  /// Version 2's "@KIND" (the rank's group of that kind); nullopt for a group name.
  std::optional<GroupKind> relative_kind(const std::string& text, ObjectReader& o, std::string_view key) const {
    if (version_ < 2 || !text.starts_with('@')) return std::nullopt;
    auto kind = parse_group_kind(std::string_view(text).substr(1));
    if (!kind || *kind == GroupKind::kOther) {
      o.at(key).fail(
          fmt::format("expected @tensor, @pipeline or @data (the rank's own group of that kind), got \"{}\"", text));
    }
    return kind;
  }

  /// Reads one operator and appends it to `program`.
  void read_op(ObjectReader& o, int rank, Program& program) {
    Op op;
    op.line = o.line();
    std::string kind_text = o.required("kind").string();
    auto kind = parse_op_kind(kind_text);
    if (!kind) {
      o.at("kind").fail(fmt::format("expected one of {}, got \"{}\"{}", op_kind_choices(), kind_text,
                                    did_you_mean(kind_text, op_kind_names())));
    }
    op.kind = *kind;
    if (auto label = o.optional("label").string()) op.label = trace_.names.intern(*label);
    switch (op.kind) {
      case OpKind::kCompute:
        read_compute(o, op);
        break;
      case OpKind::kSend:
      case OpKind::kRecv:
        read_p2p(o, op, rank);
        break;
      default:
        read_collective(o, op, rank);
        break;
    }
    const std::vector<std::uint32_t> after = read_stream(o, op, program.ops.size());
    o.finish();
    program.add(op, after);
  }

  /// "stream" (0..kMaxStreams-1, 0 when absent) and "after": the earlier operators, by index
  /// in the same list, that must end before operator `index` starts.
  std::vector<std::uint32_t> read_stream(ObjectReader& o, Op& op, std::size_t index) {
    op.stream =
        static_cast<std::uint8_t>(o.optional("stream").non_negative_integer_at_most(kMaxStreams - 1).value_or(0));
    std::vector<std::uint32_t> after;
    const json::OptionalField list = o.optional("after");
    if (!list) return after;
    const SourceRef field = o.at("after");
    if (!list->is_array())
      field.fail("expected an array of operator indices (earlier operators of this list), e.g. [12]");
    if (list->items().size() > static_cast<std::size_t>(kMaxAfter)) {
      field.fail(fmt::format("expected at most {} operators, got {}", kMaxAfter, list->items().size()));
    }
    for (std::size_t k = 0; k < list->items().size(); ++k) {
      const SourceRef where{file_, list->items()[k].line(), json::item_path(o.member_path("after"), k)};
      const std::int64_t dep = json::as_integer(list->items()[k], where);
      if (index == 0)
        where.fail(fmt::format("the first operator of a list has no earlier operator to follow, got \"{}\"", dep));
      if (dep < 0 || static_cast<std::size_t>(dep) >= index) {
        where.fail(fmt::format("expected the index of an earlier operator of this list (0..{}), got \"{}\"",
                               static_cast<std::int64_t>(index) - 1, dep));
      }
      after.push_back(static_cast<std::uint32_t>(dep));
    }
    return after;
  }

  void read_compute(ObjectReader& o, Op& op) {
    op.name = trace_.names.intern(o.required("name").string());
    auto duration_ms = o.optional("duration_ms").number_in(0, kMaxDurationMs);
    auto flops = o.optional("flops").number_in(0, kMaxFlops);
    auto bytes = o.optional("bytes").non_negative_integer_at_most(kMaxBytes);
    if (o.optional("gemm")) read_gemm(o, op);
    if (!duration_ms && !flops && op.gemm == 0) {
      o.here().fail("a compute operator needs duration_ms, flops or gemm");
    }
    op.duration_s = duration_ms ? *duration_ms * 1e-3 : -1.0;
    op.flops = flops ? *flops : op.gemm != 0 ? trace_.gemm_of(op)->flops() : 0.0;
    op.bytes = bytes.value_or(0);
  }

  /// "gemm": {"m", "n", "k", "batch" (default 1), "dtype", "pass": "forward" (default) or "backward"}.
  void read_gemm(ObjectReader& o, Op& op) {
    ObjectReader g = o.child("gemm");
    GemmShape shape;
    auto dimension = [&](std::string_view key) {
      return static_cast<std::uint32_t>(g.required(key).integer_in(1, kMaxGemmDimension));
    };
    shape.m = dimension("m");
    shape.n = dimension("n");
    shape.k = dimension("k");
    shape.batch = g.has("batch") ? dimension("batch") : 1;
    shape.dtype = read_dtype(g, true);
    shape.backward = g.has("pass") && g.required("pass").choice({"forward", "backward"}) == "backward";
    g.finish();
    if (!(shape.flops() <= kMaxFlops)) {
      o.at("gemm").fail(fmt::format("{} x {} x {} x {} is {:.4g} FLOPs, more than {:g}", shape.m, shape.n, shape.k,
                                    shape.batch, shape.flops(), kMaxFlops));
    }
    try {
      op.gemm = trace_.intern_gemm(shape);
    } catch (const std::length_error& e) {
      o.at("gemm").fail(fmt::format("{} in one trace", e.what()));
    }
  }

  DType read_dtype(ObjectReader& o, bool required) {
    std::optional<std::string> text =
        required ? std::optional<std::string>(o.required("dtype").string()) : o.optional("dtype").string();
    if (!text) return DType::kF32;
    auto dtype = parse_dtype(*text);
    if (!dtype) {
      o.at("dtype").fail(
          fmt::format("expected one of {}, got \"{}\"{}", dtype_choices(), *text, did_you_mean(*text, dtype_names())));
    }
    return *dtype;
  }

  void read_bytes(ObjectReader& o, Op& op) {
    op.bytes = o.required("bytes").non_negative_integer_at_most(kMaxBytes);
    if (op.bytes % static_cast<std::uint64_t>(dtype_bytes(op.dtype)) != 0) {
      o.at("bytes").fail(fmt::format("expected a multiple of {} (the size of {}), got \"{}\"", dtype_bytes(op.dtype),
                                     dtype_name(op.dtype), op.bytes));
    }
  }

  void read_measured(ObjectReader& o, Op& op) {
    if (auto ms = o.optional("measured_ms").number_in(0, kMaxDurationMs)) op.measured_s = *ms * 1e-3;
  }

  void read_p2p(ObjectReader& o, Op& op, int rank) {
    op.name = trace_.names.intern(op_kind_name(op.kind));
    read_measured(o, op);
    const Value& peer_value = *o.required("peer");
    if (version_ >= 2 && peer_value.is_string()) {
      read_relative_peer(o, op, peer_value.text());
    } else {
      std::int64_t peer = o.required("peer").integer();
      if (peer < 0 || peer >= trace_.world_size) check_rank(peer, o.at("peer"));  // the location only on error
      if (peer == rank)
        o.at("peer").fail(fmt::format("a rank cannot {} to itself, got \"{}\"", op_kind_name(op.kind), peer));
      op.peer = static_cast<int>(peer);
    }
    op.dtype = read_dtype(o, false);
    read_bytes(o, op);
    if (const json::OptionalField tag = o.optional("tag")) {
      if (tag->is_string()) {
        op.tag = trace_.names.intern(tag->text());
      } else {
        op.tag = trace_.names.intern(fmt::format("{}", json::as_integer(*tag, o.at("tag"))));
      }
    }
  }

  /// "@KIND+N" / "@KIND-N": the member N places after / before the rank in its group of KIND.
  void read_relative_peer(ObjectReader& o, Op& op, const std::string& text) {
    const std::size_t sign = text.find_first_of("+-");
    auto kind = sign == std::string::npos ? std::nullopt : parse_group_kind(std::string_view(text).substr(1, sign - 1));
    std::int64_t offset = 0;
    bool number = sign != std::string::npos && sign + 1 < text.size() && text.size() - sign <= 9;
    for (std::size_t i = sign + 1; number && i < text.size(); ++i) {
      number = text[i] >= '0' && text[i] <= '9';
      offset = offset * 10 + (text[i] - '0');
    }
    if (!text.starts_with('@') || !kind || *kind == GroupKind::kOther || !number || offset == 0) {
      o.at("peer").fail(
          fmt::format("expected a rank or @tensor|@pipeline|@data followed by +N or -N (N >= 1: the member N "
                      "places after or before the rank in its group of that kind), got \"{}\"",
                      text));
    }
    op.relative |= kPeerInGroup;
    op.peer_kind = *kind;
    op.peer = static_cast<std::int32_t>(text[sign] == '-' ? -offset : offset);
  }

  void read_collective(ObjectReader& o, Op& op, int rank) {
    op.name = trace_.names.intern(op_kind_name(op.kind));
    read_measured(o, op);
    std::string group_name = o.required("group").string();
    if (auto kind = relative_kind(group_name, o, "group")) {
      read_relative_collective(o, op, *kind);
      return;
    }
    auto id = group_ids_.find(group_name);
    const int group = id == group_ids_.end() ? -1 : id->second;
    if (group < 0) {
      std::vector<std::string> names;
      for (const Group& g : trace_.groups) {
        if (names.size() == 12) {
          names.emplace_back("...");
          break;
        }
        names.push_back(g.name);
      }
      o.at("group").fail(fmt::format(
          "expected one of the groups defined in 'groups' ({}), got \"{}\"",
          names.empty() ? std::string("none defined") : fmt::format("{}", fmt::join(names, ", ")), group_name));
    }
    const Group& g = at(trace_.groups, group);
    if (rank >= 0 && g.index_of(rank) < 0) {  // a version-2 program: validate() checks each of its ranks
      o.at("group").fail(
          fmt::format("rank {} is not a member of group \"{}\" (ranks {})", rank, g.name, fmt::join(g.ranks, ", ")));
    }
    op.group = group;
    op.dtype = read_dtype(o, true);
    read_bytes(o, op);
    if (op.kind == OpKind::kBroadcast && version_ >= 2 && o.required("root")->is_string()) {
      read_relative_root(o, op);
    } else if (op.kind == OpKind::kBroadcast) {
      std::int64_t root = o.required("root").integer();
      // Compare as 64-bit: narrowed first, 4294967297 would read as rank 1.
      if (root < 0 || root >= trace_.world_size || g.index_of(static_cast<int>(root)) < 0) {
        o.at("root").fail(fmt::format("expected a member of group \"{}\" (ranks {}), got \"{}\"", g.name,
                                      fmt::join(g.ranks, ", "), root));
      }
      op.root = static_cast<int>(root);
    }
    if ((op.kind == OpKind::kAllGather || op.kind == OpKind::kReduceScatter || op.kind == OpKind::kAllToAll) &&
        op.bytes % (static_cast<std::uint64_t>(g.ranks.size()) * static_cast<std::uint64_t>(dtype_bytes(op.dtype))) !=
            0) {
      o.at("bytes").fail(
          fmt::format("{} on a group of {} ranks needs a whole number of {} elements per rank, got \"{}\"",
                      op_kind_name(op.kind), g.ranks.size(), dtype_name(op.dtype), op.bytes));
    }
  }

  /// A collective on the rank's own group of `kind`: its size is known per rank only, so
  /// validate() checks the sizes and the root against each rank's group.
  void read_relative_collective(ObjectReader& o, Op& op, GroupKind kind) {
    op.relative |= kGroupByKind;
    op.group = static_cast<std::int32_t>(kind);
    op.dtype = read_dtype(o, true);
    read_bytes(o, op);
    if (op.kind != OpKind::kBroadcast) return;
    if (!o.required("root")->is_string()) {
      o.at("root").fail(fmt::format("expected \"@N\" (member N of the group) on a collective of \"@{}\", got \"{}\"",
                                    group_kind_name(kind), o.required("root")->text()));
    }
    read_relative_root(o, op);
  }

  /// "@N": member N of the collective's group.
  void read_relative_root(ObjectReader& o, Op& op) {
    const std::string text = o.required("root").string();
    std::int64_t position = 0;
    bool number = text.size() >= 2 && text.size() <= 9 && text[0] == '@';
    for (std::size_t i = 1; number && i < text.size(); ++i) {
      number = text[i] >= '0' && text[i] <= '9';
      position = position * 10 + (text[i] - '0');
    }
    if (!number) o.at("root").fail(fmt::format("expected a rank or \"@N\" (member N of the group), got \"{}\"", text));
    op.relative |= kRootInGroup;
    op.root = static_cast<std::int32_t>(position);
  }

  Trace& trace_;
  const std::string& file_;
  int version_ = 1;
  /// Group name -> index in trace_.groups: collectives name their group, and a trace of
  /// thousands of ranks has thousands of groups (a linear search made reading quadratic).
  std::unordered_map<std::string, int> group_ids_;
};

}  // namespace

Trace parse_native(std::string_view text, const std::string& source) {
  Trace trace;
  trace.source = source;
  {
    Phase phase(fmt::format("reading the trace {}", source), "");
    Value root = json::parse(text, source);
    NativeReader(trace, source).read(root);
  }
  Phase phase(fmt::format("checking the trace {} ({} ranks)", source, trace.world_size), "");
  validate(trace);
  return trace;
}

Trace read_native(const std::string& path) { return parse_native(json::read_file(path), path); }

}  // namespace ccsim::trace
