#include "report/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/output_file.hpp"
#include "core/parse.hpp"
#include "core/spelling.hpp"

namespace ccsim::report {
namespace {

constexpr const char* kOption = "--timeline-ranks";

[[noreturn]] void refuse(const std::string& detail) { throw InputError("command line", 0, kOption, detail); }

[[noreturn]] void refuse_syntax(std::string_view text, std::string_view why) {
  std::string detail = fmt::format("expected auto, all, or ranks and ranges such as 0-7,64, got \"{}\"", text);
  if (!why.empty()) detail += fmt::format(" ({})", why);
  refuse(detail);
}

/// A rank of a list: a whole number from 0.
std::optional<int> parse_rank(std::string_view item) {
  const std::optional<std::int64_t> rank = parse_int(item);
  if (!rank || *rank < 0 || *rank > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(*rank);
}

std::string_view trimmed(std::string_view item) {
  while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
  while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
  return item;
}

/// One item of a list, "N" or "A-B", as an inclusive range.
std::pair<int, int> parse_item(std::string_view item, std::string_view text) {
  item = trimmed(item);
  if (item.empty()) refuse_syntax(text, "an empty item");
  const std::size_t dash = item.find('-', 1);  // from 1: "-3" is a bad rank, not a range
  const std::optional<int> first = parse_rank(item.substr(0, dash));
  const std::optional<int> last = dash == std::string_view::npos ? first : parse_rank(item.substr(dash + 1));
  if (!first || !last) {
    const char* what = dash == std::string_view::npos ? "a rank" : "a range of ranks";
    refuse_syntax(text, item == trimmed(text) ? "" : fmt::format("\"{}\" is not {}", item, what));
  }
  if (*last < *first) refuse(fmt::format("expected a range from a rank to a higher one, got \"{}\"", item));
  return {*first, *last};
}

}  // namespace

TimelineRankChoice parse_timeline_ranks(std::string_view text) {
  TimelineRankChoice choice;
  choice.text = std::string(text);
  if (text == "auto") return choice;
  if (text == "all") {
    choice.kind = TimelineRankChoice::Kind::kAll;
    return choice;
  }
  if (!text.empty() && (text.front() < '0' || text.front() > '9') && text.find(',') == std::string_view::npos) {
    const std::optional<std::string> close = closest_spelling(text, {"auto", "all"});
    if (close) refuse(fmt::format("unknown value \"{}\"; did you mean {}?", text, *close));
  }
  choice.kind = TimelineRankChoice::Kind::kList;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    choice.ranges.push_back(parse_item(item, text));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return choice;
}

void check_timeline_ranks(const TimelineRankChoice& choice, int world_size) {
  for (const auto& [first, last] : choice.ranges) {
    if (last < world_size) continue;
    refuse(fmt::format("rank {} is not in the job: expected ranks from 0 to {}, got \"{}\"",
                       first < world_size ? world_size : first, world_size - 1, choice.text));
  }
}

std::string format_rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]);
    i = j + 1;
  }
  return out;
}

namespace {

/// The lowest rank of each pipeline stage; of kTimelineRankLimit evenly spaced stages when
/// there are more.
std::vector<int> first_rank_of_each_stage(const engine::Result& result, std::string& rule) {
  std::vector<int> first;  // first[stage], -1 for a stage without ranks
  for (int rank = 0; rank < result.world_size; ++rank) {
    const std::size_t r = static_cast<std::size_t>(rank);
    const std::size_t stage = static_cast<std::size_t>(r < result.stage.size() ? std::max(result.stage[r], 0) : 0);
    if (stage >= first.size()) first.resize(stage + 1, -1);
    if (first[stage] < 0) first[stage] = rank;
  }
  std::erase(first, -1);
  const std::size_t stages = first.size();
  if (stages <= 1) {
    rule = fmt::format("rank 0, as the job has more than {} ranks in one pipeline stage", kTimelineRankLimit);
    return {0};
  }
  const std::string as = fmt::format(", as the job has more than {} ranks", kTimelineRankLimit);
  rule = fmt::format("the first rank of each of the {} pipeline stages{}", stages, as);
  if (stages <= static_cast<std::size_t>(kTimelineRankLimit)) return first;
  std::vector<int> spaced;
  const std::size_t limit = static_cast<std::size_t>(kTimelineRankLimit);
  for (std::size_t i = 0; i < limit; ++i) spaced.push_back(first[i * (stages - 1) / (limit - 1)]);
  rule = fmt::format("the first rank of {} of the {} pipeline stages, evenly spaced{}", limit, stages, as);
  return spaced;
}

}  // namespace

TimelineRanks select_timeline_ranks(const TimelineRankChoice& choice, const engine::Result& result) {
  TimelineRanks out;
  out.world_size = result.world_size;
  const bool every = choice.kind == TimelineRankChoice::Kind::kAll ||
                     (choice.kind == TimelineRankChoice::Kind::kAuto && result.world_size <= kTimelineRankLimit);
  if (every) {
    for (int rank = 0; rank < result.world_size; ++rank) out.ranks.push_back(rank);
    out.rule = "every rank";
  } else if (choice.kind == TimelineRankChoice::Kind::kAuto) {
    out.ranks = first_rank_of_each_stage(result, out.rule);
    out.limited = true;
  } else {
    for (const auto& [first, last] : choice.ranges) {
      if (last >= result.world_size) throw std::out_of_range("a --timeline-ranks rank beyond the job");
      for (int rank = first; rank <= last; ++rank) out.ranks.push_back(rank);
    }
    std::sort(out.ranks.begin(), out.ranks.end());
    out.ranks.erase(std::unique(out.ranks.begin(), out.ranks.end()), out.ranks.end());
    out.rule = fmt::format("the ranks asked for ({} {})", kOption, choice.text);
  }
  return out;
}

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

  void begin(const TimelineRanks& ranks, const std::vector<TimelineRun>& runs);
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

void EventWriter::begin(const TimelineRanks& ranks, const std::vector<TimelineRun>& runs) {
  nlohmann::ordered_json other;
  other["generator"] = "ccsim";
  if (!runs.empty() && runs.front().result != nullptr) {
    other["trace"] = runs.front().result->trace_name;
    other["platform"] = runs.front().result->platform_name;
  }
  other["ranks_in_job"] = ranks.world_size;
  other["ranks_written"] = format_rank_list(ranks.ranks);
  other["rank_selection"] = ranks.rule;
  if (ranks.ranks.size() < static_cast<std::size_t>(ranks.world_size)) other["other_ranks"] = kOtherRanksHint;
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

void write_timeline(const std::vector<TimelineRun>& runs, const TimelineRanks& ranks, std::ostream& out) {
  EventWriter events(out);
  events.begin(ranks, runs);
  for (std::size_t run = 0; run < runs.size(); ++run) {
    const engine::Result& result = *runs[run].result;
    const std::string prefix = runs[run].name.empty() ? "" : json_inside(runs[run].name + ": ");
    const std::vector<std::string> names = escaped_names(result);
    const int pid_base = static_cast<int>(run) * ranks.world_size;
    for (const int rank : ranks.ranks) {
      if (static_cast<std::size_t>(rank) >= result.ops.size())
        throw std::out_of_range("a timeline rank without records");
      write_rank(events, result, names, prefix, rank, pid_base + rank);
    }
  }
  events.end();
}

void write_timeline(const std::vector<TimelineRun>& runs, std::ostream& out) {
  const engine::Result* first = runs.empty() ? nullptr : runs.front().result;
  write_timeline(runs, select_timeline_ranks(parse_timeline_ranks("all"), first ? *first : engine::Result{}), out);
}

std::string write_timeline_file(const std::string& path, const std::string& ranks,
                                const std::vector<TimelineRun>& runs) {
  if (path.empty() || runs.empty()) return "";
  const TimelineRanks selected = select_timeline_ranks(parse_timeline_ranks(ranks), *runs.front().result);
  std::uint64_t bytes = 0;
  write_output(path, [&](const OutputSink& sink) {
    SinkStream out([&](std::string_view chunk) {
      bytes += chunk.size();
      sink(chunk);
    });
    write_timeline(runs, selected, out);
    out.flush();
  });
  std::string told;
  if (selected.limited) {
    told = fmt::format("note: timeline: wrote {}: ranks {}; for others: {}\n", selected.rule,
                       format_rank_list(selected.ranks), kOtherRanksHint);
  }
  const std::string size = bytes < 1'000'000 ? fmt::format("{:.1f} kB", static_cast<double>(bytes) / 1e3)
                                             : fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
  return told + fmt::format("wrote {} ({} ranks of {}{}, {})\n", path == "-" ? "the timeline to standard output" : path,
                            selected.ranks.size(), selected.world_size,
                            runs.size() > 1 ? fmt::format(" in each of {} runs", runs.size()) : "", size);
}

}  // namespace ccsim::report
