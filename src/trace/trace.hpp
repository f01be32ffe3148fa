#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/gemm_shape.hpp"
#include "core/units.hpp"
#include "core/index.hpp"

namespace ccsim::trace {

/// What an operator does on its rank.
enum class OpKind : std::uint8_t {
  kCompute,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kAllToAll,
  kSend,
  kRecv,
};

/// "compute", "all_reduce", ..., "send", "recv".
std::string_view op_kind_name(OpKind kind);
std::optional<OpKind> parse_op_kind(std::string_view text);
std::string_view op_kind_choices();
/// The names of op_kind_choices(), for "did you mean" (core/spelling.hpp).
const std::vector<std::string>& op_kind_names();
bool is_collective(OpKind kind);

/// The role of a process group in hybrid parallelism.
enum class GroupKind : std::uint8_t { kTensor, kPipeline, kData, kOther };
std::string_view group_kind_name(GroupKind kind);
std::optional<GroupKind> parse_group_kind(std::string_view text);

/// Interned strings (operator names, labels, tags): traces repeat a few names millions of
/// times, so operators hold 32-bit ids into this table.
class Names {
 public:
  using Id = std::uint32_t;
  Names();
  Id intern(std::string_view text);
  std::string_view operator[](Id id) const { return strings_[id]; }
  std::size_t size() const { return strings_.size(); }
  static constexpr Id kEmpty = 0;

 private:
  std::vector<std::string> strings_;
  std::unordered_map<std::string, Id> ids_;
};

/// Which partners of an operator are written relative to the rank that runs it (a version-2
/// program shared by several ranks); Trace::op() resolves them for a rank.
enum Relative : std::uint8_t {
  kGroupByKind = 1,  ///< `group` is a GroupKind: the rank's tensor, pipeline or data group
  kPeerInGroup = 2,  ///< `peer` is an offset from the rank's position in its `peer_kind` group
  kRootInGroup = 4,  ///< `root` is a position in the operator's group
};

/// One operator of a program, in program order.
struct Op {
  OpKind kind = OpKind::kCompute;
  DType dtype = DType::kF32;
  std::uint8_t relative = 0;                ///< Relative bits; 0 when group, peer and root are global
  GroupKind peer_kind = GroupKind::kOther;  ///< with kPeerInGroup: the kind of group the offset counts in
  Names::Id name = Names::kEmpty;           ///< compute: "linear", ...; others: the kind's name
  Names::Id label = Names::kEmpty;          ///< optional role, e.g. "attn.qkv" or "tp:attn"
  Names::Id tag = Names::kEmpty;            ///< send/recv matching tag
  std::int32_t group = -1;                  ///< collectives: index into Trace::groups() (see Relative)
  std::int32_t peer = -1;                   ///< send: destination rank; recv: source rank (see Relative)
  std::int32_t root = -1;                   ///< broadcast: root as a global rank (see Relative)
  std::int32_t line = 0;                    ///< line in the source file, for messages
  double duration_s = -1;                   ///< compute: measured duration, or < 0 if unknown
  double measured_s = -1;   ///< collectives, send/recv: measured duration of the call, < 0 if unknown (not replayed)
  double flops = 0;         ///< compute: floating-point operations
  std::uint64_t bytes = 0;  ///< compute: bytes moved; others: message/buffer size
  /// The stream the operator runs on: a rank runs each stream's operators in program order,
  /// its streams concurrently (communication overlapping compute). 0, the main stream, for
  /// traces without streams.
  std::uint8_t stream = 0;
  /// Operators of other streams that must have ended before this one starts: `after_count`
  /// program indices, all smaller than its own, from Program::after[after_first] on.
  std::uint8_t after_count = 0;
  /// Compute: 1 + the index of its matrix-product shape in Trace::gemms, 0 when it has none
  /// (16 bits in what would be padding: an operator stays 72 bytes).
  std::uint16_t gemm = 0;
  std::uint32_t after_first = 0;
};

/// Streams a rank may run (operators' `stream` in 0..kMaxStreams-1).
inline constexpr int kMaxStreams = 64;
/// Dependencies one operator may list in `after`.
inline constexpr int kMaxAfter = 255;

/// The operators that a class of identical ranks runs, in program order: in version 2 of the
/// native format one program is shared by the ranks it lists (data-parallel replicas,
/// tensor-parallel peers), in version 1 every rank has its own.
struct Program {
  std::vector<Op> ops;
  std::vector<std::uint32_t> after;  ///< the operators' dependencies (Op::after_first, after_count)
  std::string field;                 ///< where the operators are in the source file ("ranks[3].ops", "programs[1].ops")

  /// The operators that must have ended before `op` (one of ops) starts, as indices in ops.
  std::span<const std::uint32_t> after_of(const Op& op) const {
    return std::span<const std::uint32_t>(after).subspan(op.after_first, op.after_count);
  }
  /// Appends `op`, which must end after the operators `deps` (indices of earlier ones).
  void add(Op op, std::span<const std::uint32_t> deps = {});
  /// 1 + the largest stream of its operators (1 for a program without streams).
  int stream_count() const;
  /// The first operator of each distinct form among those with partners (all but compute), in
  /// program order: a form is what resolving partners for a rank reads (kind, relative bits,
  /// group, peer and root as written) and the tag, with `sizes` also bytes and dtype. A rank's
  /// operators of one form have the same partners and channel: checks per rank and partner
  /// need only these (a program of thousands of operators has a few dozen forms). With
  /// `form_of`, it gets each operator's form (its index in the result; -1 for compute).
  std::vector<std::uint32_t> partner_forms(bool sizes, std::vector<std::int32_t>* form_of = nullptr) const;
  /// Per operator: whether it runs alone on its rank, whatever the timing: every operator of
  /// the other streams has ended before it starts (through `after` and stream order) or
  /// cannot start before it ends. All true without streams. `but_messages`: sends and
  /// receives of the other streams do not count (whether nothing else computes meanwhile).
  std::vector<char> alone(bool but_messages = false) const;
};

/// A named set of ranks that communicate together.
struct Group {
  std::string name;
  GroupKind kind = GroupKind::kOther;
  std::vector<int> ranks;  ///< global ranks in group order (index = rank in group)
  int line = 0;

  /// Position of `rank` in the group, or -1.
  int index_of(int rank) const;
};

/// The machine a trace's compute durations were measured on (optional top-level "hardware").
/// Rates are peak figures; 0 when the trace does not give them.
struct Hardware {
  std::string name;
  double peak_flops = 0;  ///< peak FLOP/s of one rank's processor
  double memory_Bps = 0;  ///< its memory bandwidth, bytes/s
  std::string source;     ///< where the figures come from, may be empty
};

/// What one iteration of the job computes, for throughput and model FLOPs utilization
/// (optional top-level "workload"); a figure is 0 when the trace does not give it.
struct Workload {
  std::int64_t global_batch = 0;     ///< sequences per iteration, over all data-parallel replicas
  std::int64_t sequence_length = 0;  ///< tokens per sequence
  /// The model's FLOPs per iteration as its publication counts them (no recomputation), and
  /// the formula they come from.
  double model_flops = 0;
  std::string model_flops_source;
  double tokens() const { return static_cast<double>(global_batch) * static_cast<double>(sequence_length); }
};

/// A training job: ranks, process groups and the programs of operators the ranks run.
/// Built by the readers (native JSON, PyTorch), the synthesizer and checked by validate().
class Trace {
 public:
  std::string source;  ///< file it was read from (for messages)
  std::string name;    ///< job name
  std::string description;
  std::string platform;    ///< suggested platform preset, may be empty
  std::string placement;   ///< how the job placed its ranks (engine/placement.hpp), may be empty
  int placement_line = 0;  ///< where `placement` is in the source file (0: not from a file)
  int world_size = 0;
  /// Training iterations the trace holds (optional "iterations"); 0 when it does not say.
  int iterations = 0;
  /// The hardware the compute durations were measured on; absent when the trace does not say.
  std::optional<Hardware> hardware;
  /// Batch, sequence and model FLOPs of one iteration; absent when the trace does not say.
  std::optional<Workload> workload;
  std::vector<Group> groups;
  std::vector<Program> programs;
  std::vector<int> program_of;  ///< per rank: the index of its program
  Names names;
  /// The distinct matrix-product shapes of the compute operators (Op::gemm indexes them).
  std::vector<GemmShape> gemms;

  /// The Op::gemm of `shape`: an existing entry of gemms or a new one. Throws std::length_error
  /// past kMaxGemms distinct shapes (readers turn it into an InputError).
  std::uint16_t intern_gemm(const GemmShape& shape);
  /// The shape of `op`, or nullptr when it has none.
  const GemmShape* gemm_of(const Op& op) const { return op.gemm == 0 ? nullptr : &gemms[op.gemm - 1u]; }
  static constexpr std::size_t kMaxGemms = 65535;

  /// Gives each of `world` ranks an empty program of its own (version 1's layout: readers
  /// and builders of per-rank traces); sets world_size.
  void one_program_per_rank(int world);

  /// The number of operators of `rank`, and its k-th operator with its group, peer and root
  /// resolved for the rank: the one way to read an operator as a rank runs it.
  std::size_t op_count(int rank) const { return program_ops(rank).size(); }
  Op op(int rank, std::size_t k) const;
  /// The operators of rank's program as written, shared with the other ranks of the program
  /// (group, peer and root may be relative: read them through op()).
  const std::vector<Op>& program_ops(int rank) const {
    return programs[static_cast<std::size_t>(at(program_of, rank))].ops;
  }
  /// "ranks[R].ops[K]" or "programs[P].ops[K]": where rank's k-th operator is, for messages.
  std::string op_field(int rank, std::size_t k) const;
  /// Resolves `op`'s relative partners for `rank` in place; returns why it cannot (which
  /// group the rank lacks, which position does not exist), or "" when it could.
  std::string resolve(int rank, Op& op) const;

  /// Indexes each rank's tensor, pipeline and data group and its position there; called once
  /// the groups are complete, before op() resolves relative partners.
  void index_groups();
  /// The rank's group of `kind` (tensor, pipeline or data), or -1.
  int group_of_kind(int rank, GroupKind kind) const;

  int group_index(std::string_view group_name) const;
  std::string_view op_name(const Op& op) const { return names[op.name]; }
  std::string_view op_label(const Op& op) const { return names[op.label]; }

  /// Pipeline stage of each rank: its position in its pipeline group (0 if it has none).
  std::vector<int> pipeline_stages() const;
  /// Number of pipeline stages (1 without pipeline groups).
  int pipeline_stage_count() const;
  /// Operators over all ranks (what a replay runs); program_op_count(): those held in memory.
  std::size_t op_count() const;
  std::size_t program_op_count() const;
  /// How many ranks run each program.
  std::vector<int> ranks_per_program() const;

 private:
  /// Per rank, for each of the kinds tensor, pipeline, data: its group and its position there (-1: none).
  struct Place {
    std::int32_t group[3] = {-1, -1, -1};
    std::int32_t position[3] = {-1, -1, -1};
  };
  std::vector<Place> places_;
};

}  // namespace ccsim::trace
