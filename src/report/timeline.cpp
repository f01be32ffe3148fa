#include "report/timeline.hpp"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

namespace ccsim::report {
namespace {

using ordered = nlohmann::ordered_json;

constexpr double kMicro = 1e6;
/// Gaps shorter than this (1 ns) are rounding, not idleness.
constexpr double kMinGapS = 1e-9;

std::string fmt_name(const std::string& prefix, int rank, int stage) {
  return prefix + "rank " + std::to_string(rank) + " (stage " + std::to_string(stage) + ")";
}

void write_event(std::ostream& out, bool& first, const ordered& event) {
  out << (first ? "\n  " : ",\n  ") << event.dump();
  first = false;
}

}  // namespace

std::vector<double> idle_by_rank(const engine::Result& result) {
  std::vector<double> idle(result.ops.size(), 0.0);
  for (std::size_t r = 0; r < result.ops.size(); ++r) {
    double cursor = 0;
    for (const engine::OpRecord& op : result.ops[r]) {
      if (op.start_s - cursor > kMinGapS) idle[r] += op.start_s - cursor;
      cursor = std::max(cursor, op.end_s);
    }
  }
  return idle;
}

void write_timeline(const std::vector<TimelineRun>& runs, std::ostream& out) {
  out << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [";
  bool first = true;
  int pid_base = 0;
  for (std::size_t run = 0; run < runs.size(); ++run) {
    const engine::Result& result = *runs[run].result;
    const std::string prefix = runs[run].name.empty() ? "" : runs[run].name + ": ";
    for (std::size_t r = 0; r < result.ops.size(); ++r) {
      const int pid = pid_base + static_cast<int>(r);
      const int stage = r < result.stage.size() ? result.stage[r] : 0;
      write_event(out, first,
                  ordered{{"ph", "M"}, {"pid", pid}, {"name", "process_name"},
                          {"args", {{"name", fmt_name(prefix, static_cast<int>(r), stage)}}}});
      write_event(out, first,
                  ordered{{"ph", "M"}, {"pid", pid}, {"name", "process_sort_index"}, {"args", {{"sort_index", pid}}}});
      double cursor = 0;
      static const std::vector<engine::WaitSpan> kNone;
      const std::vector<engine::WaitSpan>& waits = r < result.waits.size() ? result.waits[r] : kNone;
      std::size_t next_wait = 0;
      for (std::size_t i = 0; i < result.ops[r].size(); ++i) {
        const engine::OpRecord& op = result.ops[r][i];
        if (op.start_s - cursor > kMinGapS) {
          write_event(out, first,
                      ordered{{"ph", "X"}, {"pid", pid}, {"tid", 0}, {"name", "idle"}, {"cat", "idle"},
                              {"ts", cursor * kMicro}, {"dur", (op.start_s - cursor) * kMicro}});
        }
        ordered args = ordered::object();
        if (op.label != 0) args["label"] = std::string(result.name(op.label));
        if (op.bytes != 0) args["bytes"] = op.bytes;
        if (op.algorithm != 0) args["algorithm"] = std::string(result.name(op.algorithm));
        std::string name(result.name(op.name));
        if (op.label != 0) name += " " + std::string(result.name(op.label));
        write_event(out, first,
                    ordered{{"ph", "X"}, {"pid", pid}, {"tid", 0}, {"name", name}, {"cat", std::string(result.name(op.kind))},
                            {"ts", op.start_s * kMicro}, {"dur", (op.end_s - op.start_s) * kMicro}, {"args", args}});
        // The operator's waits, nested in its event (same thread, inside its interval).
        for (; next_wait < waits.size() && waits[next_wait].op == i; ++next_wait) {
          const engine::WaitSpan& wait = waits[next_wait];
          write_event(out, first,
                      ordered{{"ph", "X"}, {"pid", pid}, {"tid", 0}, {"name", "wait"}, {"cat", "wait"},
                              {"ts", wait.start_s * kMicro}, {"dur", (wait.end_s - wait.start_s) * kMicro},
                              {"args", {{"operator", name}}}});
        }
        cursor = std::max(cursor, op.end_s);
      }
    }
    pid_base += static_cast<int>(result.ops.size());
  }
  out << "\n]}\n";
}

}  // namespace ccsim::report
