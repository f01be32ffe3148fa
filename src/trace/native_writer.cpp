#include "trace/native_writer.hpp"
#include "core/index.hpp"

#include <span>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ccsim::trace {
namespace {

using ordered = nlohmann::ordered_json;

ordered op_json(const Trace& trace, const Program& program, const Op& op) {
  ordered j;
  j["kind"] = std::string(op_kind_name(op.kind));
  if (op.kind == OpKind::kCompute) {
    j["name"] = std::string(trace.op_name(op));
    if (op.duration_s >= 0) j["duration_ms"] = op.duration_s * 1e3;
    if (op.flops > 0) j["flops"] = op.flops;
    if (op.bytes > 0) j["bytes"] = op.bytes;
    if (const GemmShape* g = trace.gemm_of(op)) {
      ordered shape;
      shape["m"] = g->m;
      shape["n"] = g->n;
      shape["k"] = g->k;
      if (g->batch != 1) shape["batch"] = g->batch;
      shape["dtype"] = std::string(dtype_name(g->dtype));
      if (g->backward) shape["pass"] = "backward";
      j["gemm"] = shape;
    }
  } else if (is_collective(op.kind)) {
    if (op.relative & kGroupByKind) {
      j["group"] = fmt::format("@{}", group_kind_name(static_cast<GroupKind>(op.group)));
    } else {
      j["group"] = at(trace.groups, op.group).name;
    }
    j["bytes"] = op.bytes;
    j["dtype"] = std::string(dtype_name(op.dtype));
    if (op.kind == OpKind::kBroadcast && (op.relative & kRootInGroup)) {
      j["root"] = fmt::format("@{}", op.root);
    } else if (op.kind == OpKind::kBroadcast) {
      j["root"] = op.root;
    }
    if (op.measured_s >= 0) j["measured_ms"] = op.measured_s * 1e3;
  } else {
    if (op.relative & kPeerInGroup) {
      j["peer"] = fmt::format("@{}{:+d}", group_kind_name(op.peer_kind), op.peer);
    } else {
      j["peer"] = op.peer;
    }
    j["bytes"] = op.bytes;
    j["dtype"] = std::string(dtype_name(op.dtype));
    if (op.tag != Names::kEmpty) j["tag"] = std::string(trace.names[op.tag]);
    if (op.measured_s >= 0) j["measured_ms"] = op.measured_s * 1e3;
  }
  if (op.label != Names::kEmpty) j["label"] = std::string(trace.op_label(op));
  if (op.stream != 0) j["stream"] = op.stream;
  if (op.after_count > 0) {
    std::span<const std::uint32_t> after = program.after_of(op);
    j["after"] = std::vector<std::uint32_t>(after.begin(), after.end());
  }
  return j;
}

}  // namespace

void write_native(const Trace& trace, std::ostream& out, int version) {
  if (version != 1 && version != 2)
    throw std::invalid_argument(fmt::format("native trace version {} (1 or 2)", version));
  ordered head;
  head["format"] = "ccsim-trace";
  head["version"] = version;
  head["name"] = trace.name;
  if (!trace.description.empty()) head["description"] = trace.description;
  if (!trace.platform.empty()) head["platform"] = trace.platform;
  if (!trace.placement.empty()) head["placement"] = trace.placement;
  if (trace.iterations > 0) head["iterations"] = trace.iterations;
  if (trace.hardware) {
    ordered hw;
    hw["name"] = trace.hardware->name;
    if (trace.hardware->peak_flops > 0) hw["peak_flops"] = trace.hardware->peak_flops;
    if (trace.hardware->memory_Bps > 0) hw["memory_bandwidth"] = trace.hardware->memory_Bps;
    if (!trace.hardware->source.empty()) hw["source"] = trace.hardware->source;
    head["hardware"] = hw;
  }
  if (trace.workload) {
    ordered w;
    if (trace.workload->global_batch > 0) w["global_batch"] = trace.workload->global_batch;
    if (trace.workload->sequence_length > 0) w["sequence_length"] = trace.workload->sequence_length;
    if (trace.workload->model_flops > 0) w["model_flops"] = trace.workload->model_flops;
    if (!trace.workload->model_flops_source.empty()) w["model_flops_source"] = trace.workload->model_flops_source;
    head["workload"] = w;
  }
  head["world_size"] = trace.world_size;
  out << "{\n";
  for (auto it = head.begin(); it != head.end(); ++it)
    out << "  " << ordered(it.key()).dump() << ": " << it.value().dump() << ",\n";
  out << "  \"groups\": [";
  for (std::size_t i = 0; i < trace.groups.size(); ++i) {
    const Group& g = trace.groups[i];
    ordered j;
    j["name"] = g.name;
    j["kind"] = std::string(group_kind_name(g.kind));
    j["ranks"] = g.ranks;
    out << (i == 0 ? "\n    " : ",\n    ") << j.dump();
  }
  out << (trace.groups.empty() ? "],\n" : "\n  ],\n");
  if (version == 1) {
    out << "  \"ranks\": [\n";
    for (int r = 0; r < trace.world_size; ++r) {
      out << "    {\"rank\": " << r << ", \"ops\": [";
      for (std::size_t i = 0; i < trace.op_count(r); ++i)
        out << (i == 0 ? "" : ", ")
            << op_json(trace, trace.programs[static_cast<std::size_t>(at(trace.program_of, r))], trace.op(r, i)).dump();
      out << "]}" << (r + 1 < trace.world_size ? ",\n" : "\n");
    }
  } else {
    // The ranks of each program as ranges of consecutive ranks.
    std::vector<std::vector<ordered>> ranks(trace.programs.size());
    for (int r = 0; r < trace.world_size;) {
      const int p = at(trace.program_of, r);
      int last = r;
      while (last + 1 < trace.world_size && at(trace.program_of, last + 1) == p) ++last;
      at(ranks, p).push_back(last == r ? ordered(r) : ordered::array({r, last}));
      r = last + 1;
    }
    out << "  \"programs\": [\n";
    for (std::size_t p = 0; p < trace.programs.size(); ++p) {
      out << "    {\"ranks\": " << ordered(ranks[p]).dump() << ", \"ops\": [";
      const std::vector<Op>& ops = trace.programs[p].ops;
      for (std::size_t i = 0; i < ops.size(); ++i)
        out << (i == 0 ? "" : ", ") << op_json(trace, trace.programs[p], ops[i]).dump();
      out << "]}" << (p + 1 < trace.programs.size() ? ",\n" : "\n");
    }
  }
  out << "  ]\n}\n";
}

}  // namespace ccsim::trace
