#include "study/measured_result.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace ccsim::study {

namespace {

/// Which of the trace's collectives and transfers (each program once) carry a measured time.
std::string calls_measured(const trace::Trace& t) {
  std::uint64_t comm = 0, comm_measured = 0;
  for (const trace::Program& p : t.programs) {
    for (const trace::Op& op : p.ops) {
      if (op.kind == trace::OpKind::kCompute) continue;
      ++comm;
      if (op.measured_s >= 0) ++comm_measured;
    }
  }
  return comm == 0               ? std::string("none: the trace has no collective or transfer")
         : comm_measured == comm ? std::string("as measured: each call's measured_ms")
         : comm_measured == 0
             ? std::string("none: the trace records no measured time for its collectives and transfers (0 ms here)")
             : fmt::format("{} of {} calls as measured (measured_ms), the others 0 ms", comm_measured, comm);
}

}  // namespace

engine::Result measured_result(const trace::Trace& t) {
  engine::Result r;
  r.trace_name = t.name;
  r.iterations = t.iterations;
  r.trace_file = t.source;
  r.platform_name = "the measurement in the file";
  r.network_model = "none: nothing simulated, durations as recorded in the trace";
  r.algorithm = calls_measured(t);
  r.world_size = t.world_size;
  r.stage = t.pipeline_stages();
  r.stage_count = t.pipeline_stage_count();
  r.names.push_back("");
  std::map<std::string, std::uint32_t> ids{{"", 0}};
  auto id = [&](std::string_view s) {
    auto [it, inserted] = ids.try_emplace(std::string(s), static_cast<std::uint32_t>(r.names.size()));
    if (inserted) r.names.emplace_back(s);
    return it->second;
  };
  std::uint64_t untimed = 0;
  r.ops.resize(static_cast<std::size_t>(t.world_size));
  bool streams = false;
  for (const trace::Program& p : t.programs) streams = streams || p.stream_count() > 1;
  if (streams) r.streams.resize(static_cast<std::size_t>(t.world_size));
  // The records depend on the program alone: the ranks of one program (a class of identical
  // ranks, traces/README.md) read its first rank's list, so that a trace of 10,240 ranks and
  // 16 programs costs 16 programs, not 10,240 copies.
  std::vector<int> first_of(t.programs.size(), -1);
  std::vector<std::uint64_t> program_ranks(t.programs.size(), 0);
  for (const int p : t.program_of) ++program_ranks[static_cast<std::size_t>(p)];
  for (int rank = 0; rank < t.world_size; ++rank) {
    const auto program_index = static_cast<std::size_t>(t.program_of[static_cast<std::size_t>(rank)]);
    const trace::Program& program = t.programs[program_index];
    const auto ri = static_cast<std::size_t>(rank);
    if (const int first = first_of[program_index]; first >= 0) {
      const auto fi = static_cast<std::size_t>(first);
      r.ops.share(ri, fi);
      if (streams) r.streams[ri] = r.streams[fi];
      continue;
    }
    first_of[program_index] = rank;
    // Each stream's operators back to back, each after the operators it names (streams).
    std::vector<double> stream_now(static_cast<std::size_t>(program.stream_count()), 0.0);
    if (program.stream_count() > 1) {
      auto table = std::make_shared<std::vector<std::uint8_t>>();
      for (const trace::Op& op : program.ops) table->push_back(op.stream);
      r.streams[ri] = std::move(table);
    }
    engine::RankRecords::List& records = r.ops.writable(ri);
    records.reserve(program.ops.size());
    for (const trace::Op& op : program.ops) {
      double& now = stream_now[op.stream];
      for (std::uint32_t d : program.after_of(op)) now = std::max(now, records[d].end_s);
      engine::OpRecord rec;
      rec.name = id(t.op_name(op).empty() ? trace::op_kind_name(op.kind) : t.op_name(op));
      rec.label = id(t.op_label(op));
      rec.kind = id(trace::op_kind_name(op.kind));
      rec.bytes = op.kind == trace::OpKind::kCompute ? 0 : op.bytes;
      rec.start_s = now;
      if (op.kind == trace::OpKind::kCompute && op.duration_s >= 0)
        now += op.duration_s;
      else if (op.kind == trace::OpKind::kCompute)
        untimed += program_ranks[program_index];
      else if (op.measured_s >= 0)
        now += op.measured_s;
      rec.end_s = now;
      records.push_back(rec);
    }
    r.makespan_s = std::max(r.makespan_s, r.rank_end_s(rank));  // the program's other ranks end alike
  }
  if (untimed > 0)
    r.notes.push_back(fmt::format("{} compute operators have no duration_ms (FLOPs only): 0 ms here", untimed));
  return r;
}

}  // namespace ccsim::study
