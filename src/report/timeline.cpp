#include "report/timeline.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
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

namespace {

/// The intervals of [0, last end) in which none of `ops` runs, in time order.
std::vector<std::pair<double, double>> idle_spans(const std::vector<engine::OpRecord>& ops) {
  std::vector<std::pair<double, double>> busy;
  busy.reserve(ops.size());
  for (const engine::OpRecord& op : ops) busy.emplace_back(op.start_s, op.end_s);
  std::sort(busy.begin(), busy.end());
  std::vector<std::pair<double, double>> idle;
  double cursor = 0;
  for (const auto& [start, end] : busy) {
    if (start - cursor > kMinGapS) idle.emplace_back(cursor, start);
    cursor = std::max(cursor, end);
  }
  return idle;
}

}  // namespace

std::vector<double> idle_by_rank(const engine::Result& result) {
  std::vector<double> idle(result.ops.size(), 0.0);
  for (std::size_t r = 0; r < result.ops.size(); ++r) {
    for (const auto& [start, end] : idle_spans(result.ops[r])) idle[r] += end - start;
  }
  return idle;
}

/// Long: the Chrome trace's event streams in file order.
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
                  ordered{{"ph", "M"},
                          {"pid", pid},
                          {"name", "process_name"},
                          {"args", {{"name", fmt_name(prefix, static_cast<int>(r), stage)}}}});
      write_event(out, first,
                  ordered{{"ph", "M"}, {"pid", pid}, {"name", "process_sort_index"}, {"args", {{"sort_index", pid}}}});
      const std::vector<engine::OpRecord>& ops = result.ops[r];
      const std::vector<std::uint8_t>* streams = result.streams_of(static_cast<int>(r));
      const bool has_streams = streams != nullptr && streams->size() == ops.size();
      auto stream_of = [&](std::size_t i) -> int { return has_streams ? (*streams)[i] : 0; };
      std::vector<bool> named(std::numeric_limits<std::uint8_t>::max() + 1, false);
      auto name_track = [&](int tid) {
        if (named[static_cast<std::size_t>(tid)]) return;
        named[static_cast<std::size_t>(tid)] = true;
        write_event(out, first,
                    ordered{{"ph", "M"},
                            {"pid", pid},
                            {"tid", tid},
                            {"name", "thread_name"},
                            {"args", {{"name", "stream " + std::to_string(tid)}}}});
      };
      name_track(0);
      for (const auto& [start, end] : idle_spans(ops)) {
        write_event(out, first,
                    ordered{{"ph", "X"},
                            {"pid", pid},
                            {"tid", 0},
                            {"name", "idle"},
                            {"cat", "idle"},
                            {"ts", start * kMicro},
                            {"dur", (end - start) * kMicro}});
      }
      static const std::vector<engine::WaitSpan> kNone;
      const std::vector<engine::WaitSpan>& waits = r < result.waits.size() ? result.waits[r] : kNone;
      std::size_t next_wait = 0;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const engine::OpRecord& op = ops[i];
        const int tid = stream_of(i);
        name_track(tid);
        ordered args = ordered::object();
        if (op.label != 0) args["label"] = std::string(result.name(op.label));
        if (op.bytes != 0) args["bytes"] = op.bytes;
        if (op.algorithm != 0) args["algorithm"] = std::string(result.name(op.algorithm));
        std::string name(result.name(op.name));
        if (op.label != 0) name += " " + std::string(result.name(op.label));
        write_event(out, first,
                    ordered{{"ph", "X"},
                            {"pid", pid},
                            {"tid", tid},
                            {"name", name},
                            {"cat", std::string(result.name(op.kind))},
                            {"ts", op.start_s * kMicro},
                            {"dur", (op.end_s - op.start_s) * kMicro},
                            {"args", args}});
        // The operator's waits, nested in its event (its track, inside its interval).
        for (; next_wait < waits.size() && waits[next_wait].op == i; ++next_wait) {
          const engine::WaitSpan& wait = waits[next_wait];
          write_event(out, first,
                      ordered{{"ph", "X"},
                              {"pid", pid},
                              {"tid", tid},
                              {"name", "wait"},
                              {"cat", "wait"},
                              {"ts", wait.start_s * kMicro},
                              {"dur", (wait.end_s - wait.start_s) * kMicro},
                              {"args", {{"operator", name}}}});
        }
      }
    }
    pid_base += static_cast<int>(result.ops.size());
  }
  out << "\n]}\n";
}

}  // namespace ccsim::report
