#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/units.hpp"

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

/// One operator of one rank, in program order.
struct Op {
  OpKind kind = OpKind::kCompute;
  DType dtype = DType::kF32;
  Names::Id name = Names::kEmpty;   ///< compute: "linear", ...; others: the kind's name
  Names::Id label = Names::kEmpty;  ///< optional role, e.g. "attn.qkv" or "tp:attn"
  Names::Id tag = Names::kEmpty;    ///< send/recv matching tag
  std::int32_t group = -1;          ///< collectives: index into Trace::groups()
  std::int32_t peer = -1;           ///< send: destination rank; recv: source rank
  std::int32_t root = -1;           ///< broadcast: root as a global rank
  std::int32_t line = 0;            ///< line in the source file, for messages
  double duration_s = -1;           ///< compute: measured duration, or < 0 if unknown
  double measured_s = -1;           ///< collectives, send/recv: measured duration of the call, < 0 if unknown (not replayed)
  double flops = 0;                 ///< compute: floating-point operations
  std::uint64_t bytes = 0;          ///< compute: bytes moved; others: message/buffer size
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
  double peak_flops = 0;   ///< peak FLOP/s of one rank's processor
  double memory_Bps = 0;   ///< its memory bandwidth, bytes/s
  std::string source;      ///< where the figures come from, may be empty
};

/// A training job: ranks, process groups and, per rank, its ordered operators.
/// Built by the readers (native JSON, PyTorch) and checked by validate().
class Trace {
 public:
  std::string source;         ///< file it was read from (for messages)
  std::string name;           ///< job name
  std::string description;
  std::string platform;       ///< suggested platform preset, may be empty
  std::string placement;      ///< how the job placed its ranks (engine/placement.hpp), may be empty
  int placement_line = 0;     ///< where `placement` is in the source file (0: not from a file)
  int world_size = 0;
  /// Training iterations the trace holds (optional "iterations"); 0 when it does not say.
  int iterations = 0;
  /// The hardware the compute durations were measured on; absent when the trace does not say.
  std::optional<Hardware> hardware;
  std::vector<Group> groups;
  std::vector<std::vector<Op>> ops;  ///< ops[rank]
  Names names;

  int group_index(std::string_view group_name) const;
  std::string_view op_name(const Op& op) const { return names[op.name]; }
  std::string_view op_label(const Op& op) const { return names[op.label]; }

  /// Pipeline stage of each rank: its position in its pipeline group (0 if it has none).
  std::vector<int> pipeline_stages() const;
  /// Number of pipeline stages (1 without pipeline groups).
  int pipeline_stage_count() const;
  std::size_t op_count() const;
};

}  // namespace ccsim::trace
