#include "report/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ccsim::report {
namespace {

/// `text` as the inside of a JSON string (quotes, backslashes, control characters escaped;
/// invalid UTF-8 replaced by U+FFFD).
std::string json_inside(std::string_view text) {
  const std::string quoted =
      nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

/// A time in whole nanoseconds (what "ts" and "dur" resolve).
std::int64_t to_ns(double seconds) { return std::llround(seconds * 1e9); }

/// Chrome trace events written as they come, in chunks: never the whole document in memory.
class EventWriter {
 public:
  explicit EventWriter(std::ostream& out) : out_(out) {}

  void begin(const std::vector<TimelineRun>& runs);
  /// A metadata event naming a process (tid < 0) or a thread.
  void name(int pid, int tid, std::string_view name_inside);
  void sort_index(int pid);
  /// A complete event from `start_s` to `end_s`; `args` is a JSON object's members ("" for none).
  void complete(int pid, int tid, double start_s, double end_s, std::string_view name_inside,
                std::string_view category_inside, std::string_view args);
  void end();

 private:
  void next();
  void flush_if_full();

  std::ostream& out_;
  fmt::memory_buffer buffer_;
  bool first_ = true;
};

void EventWriter::begin(const std::vector<TimelineRun>& runs) {
  nlohmann::ordered_json other;
  other["generator"] = "ccsim";
  if (!runs.empty() && runs.front().result != nullptr) {
    other["trace"] = runs.front().result->trace_name;
    other["platform"] = runs.front().result->platform_name;
  }
  fmt::format_to(std::back_inserter(buffer_), "{{\"displayTimeUnit\":\"ms\",\"otherData\":{},\"traceEvents\":[",
                 other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void EventWriter::next() {
  buffer_.append(std::string_view(first_ ? "\n" : ",\n"));
  first_ = false;
}

void EventWriter::flush_if_full() {
  if (buffer_.size() < (std::size_t{1} << 16)) return;
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

void EventWriter::name(int pid, int tid, std::string_view name_inside) {
  next();
  auto to = std::back_inserter(buffer_);
  if (tid < 0) {
    fmt::format_to(to, R"({{"ph":"M","pid":{},"name":"process_name","args":{{"name":"{}"}}}})", pid, name_inside);
  } else {
    fmt::format_to(to, R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":"{}"}}}})", pid, tid,
                   name_inside);
  }
  flush_if_full();
}

void EventWriter::sort_index(int pid) {
  next();
  fmt::format_to(std::back_inserter(buffer_),
                 R"({{"ph":"M","pid":{},"name":"process_sort_index","args":{{"sort_index":{}}}}})", pid, pid);
  flush_if_full();
}

void EventWriter::complete(int pid, int tid, double start_s, double end_s, std::string_view name_inside,
                           std::string_view category_inside, std::string_view args) {
  const std::int64_t start_ns = std::max<std::int64_t>(to_ns(start_s), 0);
  const std::int64_t dur_ns = std::max<std::int64_t>(to_ns(end_s) - start_ns, 0);
  next();
  auto to = std::back_inserter(buffer_);
  fmt::format_to(to, R"({{"ph":"X","pid":{},"tid":{},"ts":{}.{:03},"dur":{}.{:03},"name":"{}","cat":"{}")", pid, tid,
                 start_ns / 1000, start_ns % 1000, dur_ns / 1000, dur_ns % 1000, name_inside, category_inside);
  if (!args.empty()) fmt::format_to(to, R"(,"args":{{{}}})", args);
  buffer_.push_back('}');
  flush_if_full();
}

void EventWriter::end() {
  buffer_.append(std::string_view("\n]}\n"));
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

/// One run's names as the insides of JSON strings, escaped once.
std::vector<std::string> escaped_names(const engine::Result& result) {
  std::vector<std::string> names;
  names.reserve(result.names.size());
  for (const std::string& name : result.names) names.push_back(json_inside(name));
  return names;
}

/// The events of one rank of one run: its process and tracks, operators and waits.
void write_rank(EventWriter& events, const engine::Result& result, const std::vector<std::string>& names,
                const std::string& prefix, int rank, int pid) {
  const std::size_t r = static_cast<std::size_t>(rank);
  const int stage = r < result.stage.size() ? result.stage[r] : 0;
  events.name(pid, -1, fmt::format("{}rank {} (stage {})", prefix, rank, stage));
  events.sort_index(pid);
  const std::vector<engine::OpRecord>& ops = result.ops[r];
  const std::vector<std::uint8_t>* streams = result.streams_of(rank);
  const bool has_streams = streams != nullptr && streams->size() == ops.size();
  std::vector<bool> named(std::numeric_limits<std::uint8_t>::max() + 1, false);
  auto track = [&](int tid) {
    if (!named[static_cast<std::size_t>(tid)]) events.name(pid, tid, fmt::format("stream {}", tid));
    named[static_cast<std::size_t>(tid)] = true;
    return tid;
  };
  track(0);
  static const std::vector<engine::WaitSpan> kNone;
  const std::vector<engine::WaitSpan>& waits = r < result.waits.size() ? result.waits[r] : kNone;
  std::size_t next_wait = 0;
  std::string name, args;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const engine::OpRecord& op = ops[i];
    const int tid = track(has_streams ? (*streams)[i] : 0);
    name = names[op.name];
    if (op.label != 0) (name += ' ') += names[op.label];
    args.clear();
    if (op.bytes != 0) fmt::format_to(std::back_inserter(args), "\"bytes\":{}", op.bytes);
    if (op.algorithm != 0) {
      fmt::format_to(std::back_inserter(args), "{}\"algorithm\":\"{}\"", args.empty() ? "" : ",", names[op.algorithm]);
    }
    events.complete(pid, tid, op.start_s, op.end_s, name, names[op.kind], args);
    // The operator's waits, nested in its event (its track, inside its interval).
    for (; next_wait < waits.size() && waits[next_wait].op == i; ++next_wait) {
      events.complete(pid, tid, waits[next_wait].start_s, waits[next_wait].end_s, "wait", "wait", "");
    }
  }
}

}  // namespace

void write_timeline(const std::vector<TimelineRun>& runs, std::ostream& out) {
  EventWriter events(out);
  events.begin(runs);
  int pid_base = 0;
  for (std::size_t run = 0; run < runs.size(); ++run) {
    const engine::Result& result = *runs[run].result;
    const std::string prefix = runs[run].name.empty() ? "" : json_inside(runs[run].name + ": ");
    const std::vector<std::string> names = escaped_names(result);
    const int ranks = static_cast<int>(result.ops.size());
    for (int rank = 0; rank < ranks; ++rank) write_rank(events, result, names, prefix, rank, pid_base + rank);
    pid_base += ranks;
  }
  events.end();
}

}  // namespace ccsim::report
