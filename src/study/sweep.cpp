#include "study/sweep.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collective/registry.hpp"
#include "compress/compress_spec.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"
#include "core/parse.hpp"
#include "core/toml.hpp"
#include "core/units.hpp"
#include "engine/child_process.hpp"
#include "study/synth_job.hpp"
#include "study/what_if.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::study {
namespace {

using json::ObjectReader;

/// The axes of a scenario, in the order a grid nests them (the last varies fastest, as a
/// size sweep of nccl-tests does). `synth` and `set` stand for their keys, in spec order.
constexpr std::string_view kAxes[] = {"platform", "trace", "synth", "set",  "compress",
                                      "algo",     "dtype", "ranks", "bytes"};

/// The axes that are objects of keys: "set" (--set keys) and "synth" (the synth mode's job).
bool is_keyed(std::string_view axis) { return axis == "set" || axis == "synth"; }

/// "set.KEY" or "synth.KEY" -> {"set", "KEY"}; any other axis -> {axis, ""}.
std::pair<std::string, std::string> split_axis(const std::string& axis) {
  for (std::string_view keyed : {"set", "synth"}) {
    if (axis.size() > keyed.size() && axis.compare(0, keyed.size(), keyed) == 0 && axis[keyed.size()] == '.') {
      return {std::string(keyed), axis.substr(keyed.size() + 1)};
    }
  }
  return {axis, ""};
}

std::optional<SweepValue>& field(Scenario& s, std::string_view axis) {
  if (axis == "platform") return s.platform;
  if (axis == "trace") return s.trace;
  if (axis == "compress") return s.compress;
  if (axis == "algo") return s.algo;
  if (axis == "dtype") return s.dtype;
  if (axis == "ranks") return s.ranks;
  return s.bytes;
}

/// Rethrows an error about a value (parsed by a command-line parser) at its place in the spec.
template <typename F>
void check_at(const SourceRef& at, F&& check) {
  try {
    check();
  } catch (const InputError& e) {
    at.fail(e.field().empty() || at.field.find(e.field()) != std::string::npos
                ? e.detail()
                : fmt::format("{}: {}", e.field(), e.detail()));
  }
}

/// Checks the form of one value of `axis` (what can be checked without files).
void check_value(const SweepSpec& spec, std::string_view axis, const std::string& key, const SweepValue& v) {
  const SourceRef& at = v.at;
  if (axis == "set") {
    check_at(at, [&] { parse_what_if({key + "=" + v.text}); });
  } else if (axis == "synth") {
    check_at(at, [&] { check_synth_setting(key, v.text); });
  } else if (axis == "compress") {
    if (v.text != "none") check_at(at, [&] { compress::parse_compress_spec(v.text); });
  } else if (axis == "algo") {
    std::vector<std::string> valid;  // "auto" among them: in the collective mode, every algorithm (as no 'algo')
    for (std::string_view name : collective::algorithms(collective::Collective::kAllReduce)) valid.emplace_back(name);
    if (std::find(valid.begin(), valid.end(), v.text) == valid.end()) {
      at.fail(fmt::format("expected one of {}, got \"{}\"{}", fmt::join(valid, ", "), v.text,
                          spec.mode == SweepMode::kCollective ? " (the collective mode lists every algorithm when "
                                                                "'algo' is absent, and marks the one auto chooses)"
                                                              : ""));
    }
  } else if (axis == "dtype") {
    if (!parse_dtype(v.text)) at.fail(fmt::format("expected one of {}, got \"{}\"", dtype_choices(), v.text));
  } else if (axis == "ranks") {
    auto ranks = parse_int(v.text);
    if (!ranks || *ranks < 2 || *ranks > kMaxCollectiveRanks) {
      at.fail(fmt::format("expected a group of 2 to {} ranks, got \"{}\"", kMaxCollectiveRanks, v.text));
    }
  } else if (axis == "bytes") {
    std::uint64_t bytes = 0;
    check_at(at, [&] { bytes = parse_bytes_or_throw(v.text, at.file, at.field); });
    if (bytes < 1 || bytes > trace::kMaxBytes) {
      at.fail(fmt::format("expected 1 to {} bytes (1 PiB), got \"{}\"", trace::kMaxBytes, v.text));
    }
  } else if (v.text.empty()) {
    at.fail(fmt::format("expected a {} name or file, got \"\"", axis));
  }
}

/// The values of one axis: a string or number (or with `flags`, true or false), or a non-empty
/// array of them.
std::vector<SweepValue> axis_values(const json::Value& value, const std::string& file, const std::string& path,
                                    bool flags = false) {
  auto one = [&](const json::Value& v, const std::string& where) {
    if (flags && !v.is_string() && !v.is_number() && !v.is_bool()) {
      SourceRef{file, v.line(), where}.fail("expected a string, a number, true or false, " + json::got(v));
    }
    if (!flags && !v.is_string() && !v.is_number()) {
      SourceRef{file, v.line(), where}.fail("expected a string or a number, " + json::got(v));
    }
    return SweepValue{v.is_bool() ? std::string(v.boolean() ? "true" : "false") : v.text(),
                      SourceRef{file, v.line(), where}};
  };
  if (!value.is_array()) return {one(value, path)};
  if (value.items().empty()) SourceRef{file, value.line(), path}.fail("expected at least one value, got []");
  std::vector<SweepValue> out;
  for (std::size_t i = 0; i < value.items().size(); ++i) out.push_back(one(value.items()[i], json::item_path(path, i)));
  return out;
}

/// The axes of a grid or of one listed scenario: axis name (or "set.KEY", "synth.KEY") -> its values.
struct Axes {
  std::vector<std::pair<std::string, std::vector<SweepValue>>> axes;  ///< in kAxes order, set keys in file order
};

Axes read_axes(const json::Value& object, const std::string& file, const std::string& path, bool lists,
               SweepSpec& spec) {
  ObjectReader r(object, file, path);
  Axes out;
  for (std::string_view axis : kAxes) {
    const json::OptionalField value = r.optional(axis);
    if (!value) continue;
    if (is_keyed(axis)) {
      ObjectReader set = r.child(axis);
      std::vector<std::string>& keys = axis == "set" ? spec.set_keys : spec.synth_keys;
      for (const auto& [key, v] : value->members()) {
        set.allow({key});
        const std::string key_path = set.member_path(key);
        if (axis == "set" && (key == "compress" || key == "algo")) {  // one value per scenario, in one column
          SourceRef{file, v.line(), key_path}.fail(
              fmt::format("'{0}' is an axis of its own: give it as \"{0}\" beside \"set\", not as a --set key", key));
        }
        if (!lists && v.is_array()) {
          SourceRef{file, v.line(), key_path}.fail("expected one value in a listed scenario (a grid takes lists), " +
                                                   json::got(v));
        }
        out.axes.emplace_back(fmt::format("{}.{}", axis, key), axis_values(v, file, key_path, axis == "synth"));
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
      }
      set.finish();
      continue;
    }
    if (!lists && value->is_array()) {
      r.at(axis).fail("expected one value in a listed scenario (a grid takes lists), " + json::got(*value));
    }
    out.axes.emplace_back(std::string(axis), axis_values(*value, file, r.member_path(axis)));
  }
  r.finish();  // an unknown axis: the message lists the valid ones
  return out;
}

void set_axis(Scenario& s, const SweepSpec& spec, const std::string& axis, const SweepValue& v) {
  const auto [name, key] = split_axis(axis);
  if (is_keyed(name)) {
    // Settings are kept in the order of the spec's keys, so that columns and texts agree.
    const std::vector<std::string>& keys = name == "set" ? spec.set_keys : spec.synth_keys;
    std::vector<SweepValue>& settings = name == "set" ? s.settings : s.synth;
    SweepValue setting{key + "=" + v.text, v.at};
    auto rank = [&](const SweepValue& x) {
      const std::string k = x.text.substr(0, x.text.find('='));
      return std::find(keys.begin(), keys.end(), k) - keys.begin();
    };
    auto pos =
        std::find_if(settings.begin(), settings.end(), [&](const SweepValue& x) { return rank(x) > rank(setting); });
    settings.insert(pos, setting);
    return;
  }
  field(s, axis) = v;
}

/// A collective's buffer holds whole elements of its element type (`dtype`; null: fp32).
void check_whole_elements(const SweepValue& bytes, const SweepValue* dtype) {
  const DType type = parse_dtype(dtype != nullptr ? dtype->text : "fp32").value_or(DType::kF32);
  const auto element = static_cast<std::uint64_t>(dtype_bytes(type));
  if (const std::optional<std::uint64_t> n = parse_bytes(bytes.text); n && (*n < element || *n % element != 0)) {
    bytes.at.fail(fmt::format("expected a whole number of {} elements ({} bytes each), got \"{}\"", dtype_name(type),
                              element, bytes.text));
  }
}

/// Mode-specific axes: what each scenario must have and must not have.
void check_scenario(const SweepSpec& spec, const Scenario& s, const SourceRef& where) {
  auto forbid = [&](const std::optional<SweepValue>& v, std::string_view axis, std::string_view why) {
    if (v) v->at.fail(fmt::format("'{}' is not an axis of the {} mode: {}", axis, sweep_mode_name(spec.mode), why));
  };
  auto require = [&](const std::optional<SweepValue>& v, std::string_view axis, std::string_view why) {
    if (!v) where.fail(fmt::format("missing '{}': {}", axis, why));
  };
  if (spec.mode != SweepMode::kSynth && !s.synth.empty()) {
    s.synth.front().at.fail(fmt::format(
        "'synth' is an axis of the synth mode (\"mode\": \"synth\"), not of the {} mode", sweep_mode_name(spec.mode)));
  }
  if (spec.mode == SweepMode::kSynth) {
    require(s.platform, "platform", "the synth mode checks and replays each job on a platform");
    const bool model =
        std::any_of(s.synth.begin(), s.synth.end(), [](const SweepValue& v) { return v.text.rfind("model=", 0) == 0; });
    if (!model) where.fail("missing 'synth.model': the synth mode needs the model of the job (a preset or file)");
    forbid(s.trace, "trace", "the synth mode writes each scenario's trace from its 'synth' keys");
    forbid(s.ranks, "ranks", "the job's ranks are tp x pp x dp (use \"mode\": \"collective\" for one collective)");
    forbid(s.bytes, "bytes", "the job has its own sizes (use \"mode\": \"collective\" for one collective)");
    forbid(s.dtype, "dtype", "the job has its own element types");
  } else if (spec.mode == SweepMode::kTrace) {
    require(s.trace, "trace", "the trace mode replays a trace per scenario");
    forbid(s.ranks, "ranks", "a trace has its own ranks (use \"mode\": \"collective\" for one collective)");
    forbid(s.bytes, "bytes", "a trace has its own sizes (use \"mode\": \"collective\" for one collective)");
    forbid(s.dtype, "dtype", "a trace has its own element types");
  } else {
    require(s.platform, "platform", "the collective mode needs a platform per scenario");
    require(s.ranks, "ranks", "the collective mode needs the group size per scenario");
    require(s.bytes, "bytes", "the collective mode needs the buffer size per scenario");
    forbid(s.trace, "trace", "the collective mode evaluates one collective (use \"mode\": \"trace\")");
    check_whole_elements(*s.bytes, s.dtype ? &*s.dtype : nullptr);
  }
}

/// The scenarios of "grid": every combination of its axes, the last varying fastest. Every
/// value is checked once, before the grid is expanded: a bad value is an error at once, not
/// after building up to kMaxSweepScenarios scenarios.
void read_grid(ObjectReader& doc, SweepSpec& spec) {
  Axes axes = read_axes(doc.required("grid").object(), spec.file, "grid", true, spec);
  std::size_t count = 1;
  for (const auto& [axis, values] : axes.axes) {
    count *= values.size();
    if (count > kMaxSweepScenarios) {
      doc.at("grid").fail(
          fmt::format("the grid has more than {} scenarios (the product of its axes' lengths)", kMaxSweepScenarios));
    }
  }
  for (const auto& [axis, values] : axes.axes) {
    const auto [name, key] = split_axis(axis);
    for (const SweepValue& v : values) check_value(spec, name, key, v);
  }
  spec.scenarios.resize(count);
  // Odometer: the last axis varies fastest.
  std::size_t repeat = count;
  for (const auto& [axis, values] : axes.axes) {
    repeat /= values.size();
    for (std::size_t i = 0; i < count; ++i)
      set_axis(spec.scenarios[i], spec, axis, values[(i / repeat) % values.size()]);
  }
  // The axes a mode requires and forbids are the same for every scenario of a grid: the
  // first one says it.
  if (!spec.scenarios.empty()) check_scenario(spec, spec.scenarios.front(), doc.at("grid"));
  // Every size against every element type of the grid, not only the first scenario's.
  const std::vector<SweepValue>* sizes = nullptr;
  const std::vector<SweepValue>* types = nullptr;
  for (const auto& [axis, values] : axes.axes) {
    if (axis == "bytes") sizes = &values;
    if (axis == "dtype") types = &values;
  }
  if (sizes != nullptr && spec.mode == SweepMode::kCollective) {
    for (const SweepValue& size : *sizes) {
      if (types == nullptr) check_whole_elements(size, nullptr);
      for (std::size_t t = 0; types != nullptr && t < types->size(); ++t) check_whole_elements(size, &(*types)[t]);
    }
  }
}

/// The scenarios of "scenarios", in their order, each checked for its mode.
void read_list(ObjectReader& doc, SweepSpec& spec) {
  const json::Value& list = doc.required("scenarios").array();
  if (list.items().empty()) doc.at("scenarios").fail("expected at least one scenario, got []");
  if (list.items().size() > kMaxSweepScenarios) {
    doc.at("scenarios").fail(fmt::format("expected at most {} scenarios", kMaxSweepScenarios));
  }
  for (std::size_t i = 0; i < list.items().size(); ++i) {
    const std::string path = json::item_path("scenarios", i);
    Axes axes = read_axes(list.items()[i], spec.file, path, false, spec);
    Scenario s;
    for (const auto& [axis, values] : axes.axes) {
      const auto [name, key] = split_axis(axis);
      check_value(spec, name, key, values.front());
      set_axis(s, spec, axis, values.front());
    }
    check_scenario(spec, s, SourceRef{spec.file, list.items()[i].line(), path});
    spec.scenarios.push_back(std::move(s));
  }
}

}  // namespace

std::string_view sweep_engine_name(SweepEngine engine) { return engine == SweepEngine::kSim ? "sim" : "closed-form"; }

std::string_view sweep_mode_name(SweepMode mode) {
  return mode == SweepMode::kTrace ? "trace" : mode == SweepMode::kSynth ? "synth" : "collective";
}

SweepSpec parse_sweep_spec(std::string_view text, const std::string& file) {
  json::Value root = json::parse(text, file);
  ObjectReader doc(root, file, "");
  const std::string format = doc.required("format").string();
  if (format != kSweepFormat) doc.at("format").fail(fmt::format("expected \"{}\", got \"{}\"", kSweepFormat, format));
  if (doc.required("version").integer() != kSweepVersion) {
    doc.at("version").fail(fmt::format("expected {} (the only version this build reads), got \"{}\"", kSweepVersion,
                                       doc.required("version")->text()));
  }
  SweepSpec spec;
  spec.file = file;
  spec.description = doc.optional("description").string().value_or("");
  const std::string mode = doc.required("mode").choice({"trace", "collective", "synth"});
  spec.mode = mode == "trace" ? SweepMode::kTrace : mode == "synth" ? SweepMode::kSynth : SweepMode::kCollective;
  if (doc.has("engine")) {
    spec.engine =
        doc.required("engine").choice({"sim", "closed-form"}) == "sim" ? SweepEngine::kSim : SweepEngine::kClosedForm;
    spec.engine_at = doc.at("engine");
  }
  if (doc.has("collective")) spec.collective = doc.required("collective").choice({"all_reduce"});
  doc.allow({"note"});
  const bool grid = doc.has("grid");
  if (grid == doc.has("scenarios")) {
    doc.at("grid").fail("expected either \"grid\" (every combination of its axes) or \"scenarios\" (a list), not " +
                        std::string(grid ? "both" : "neither"));
  }
  if (grid) {
    read_grid(doc, spec);
  } else {
    read_list(doc, spec);
  }
  doc.finish();
  return spec;
}

SweepSpec read_sweep_spec(const std::string& path) {
  std::string text = json::read_file(path);
  // A TOML spec is the same document: translated to JSON with its lines (core/toml.hpp), it
  // is read, checked and reported on exactly as a JSON spec. `set` keys hold dots.
  if (toml::is_toml_path(path)) text = toml::to_json_text(text, path, {"set"});
  return parse_sweep_spec(text, path);
}

// --- the worker pool ---

namespace {

void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

std::uint64_t get_u64(std::string_view& in) {
  if (in.size() < sizeof(std::uint64_t)) throw std::runtime_error("garbled answer from a sweep worker");
  std::uint64_t v = 0;
  std::memcpy(&v, in.data(), sizeof v);
  in.remove_prefix(sizeof v);
  return v;
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// Frames: position (8 bytes), length (8 bytes), the encoded outcome.
std::string frame(std::size_t position, const std::string& outcome) {
  std::string out;
  put_u64(out, position);
  put_u64(out, outcome.size());
  return out + outcome;
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string buffer;
  std::size_t next = 0;  ///< the position it works on (for a worker that dies)
  bool failed = false;
};

std::string failure(const std::string& message) {
  return engine::encode_outcome([&]() -> std::string { throw std::runtime_error(message); });
}

using Work = std::function<std::string(std::size_t)>;
using Done = std::function<void(std::size_t)>;

/// Forks worker `w` of `count`: it runs positions w, w + count, ... of `items` in order and
/// writes each outcome as a frame to a pipe, up to its first failure.
Worker start_worker(std::size_t w, std::size_t count, pid_t parent, const std::vector<std::size_t>& items,
                    const Work& work) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("cannot start sweep worker {}: {}", w, std::strerror(errno)));
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // die with ccsim
    if (::getppid() != parent) ::_exit(1);
    ::close(fds[0]);
    for (std::size_t p = w; p < items.size(); p += count) {
      const std::string outcome = engine::encode_outcome([&] { return work(items[p]); });
      if (!write_all(fds[1], frame(p, outcome))) break;
      if (!engine::is_value_outcome(outcome)) break;
    }
    ::close(fds[1]);
    ::_exit(0);  // no atexit handlers, no flush of the parent's buffered output
  }
  ::close(fds[1]);
  Worker worker;
  worker.pid = pid;
  worker.fd = fds[0];
  worker.next = w;
  return worker;
}

/// Moves the whole frames of `worker.buffer` into `outcomes` by position, calling `done` for each.
void take_frames(Worker& worker, std::size_t count, std::vector<std::string>& outcomes, std::size_t& finished,
                 const Done& done) {
  std::string_view rest(worker.buffer);
  while (rest.size() >= 16) {
    std::string_view head = rest;
    const std::size_t position = get_u64(head);
    const std::size_t length = get_u64(head);
    if (head.size() < length) break;
    if (position >= outcomes.size()) throw std::runtime_error("garbled answer from a sweep worker");
    outcomes[position] = std::string(head.substr(0, length));
    worker.failed = !engine::is_value_outcome(outcomes[position]);
    worker.next = position + count;
    head.remove_prefix(length);
    rest = head;
    done(++finished);
  }
  worker.buffer.erase(0, worker.buffer.size() - rest.size());
}

/// Closes and reaps worker `w`, whose answers ended: it finished, stopped at a failure, or died,
/// which is a failure of the position it was on.
void end_worker(Worker& worker, std::size_t w, std::vector<std::string>& outcomes) {
  ::close(worker.fd);
  worker.fd = -1;
  int status = 0;
  while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!worker.failed && worker.next < outcomes.size()) {
    outcomes[worker.next] =
        failure(WIFSIGNALED(status) ? fmt::format("sweep worker {} died of signal {} ({})", w, WTERMSIG(status),
                                                  ::strsignal(WTERMSIG(status)))
                                    : fmt::format("sweep worker {} ended before its work was done", w));
  }
}

/// Reads the workers' frames as they come until every worker's pipe has ended.
void collect(std::vector<Worker>& workers, std::vector<std::string>& outcomes, const Done& done) {
  std::size_t open = workers.size();
  std::size_t finished = 0;
  std::vector<char> chunk(1 << 16);
  while (open > 0) {
    std::vector<pollfd> polls;
    std::vector<std::size_t> which;
    for (std::size_t w = 0; w < workers.size(); ++w) {
      if (workers[w].fd >= 0) {
        polls.push_back(pollfd{workers[w].fd, POLLIN, 0});
        which.push_back(w);
      }
    }
    if (::poll(polls.data(), polls.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("poll: {}", std::strerror(errno)));
    }
    for (std::size_t i = 0; i < polls.size(); ++i) {
      if (polls[i].revents == 0) continue;
      Worker& worker = workers[which[i]];
      ssize_t n = ::read(worker.fd, chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        worker.buffer.append(chunk.data(), static_cast<std::size_t>(n));
        take_frames(worker, workers.size(), outcomes, finished, done);
        continue;
      }
      end_worker(worker, which[i], outcomes);
      --open;
    }
  }
}

}  // namespace

std::vector<std::string> run_in_workers(const std::vector<std::size_t>& items, int jobs, const Work& work,
                                        const Done& done) {
  std::vector<std::string> outcomes(items.size());
  if (jobs <= 1 || items.size() <= 1) {
    std::size_t finished = 0;
    for (std::size_t p = 0; p < items.size(); ++p) {
      outcomes[p] = engine::encode_outcome([&] { return work(items[p]); });
      done(++finished);
      if (!engine::is_value_outcome(outcomes[p])) break;
    }
    return outcomes;
  }
  const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(jobs), items.size());
  std::vector<Worker> workers;
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  for (std::size_t w = 0; w < count; ++w) workers.push_back(start_worker(w, count, parent, items, work));
  collect(workers, outcomes, done);
  return outcomes;
}

std::vector<std::size_t> rank_items(std::size_t total, int rank, int ranks) {
  std::vector<std::size_t> items;
  for (std::size_t i = static_cast<std::size_t>(rank); i < total; i += static_cast<std::size_t>(ranks)) {
    items.push_back(i);
  }
  return items;
}

std::string pack_outcomes(const std::vector<std::size_t>& items, const std::vector<std::string>& outcomes) {
  std::string out;
  for (std::size_t p = 0; p < items.size(); ++p) {
    if (outcomes[p].empty()) continue;
    out += frame(items[p], outcomes[p]);
  }
  return out;
}

void unpack_outcomes(std::string_view packed, std::vector<std::string>& by_item) {
  while (!packed.empty()) {
    const std::size_t item = get_u64(packed);
    const std::size_t length = get_u64(packed);
    if (item >= by_item.size() || packed.size() < length) throw std::runtime_error("garbled sweep outcomes");
    by_item[item] = std::string(packed.substr(0, length));
    packed.remove_prefix(length);
  }
}

}  // namespace ccsim::study
