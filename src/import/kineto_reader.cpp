#include "import/kineto_reader.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "core/input_error.hpp"
#include "core/output_file.hpp"
#include "core/parse.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::import {

std::string_view stream_kind_name(StreamKind kind) {
  switch (kind) {
    case StreamKind::kHostThread:
      return "host thread";
    case StreamKind::kHostAsync:
      return "host async";
    case StreamKind::kGpu:
      return "gpu stream";
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
    shape.assign(dims.begin() + static_cast<std::ptrdiff_t>(at),
                 dims.begin() + static_cast<std::ptrdiff_t>(at + extents));
    at += extents;
  }
  return out;
}

std::vector<std::string_view> RankProfile::input_types(const Event& e) const {
  std::vector<std::string_view> out;
  if (e.types == 0) return out;
  const std::size_t count = types[e.types];
  for (std::size_t i = 0; i < count; ++i) out.push_back(names[types[e.types + 1 + i]]);
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
  kFind,    ///< keep the events of the iteration wanted, as found so far (see EventWindow::choose)
  kWindow,  ///< keep the events that start within [from_us, to_us], and every Iteration#k
};

/// A host thread's Iteration#k event.
struct IterationSpan {
  int k = 0;
  double ts_us = 0, end_us = 0;
};

/// The events kept by a window: those that start within its iteration, with the profiler's
/// resolution to spare (the importer decides what lies inside; this only keeps enough).
constexpr double kMarginUs = 2.0;

/// k of an event that is an Iteration#k of a host thread (the importer's main thread is the
/// one that holds it), else -1.
int iteration_of(StreamKind kind, std::string_view name) {
  return kind == StreamKind::kHostThread ? iteration_number(name).value_or(-1) : -1;
}

/// An event's Input Dims and Input type (interned), until EventWindow::keep() flattens them.
struct EventInputs {
  std::vector<std::vector<std::int64_t>> dims;
  std::vector<trace::Names::Id> types;
};

/// Which of a pass's checked events go into the profile. kKeep keeps every one; kWindow those
/// that start within [from_us, to_us] and every Iteration#k; kFind the events of the
/// iteration wanted, as found so far in the file (choose()), holding back the events that a
/// later Iteration#k may still take (hold()).
class EventWindow {
 public:
  /// kFind with the iteration wanted (`want`, -1: the smallest k); kWindow with the window
  /// [from_us, to_us] (`want` unused).
  EventWindow(RankProfile& out, Pass pass, int want, double from_us, double to_us)
      : out_(out), pass_(pass), want_(want), from_us_(from_us), to_us_(to_us) {}

  /// Whether an event that starts at `ts` (an Iteration#k when k >= 0) may be kept; one that
  /// may not is counted as dropped, before anything of it is interned.
  bool admits(int k, double ts) {
    if (pass_ == Pass::kWindow && k < 0 && !in_window(ts)) {
      ++out_.dropped;
      return false;
    }
    return true;
  }
  /// An admitted event, `k` as for admits().
  void take(const Event& e, EventInputs inputs, int k) {
    const double ts = e.ts_us;
    if (pass_ == Pass::kFind) {
      if (k >= 0 && (want_ >= 0 ? k == want_ && !chosen_ : !chosen_ || k < chosen_->k)) choose({k, ts, ts + e.dur_us});
      if (k >= 0 || (chosen_ && in_window(ts)))
        keep(e, inputs);
      else
        hold(e, std::move(inputs));
      advance(ts);
      return;
    }
    keep(e, inputs);
  }

  /// Pass::kFind, once the file is read: the iteration chosen, and whether every event of its
  /// window was kept (false: an event that starts in it came before its Iteration#k in the
  /// file and was let go; the file has to be read again with the window known).
  const std::optional<IterationSpan>& chosen() const { return chosen_; }
  bool complete() const { return !chosen_ || lost_at_choice_ < from_us_; }
  /// Pass::kFind: the events held back that no iteration took are dropped.
  void finish() {
    out_.dropped += held_.size();
    held_.clear();
  }

 private:
  struct Held {
    Event event;
    EventInputs inputs;
  };

  bool in_window(double ts) const { return ts >= from_us_ && ts <= to_us_; }

  /// Adds an event to the profile (with its Input Dims and Input type).
  void keep(Event e, const EventInputs& inputs) {
    const auto& dims = inputs.dims;
    if (!dims.empty()) {
      e.dims = static_cast<std::uint32_t>(out_.dims.size());
      out_.dims.push_back(static_cast<std::int64_t>(dims.size()));
      for (const auto& shape : dims) {
        out_.dims.push_back(static_cast<std::int64_t>(shape.size()));
        out_.dims.insert(out_.dims.end(), shape.begin(), shape.end());
      }
    } else {
      e.dims = 0;
    }
    e.types = 0;
    if (!inputs.types.empty()) {
      e.types = static_cast<std::uint32_t>(out_.types.size());
      out_.types.push_back(static_cast<trace::Names::Id>(inputs.types.size()));
      out_.types.insert(out_.types.end(), inputs.types.begin(), inputs.types.end());
    }
    out_.streams[e.stream].events.push_back(static_cast<std::uint32_t>(out_.events.size()));
    out_.events.push_back(e);
  }

  /// Pass::kFind. A file lists its events in time order (torch.profiler's and Kineto's do), so
  /// the events of an iteration come after its Iteration#k event, or at most a profiler tick
  /// before it (an enclosing ProfilerStep#k). An event outside the current window is held
  /// back while it starts within kMarginUs of the latest start seen, and let go after; the
  /// latest start of an event let go is remembered, and when an Iteration#k is chosen, an
  /// event let go before it that could lie in its window means the file is not in time order
  /// there: it is read again (read_rank_profile).
  void hold(const Event& e, EventInputs inputs) {
    if (e.ts_us < latest_ - kMarginUs) {
      let_go(e.ts_us);
      return;
    }
    held_.push_back({e, std::move(inputs)});
  }
  void advance(double ts) {
    if (!(ts > latest_)) return;
    latest_ = ts;
    // Letting go later than possible is harmless (a held event is kept if an iteration takes
    // it): scan when the latest start has moved past the margin, or the held events have
    // doubled, so that many events within a few microseconds cost linear time, not quadratic.
    if (latest_ - scanned_at_ <= kMarginUs && held_.size() < 2 * held_after_scan_ + 64) return;
    scanned_at_ = latest_;
    std::erase_if(held_, [&](const Held& h) {
      if (h.event.ts_us >= latest_ - kMarginUs) return false;
      let_go(h.event.ts_us);
      return true;
    });
    held_after_scan_ = held_.size();
  }
  void let_go(double ts) {
    ++out_.dropped;
    lost_ = std::max(lost_, ts);
  }
  /// The iteration wanted is `it` (as far as the file has been read): the events kept for an
  /// earlier choice that lie outside its window are let go, the held ones inside it kept.
  void choose(const IterationSpan& it) {
    chosen_ = it;
    from_us_ = it.ts_us - kMarginUs;
    to_us_ = it.end_us + kMarginUs;
    lost_at_choice_ = lost_;
    std::vector<std::pair<Event, EventInputs>> kept;  // in file order
    for (const Event& e : out_.events) {
      if (iteration_of(out_.streams[e.stream].kind, out_.name(e)) >= 0 || in_window(e.ts_us))
        kept.emplace_back(e, inputs_of(e));
      else
        let_go(e.ts_us);
    }
    std::erase_if(held_, [&](Held& h) {
      if (!in_window(h.event.ts_us)) return false;
      kept.emplace_back(h.event, std::move(h.inputs));
      return true;
    });
    std::stable_sort(kept.begin(), kept.end(),
                     [](const auto& a, const auto& b) { return a.first.ordinal < b.first.ordinal; });
    out_.events.clear();
    out_.dims.assign(1, 0);
    out_.types.assign(1, 0);
    for (Stream& st : out_.streams) st.events.clear();
    for (const auto& [e, inputs] : kept) keep(e, inputs);
  }

  /// A kept event's inputs, as keep() takes them.
  EventInputs inputs_of(const Event& e) const {
    EventInputs inputs{out_.input_dims(e), {}};
    if (e.types != 0) {
      const auto first = out_.types.begin() + static_cast<std::ptrdiff_t>(e.types);
      inputs.types.assign(first + 1, first + 1 + static_cast<std::ptrdiff_t>(*first));
    }
    return inputs;
  }

  RankProfile& out_;
  Pass pass_;
  int want_;
  double from_us_, to_us_;
  // Pass::kFind
  std::optional<IterationSpan> chosen_;
  std::vector<Held> held_;  ///< events outside the window that a later Iteration#k may still take
  double latest_ = -std::numeric_limits<double>::infinity();      ///< the latest start seen
  double scanned_at_ = -std::numeric_limits<double>::infinity();  ///< latest_ when held_ was last scanned
  std::size_t held_after_scan_ = 0;
  double lost_ = -std::numeric_limits<double>::infinity();  ///< the latest start of an event let go
  double lost_at_choice_ = -std::numeric_limits<double>::infinity();
};

/// The SAX handler: a stack of contexts, and the event being read. Only the fields the
/// importer uses are kept; everything else is skipped without building a DOM. Each complete
/// event is checked, then goes to the pass's EventWindow, which decides whether it is kept.
class Handler : public nlohmann::json_sax<json> {
 public:
  /// kKeep; kFind with the iteration wanted (`want`, -1: the smallest k); kWindow with the
  /// window [from_us, to_us] (`want` unused).
  explicit Handler(RankProfile& out, Pass pass = Pass::kKeep, int want = -1, double from_us = 0, double to_us = 0)
      : out_(out), window_(out, pass, want, from_us, to_us) {}

  EventWindow& window() { return window_; }
  bool saw_events() const { return saw_events_; }
  int pid_rank() const { return pid_rank_; }

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
    } else if (parent == Ctx::kArgs && key_ == "Input type") {
      next = Ctx::kTypes;
      event_.types.clear();
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
    throw InputError(out_.file, 0, "", fmt::format("byte {}: truncated or malformed JSON ({})", position, ex.what()));
  }

 private:
  enum class Ctx : std::uint8_t {
    kRoot,
    kTop,
    kEvents,
    kEvent,
    kArgs,
    kDimsOuter,
    kDimsInner,
    kTypes,
    kDistInfo,
    kSkip
  };

  struct Pending {
    std::string ph, name, cat, tid;
    std::optional<double> ts, dur;
    std::optional<std::int64_t> pid, seq, gpu_stream, external_id;
    bool async = false;
    bool has_dims = false;
    std::vector<std::vector<std::int64_t>> dims;
    std::vector<std::string> types;
  };

  bool value(std::optional<double> number, std::optional<std::int64_t> integer, const std::string* text,
             std::optional<bool> flag) {
    const Ctx ctx = stack_.empty() ? Ctx::kRoot : stack_.back();
    switch (ctx) {
      case Ctx::kEvent:
        if (key_ == "ph" && text)
          event_.ph = *text;
        else if (key_ == "name" && text)
          event_.name = *text;
        else if (key_ == "cat" && text)
          event_.cat = *text;
        else if (key_ == "tid")
          event_.tid = text ? *text : integer ? std::to_string(*integer) : number ? fmt::format("{}", *number) : "";
        else if (key_ == "pid" && integer)
          event_.pid = integer;
        else if (key_ == "ts")
          event_.ts = number;
        else if (key_ == "dur")
          event_.dur = number;
        if ((key_ == "ts" || key_ == "dur") && !number) bad_field(key_, "expected a number");
        break;
      case Ctx::kArgs:
        if (key_ == "Sequence number" && integer)
          event_.seq = integer;
        else if (key_ == "async" && flag)
          event_.async = *flag;
        else if (key_ == "stream" && integer)
          event_.gpu_stream = integer;
        else if (key_ == "External id" && integer)
          event_.external_id = integer;
        break;
      case Ctx::kTypes:
        event_.types.push_back(text ? *text : std::string());
        break;
      case Ctx::kDimsInner:
        if (!integer) bad_field("args.Input Dims", "expected integer extents");
        event_.dims.back().push_back(*integer);
        break;
      case Ctx::kDistInfo:
        if (key_ == "rank" && integer)
          out_.rank = static_cast<int>(*integer);
        else if (key_ == "world_size" && integer)
          out_.world_size = static_cast<int>(*integer);
        break;
      default:
        break;
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
    if (*event_.dur > trace::kMaxDurationMs * 1e3) {
      bad_field("dur", fmt::format("expected at most {:g} us (a year, what a trace's operator may last), got {}",
                                   trace::kMaxDurationMs * 1e3, *event_.dur));
    }
    ordinal_ = ordinal + 1;
    if (out_.rank < 0 && event_.pid) pid_rank_ = static_cast<int>(*event_.pid);

    const bool gpu = event_.cat == "kernel" || event_.cat == "gpu_memcpy" || event_.cat == "gpu_memset" ||
                     event_.cat == "gpu_user_annotation";
    // The stream is listed even when its events are not kept, as when every event is.
    const StreamKind kind = gpu ? StreamKind::kGpu : event_.async ? StreamKind::kHostAsync : StreamKind::kHostThread;
    const std::uint32_t stream =
        stream_index(kind, gpu && event_.gpu_stream ? fmt::format("stream {}", *event_.gpu_stream) : event_.tid);
    const int k = iteration_of(kind, event_.name);
    if (!window_.admits(k, *event_.ts)) return;
    Event e;
    e.stream = stream;
    e.name = out_.names.intern(event_.name);
    e.ordinal = ordinal;
    e.sequence = event_.seq.value_or(-1);
    e.external_id = event_.external_id.value_or(-1);
    e.kernel = event_.cat == "kernel";
    e.runtime = event_.cat == "cuda_runtime" || event_.cat == "cuda_driver";
    e.ts_us = *event_.ts;
    e.dur_us = *event_.dur;
    EventInputs inputs;
    if (event_.has_dims) inputs.dims = std::move(event_.dims);
    for (const std::string& type : event_.types) inputs.types.push_back(out_.names.intern(type));
    window_.take(e, std::move(inputs), k);
  }

  RankProfile& out_;
  EventWindow window_;
  std::vector<Ctx> stack_;
  std::string key_;
  Pending event_;
  std::uint32_t ordinal_ = 0;
  bool saw_events_ = false;
  int pid_rank_ = -1;
  std::unordered_map<std::string, std::uint32_t> stream_ids_;
};

/// The decompressed content of a gzip file (several members are read one after another, as
/// gzip does); a damaged one is an InputError naming the file.
std::string gunzip_file(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (gz == nullptr) throw InputError(path, 0, "", "cannot open the file");
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const int n = gzread(gz, buffer, sizeof buffer);
    if (n < 0) {
      int code = 0;
      const std::string why = gzerror(gz, &code);
      gzclose(gz);
      throw InputError(path, 0, "",
                       fmt::format("byte {} of the decompressed content: damaged gzip data ({})", out.size(), why));
    }
    if (n == 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  gzclose(gz);
  return out;
}

/// One pass of `handler` over `in` into `out` (whose rank, when the file names none, is
/// the events' pid).
void parse(std::istream& in, const std::string& file, Handler& handler, RankProfile& out) {
  json::sax_parse(in, &handler, nlohmann::json::input_format_t::json, true);
  if (!handler.saw_events()) {
    throw InputError(file, 0, "traceEvents",
                     "missing: not a Chrome/Kineto trace (expected {\"traceEvents\": [...]} or an array of events)");
  }
  if (out.rank < 0) out.rank = handler.pid_rank();
}

}  // namespace

RankProfile read_rank_profile(std::istream& in, const std::string& file, ProfileWindow window) {
  RankProfile out;
  out.file = file;
  if (!window.one_iteration) {
    Handler handler(out);
    parse(in, file, handler, out);
    return out;
  }
  // One pass keeps the iteration's events when the file is in time order; else a second one
  // with the window known. An iteration the file lacks (or repeats): only the Iteration#k
  // events are kept, and the importer says what is wrong.
  const std::istream::pos_type start = in.tellg();
  std::optional<IterationSpan> chosen;
  {
    Handler find(out, Pass::kFind, window.k);
    parse(in, file, find, out);
    find.window().finish();
    if (find.window().complete()) return out;
    chosen = find.window().chosen();
  }
  in.clear();
  in.seekg(start);
  if (!in) {
    throw InputError(file, 0, "",
                     "cannot read the file a second time (its events are not in time order, and the iteration's are "
                     "read again once it is known)");
  }
  out = RankProfile{};
  out.file = file;
  out.passes = 2;
  Handler handler(out, Pass::kWindow, -1, chosen->ts_us - kMarginUs, chosen->end_us + kMarginUs);
  parse(in, file, handler, out);
  return out;
}

RankProfile read_rank_profile_file(const std::string& path, ProfileWindow window) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open the file");
  note_input_file(path);  // an output must not replace it
  char magic[2] = {};
  in.read(magic, 2);
  const bool gzip =
      in.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f && static_cast<unsigned char>(magic[1]) == 0x8b;
  in.clear();
  in.seekg(0);
  if (!gzip) return read_rank_profile(in, path, window);
  in.close();
  std::istringstream text(gunzip_file(path));
  return read_rank_profile(text, path, window);
}

}  // namespace ccsim::import
