#include "import/kineto_reader.hpp"

#include <fstream>
#include <limits>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/parse.hpp"

namespace ccsim::import {

std::string_view stream_kind_name(StreamKind kind) {
  switch (kind) {
    case StreamKind::kHostThread: return "host thread";
    case StreamKind::kHostAsync: return "host async";
    case StreamKind::kGpu: return "gpu stream";
  }
  return "?";
}

std::vector<std::vector<std::int64_t>> RankProfile::input_dims(const Event& e) const {
  std::vector<std::vector<std::int64_t>> out;
  if (e.dims == 0) return out;
  std::size_t at = e.dims;
  const auto lists = static_cast<std::size_t>(dims[at++]);
  out.resize(lists);
  for (auto& shape : out) {
    const auto extents = static_cast<std::size_t>(dims[at++]);
    shape.assign(dims.begin() + static_cast<std::ptrdiff_t>(at), dims.begin() + static_cast<std::ptrdiff_t>(at + extents));
    at += extents;
  }
  return out;
}

std::optional<int> iteration_number(std::string_view name) {
  constexpr std::string_view kPrefix = "Iteration#";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  const auto k = parse_int(name.substr(kPrefix.size()));
  if (!k || *k < 0 || *k > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(*k);
}

namespace {

using json = nlohmann::json;

/// What a pass over the file does with the events it has checked.
enum class Pass : std::uint8_t {
  kKeep,    ///< keep every event
  kScan,    ///< keep none: note the host threads' Iteration#k events (the first pass of a window)
  kWindow,  ///< keep the events that start within [from_us, to_us], and every Iteration#k
};

/// A host thread's Iteration#k event, seen by the first pass.
struct IterationSpan {
  int k = 0;
  double ts_us = 0, end_us = 0;
};

/// The SAX handler: a stack of contexts, and the event being read. Only the fields the
/// importer uses are kept; everything else is skipped without building a DOM.
class Handler : public nlohmann::json_sax<json> {
 public:
  explicit Handler(RankProfile& out, Pass pass = Pass::kKeep, double from_us = 0, double to_us = 0)
      : out_(out), pass_(pass), from_us_(from_us), to_us_(to_us) {}

  const std::vector<IterationSpan>& iterations() const { return iterations_; }

  bool saw_events() const { return saw_events_; }

  bool null() override { return value(std::nullopt, std::nullopt, nullptr, std::nullopt); }
  bool boolean(bool v) override { return value(std::nullopt, std::nullopt, nullptr, v); }
  bool number_integer(number_integer_t v) override {
    return value(static_cast<double>(v), static_cast<std::int64_t>(v), nullptr, std::nullopt);
  }
  bool number_unsigned(number_unsigned_t v) override {
    return value(static_cast<double>(v), static_cast<std::int64_t>(v), nullptr, std::nullopt);
  }
  bool number_float(number_float_t v, const string_t&) override {
    return value(v, std::nullopt, nullptr, std::nullopt);
  }
  bool string(string_t& v) override { return value(std::nullopt, std::nullopt, &v, std::nullopt); }
  bool binary(binary_t&) override { return value(std::nullopt, std::nullopt, nullptr, std::nullopt); }

  bool start_object(std::size_t) override {
    const Ctx parent = stack_.empty() ? Ctx::kRoot : stack_.back();
    Ctx next = Ctx::kSkip;
    if (parent == Ctx::kRoot) {
      next = Ctx::kTop;
    } else if (parent == Ctx::kEvents) {
      next = Ctx::kEvent;
      event_ = Pending{};
    } else if (parent == Ctx::kEvent && key_ == "args") {
      next = Ctx::kArgs;
    } else if (parent == Ctx::kTop && key_ == "distributedInfo") {
      next = Ctx::kDistInfo;
    }
    stack_.push_back(next);
    return true;
  }

  bool end_object() override {
    const Ctx ctx = stack_.back();
    stack_.pop_back();
    if (ctx == Ctx::kEvent) finish_event();
    return true;
  }

  bool start_array(std::size_t) override {
    const Ctx parent = stack_.empty() ? Ctx::kRoot : stack_.back();
    Ctx next = Ctx::kSkip;
    if (parent == Ctx::kRoot || (parent == Ctx::kTop && key_ == "traceEvents")) {
      next = Ctx::kEvents;
      saw_events_ = true;
    } else if (parent == Ctx::kArgs && key_ == "Input Dims") {
      next = Ctx::kDimsOuter;
      event_.dims.clear();
      event_.has_dims = true;
    } else if (parent == Ctx::kDimsOuter) {
      next = Ctx::kDimsInner;
      event_.dims.emplace_back();
    }
    stack_.push_back(next);
    return true;
  }

  bool end_array() override {
    stack_.pop_back();
    return true;
  }

  bool key(string_t& k) override {
    key_ = k;
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    throw InputError(out_.file, 0, "",
                     fmt::format("byte {}: truncated or malformed JSON ({})", position, ex.what()));
  }

 private:
  enum class Ctx : std::uint8_t { kRoot, kTop, kEvents, kEvent, kArgs, kDimsOuter, kDimsInner, kDistInfo, kSkip };

  struct Pending {
    std::string ph, name, cat, tid;
    std::optional<double> ts, dur;
    std::optional<std::int64_t> pid, seq, gpu_stream;
    bool async = false;
    bool has_dims = false;
    std::vector<std::vector<std::int64_t>> dims;
  };

  bool value(std::optional<double> number, std::optional<std::int64_t> integer, const std::string* text,
             std::optional<bool> flag) {
    const Ctx ctx = stack_.empty() ? Ctx::kRoot : stack_.back();
    switch (ctx) {
      case Ctx::kEvent:
        if (key_ == "ph" && text) event_.ph = *text;
        else if (key_ == "name" && text) event_.name = *text;
        else if (key_ == "cat" && text) event_.cat = *text;
        else if (key_ == "tid") event_.tid = text ? *text : integer ? std::to_string(*integer) : number ? fmt::format("{}", *number) : "";
        else if (key_ == "pid" && integer) event_.pid = integer;
        else if (key_ == "ts") event_.ts = number;
        else if (key_ == "dur") event_.dur = number;
        if ((key_ == "ts" || key_ == "dur") && !number) bad_field(key_, "expected a number");
        break;
      case Ctx::kArgs:
        if (key_ == "Sequence number" && integer) event_.seq = integer;
        else if (key_ == "async" && flag) event_.async = *flag;
        else if (key_ == "stream" && integer) event_.gpu_stream = integer;
        break;
      case Ctx::kDimsInner:
        if (!integer) bad_field("args.Input Dims", "expected integer extents");
        event_.dims.back().push_back(*integer);
        break;
      case Ctx::kDistInfo:
        if (key_ == "rank" && integer) out_.rank = static_cast<int>(*integer);
        else if (key_ == "world_size" && integer) out_.world_size = static_cast<int>(*integer);
        break;
      default: break;
    }
    return true;
  }

  [[noreturn]] void bad_field(const std::string& field, const std::string& detail) const {
    throw InputError(out_.file, 0, fmt::format("traceEvents[{}].{}", ordinal_, field),
                     fmt::format("{} (event \"{}\")", detail, event_.name));
  }

  std::uint32_t stream_index(StreamKind kind, const std::string& id) {
    const std::string key = fmt::format("{}|{}", static_cast<int>(kind), id);
    auto [it, inserted] = stream_ids_.try_emplace(key, static_cast<std::uint32_t>(out_.streams.size()));
    if (inserted) out_.streams.push_back(Stream{kind, id, {}});
    return it->second;
  }

  void finish_event() {
    const std::uint32_t ordinal = ordinal_;  // bad_field names it until the event is taken
    if (event_.ph == "M") {
      ++out_.metadata_events;
      ++ordinal_;
      return;
    }
    if (event_.ph != "X") {
      ++out_.unknown[fmt::format("ph={} {}", event_.ph.empty() ? "?" : event_.ph, event_.name)];
      ++ordinal_;
      return;
    }
    if (event_.name.empty()) bad_field("name", "missing");
    if (!event_.ts) bad_field("ts", "missing");
    if (!event_.dur) bad_field("dur", "missing");
    if (*event_.dur < 0) bad_field("dur", fmt::format("expected a non-negative duration, got {}", *event_.dur));
    ordinal_ = ordinal + 1;
    if (out_.rank < 0 && event_.pid) pid_rank_ = static_cast<int>(*event_.pid);

    const bool gpu = event_.cat == "kernel" || event_.cat == "gpu_memcpy" || event_.cat == "gpu_memset" ||
                     event_.cat == "gpu_user_annotation";
    const bool host_thread = !gpu && !event_.async;
    const std::optional<int> k = host_thread ? iteration_number(event_.name) : std::nullopt;
    if (pass_ == Pass::kScan) {
      if (k) iterations_.push_back({*k, *event_.ts, *event_.ts + *event_.dur});
      return;
    }
    const std::uint32_t stream =
        gpu ? stream_index(StreamKind::kGpu, event_.gpu_stream ? fmt::format("stream {}", *event_.gpu_stream) : event_.tid)
            : stream_index(event_.async ? StreamKind::kHostAsync : StreamKind::kHostThread, event_.tid);
    if (pass_ == Pass::kWindow && !k && !(*event_.ts >= from_us_ && *event_.ts <= to_us_)) {
      ++out_.dropped;  // the stream is listed all the same, as when every event is kept
      return;
    }

    Event e;
    e.stream = stream;
    e.name = out_.names.intern(event_.name);
    e.ordinal = ordinal;
    e.sequence = event_.seq.value_or(-1);
    e.ts_us = *event_.ts;
    e.dur_us = *event_.dur;
    if (event_.has_dims && !event_.dims.empty()) {
      e.dims = static_cast<std::uint32_t>(out_.dims.size());
      out_.dims.push_back(static_cast<std::int64_t>(event_.dims.size()));
      for (const auto& shape : event_.dims) {
        out_.dims.push_back(static_cast<std::int64_t>(shape.size()));
        out_.dims.insert(out_.dims.end(), shape.begin(), shape.end());
      }
    }
    out_.streams[e.stream].events.push_back(static_cast<std::uint32_t>(out_.events.size()));
    out_.events.push_back(e);
  }

 public:
  int pid_rank() const { return pid_rank_; }

 private:
  RankProfile& out_;
  Pass pass_;
  double from_us_, to_us_;
  std::vector<IterationSpan> iterations_;  ///< Pass::kScan
  std::vector<Ctx> stack_;
  std::string key_;
  Pending event_;
  std::uint32_t ordinal_ = 0;
  bool saw_events_ = false;
  int pid_rank_ = -1;
  std::unordered_map<std::string, std::uint32_t> stream_ids_;
};

}  // namespace

namespace {

/// One pass of `handler` over `in`.
void parse(std::istream& in, const std::string& file, Handler& handler) {
  json::sax_parse(in, &handler, nlohmann::json::input_format_t::json, true);
  if (!handler.saw_events()) {
    throw InputError(file, 0, "traceEvents",
                     "missing: not a Chrome/Kineto trace (expected {\"traceEvents\": [...]} or an array of events)");
  }
}

}  // namespace

RankProfile read_rank_profile(std::istream& in, const std::string& file, ProfileWindow window) {
  RankProfile out;
  out.file = file;
  Pass pass = Pass::kKeep;
  // The events kept by a window: those that start within its iteration, with the profiler's
  // resolution to spare (the importer decides what lies inside; this only keeps enough).
  constexpr double kMarginUs = 2.0;
  double from_us = 0, to_us = 0;
  if (window.one_iteration) {
    const std::istream::pos_type start = in.tellg();
    RankProfile scratch;
    scratch.file = file;
    Handler scan(scratch, Pass::kScan);
    parse(in, file, scan);
    // The iteration the importer will take: Iteration#k, or the smallest k. Absent (or
    // repeated), only the Iteration#k events are kept and the importer says what is wrong.
    const IterationSpan* chosen = nullptr;
    for (const IterationSpan& it : scan.iterations()) {
      if ((window.k >= 0 && it.k == window.k && !chosen) || (window.k < 0 && (!chosen || it.k < chosen->k))) chosen = &it;
    }
    pass = Pass::kWindow;
    if (chosen) {
      from_us = chosen->ts_us - kMarginUs;
      to_us = chosen->end_us + kMarginUs;
    } else {
      from_us = 1;
      to_us = 0;  // keeps no event but the Iteration#k ones
    }
    in.clear();
    in.seekg(start);
    if (!in) throw InputError(file, 0, "", "cannot read the file a second time (one iteration is read in two passes)");
  }
  Handler handler(out, pass, from_us, to_us);
  parse(in, file, handler);
  if (out.rank < 0) out.rank = handler.pid_rank();
  return out;
}

RankProfile read_rank_profile_file(const std::string& path, ProfileWindow window) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open the file");
  return read_rank_profile(in, path, window);
}

}  // namespace ccsim::import
