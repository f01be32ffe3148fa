#include "trace/native_writer.hpp"

#include <nlohmann/json.hpp>

namespace ccsim::trace {
namespace {

using ordered = nlohmann::ordered_json;

ordered op_json(const Trace& trace, const Op& op) {
  ordered j;
  j["kind"] = std::string(op_kind_name(op.kind));
  if (op.kind == OpKind::kCompute) {
    j["name"] = std::string(trace.op_name(op));
    if (op.duration_s >= 0) j["duration_ms"] = op.duration_s * 1e3;
    if (op.flops > 0) j["flops"] = op.flops;
    if (op.bytes > 0) j["bytes"] = op.bytes;
  } else if (is_collective(op.kind)) {
    j["group"] = trace.groups[static_cast<std::size_t>(op.group)].name;
    j["bytes"] = op.bytes;
    j["dtype"] = std::string(dtype_name(op.dtype));
    if (op.kind == OpKind::kBroadcast) j["root"] = op.root;
    if (op.measured_s >= 0) j["measured_ms"] = op.measured_s * 1e3;
  } else {
    j["peer"] = op.peer;
    j["bytes"] = op.bytes;
    j["dtype"] = std::string(dtype_name(op.dtype));
    if (op.tag != Names::kEmpty) j["tag"] = std::string(trace.names[op.tag]);
    if (op.measured_s >= 0) j["measured_ms"] = op.measured_s * 1e3;
  }
  if (op.label != Names::kEmpty) j["label"] = std::string(trace.op_label(op));
  return j;
}

}  // namespace

void write_native(const Trace& trace, std::ostream& out) {
  ordered head;
  head["format"] = "ccsim-trace";
  head["version"] = 1;
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
  head["world_size"] = trace.world_size;
  out << "{\n";
  for (auto it = head.begin(); it != head.end(); ++it) out << "  " << ordered(it.key()).dump() << ": " << it.value().dump() << ",\n";
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
  out << "  \"ranks\": [\n";
  for (std::size_t r = 0; r < trace.ops.size(); ++r) {
    out << "    {\"rank\": " << r << ", \"ops\": [";
    const std::vector<Op>& ops = trace.ops[r];
    for (std::size_t i = 0; i < ops.size(); ++i) out << (i == 0 ? "" : ", ") << op_json(trace, ops[i]).dump();
    out << "]}" << (r + 1 < trace.ops.size() ? ",\n" : "\n");
  }
  out << "  ]\n}\n";
}

}  // namespace ccsim::trace
