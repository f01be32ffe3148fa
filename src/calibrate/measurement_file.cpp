#include "calibrate/measurement_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::calibrate {
namespace {

using json::ObjectReader;

constexpr const char* kFormat = "ccsim-measurements";
constexpr int kVersion = 1;

/// The median of a timing summary, and its p10 and p90 when present (the spread of the
/// repetitions, which a fit's error is compared with); the others are allowed, not used.
double read_time(ObjectReader& parent, std::optional<double>* p10 = nullptr, std::optional<double>* p90 = nullptr) {
  ObjectReader time = parent.child("time_s");
  double median = time.required("median").positive();
  if (p10) *p10 = time.optional("p10").positive();
  if (p90) *p90 = time.optional("p90").positive();
  time.allow({"min", "max", "p10", "p90", "mean"});
  time.finish();
  return median;
}

int read_count(ObjectReader& r, std::string_view key) {
  std::int64_t value = r.required(key).positive_integer();
  if (value > 1 << 24) r.at(key).fail(fmt::format("expected at most {}, {}", 1 << 24, json::got(*r.required(key))));
  return static_cast<int>(value);
}

SeriesPoint read_series(const json::Value& value, const std::string& file, const std::string& path) {
  ObjectReader r(value, file, path);
  SeriesPoint s;
  s.line = value.line();
  s.field = path;
  s.op = r.required("op").choice({"all_reduce", "all_gather", "reduce_scatter"});
  s.implementation = r.required("implementation").choice({"mpi-library", "ccsim-schedule"});
  s.algorithm = r.required("algorithm").string();
  if (s.algorithm.empty()) r.at("algorithm").fail("expected an algorithm name, got \"\"");
  s.transport = r.required("transport").choice({"mpi", "ucx"});
  s.codec = r.optional("codec").string();
  s.group_size = read_count(r, "group_size");
  s.group = r.optional("group").string().value_or("");
  s.bytes = r.required("bytes").non_negative_integer();
  if (s.bytes == 0) r.at("bytes").fail("expected a positive integer, " + json::got(*r.required("bytes")));
  s.median_s = read_time(r, &s.p10_s, &s.p90_s);
  if ((s.p10_s && *s.p10_s > s.median_s) || (s.p90_s && *s.p90_s < s.median_s)) {
    r.at("time_s").fail(fmt::format("expected p10 <= median <= p90, got {} <= {} <= {}", s.p10_s.value_or(s.median_s),
                                    s.median_s, s.p90_s.value_or(s.median_s)));
  }
  s.ratio = r.optional("ratio").positive();
  if (r.has("check")) {
    ObjectReader check = r.child("check");
    if (check.optional("passed").boolean() == false) {
      const SourceRef where = check.at("passed");
      s.check_field = where.field;
      s.check_line = where.line;
      const auto violations = check.optional("violations").non_negative();
      // ccsim-measure writes an error that is no finite number (an overflow) as "inf".
      std::optional<double> over;
      if (check.has("max_error_over_bound") && check.required("max_error_over_bound")->is_string()) {
        if (check.required("max_error_over_bound").string() != "inf") {
          check.at("max_error_over_bound")
              .fail("expected a non-negative number or \"inf\", " + json::got(*check.required("max_error_over_bound")));
        }
        over = std::numeric_limits<double>::infinity();
      } else {
        over = check.optional("max_error_over_bound").non_negative();
      }
      s.check_failure = fmt::format(
          "its result check failed ({}{}{})", check.optional("kind").string().value_or("check"),
          violations ? fmt::format(", {:g} elements wrong", *violations) : std::string(),
          !over               ? std::string()
          : std::isinf(*over) ? std::string(", an error that is not a finite number: an overflow or a wrong result")
                              : fmt::format(", max error {:.4g} x the bound", *over));
    }
    check.allow({"kind", "violations", "warmup_violations", "max_abs_error", "max_error_over_bound", "error_bound_abs",
                 "rms_error", "rms_value"});
    check.finish();
  }
  r.allow({"error_feedback", "groups", "count", "dtype", "warmup", "reps", "rounds", "samples_s", "wire_bytes_per_rank",
           "messages_per_rank"});
  r.finish();
  return s;
}

P2pPoint read_p2p(const json::Value& value, const std::string& file, const std::string& path) {
  ObjectReader r(value, file, path);
  P2pPoint p;
  p.pattern = r.required("pattern").choice({"ping-pong", "pairs"});
  p.transport = r.required("transport").choice({"mpi", "ucx"});
  p.pairs = read_count(r, "pairs");
  p.bytes = r.required("bytes").non_negative_integer();
  p.median_s = read_time(r);
  r.allow({"reps", "samples_s"});
  r.finish();
  return p;
}

}  // namespace

/// Long: the format's fields in document order, each checked where it is read.
MeasurementFile parse_measurements(std::string_view text, const std::string& source) {
  json::Value root = json::parse(text, source);
  ObjectReader doc(root, source, "");
  std::string format = doc.required("format").string();
  if (format != kFormat) doc.at("format").fail(fmt::format("expected \"{}\", got \"{}\"", kFormat, format));
  std::int64_t version = doc.required("version").integer();
  if (version != kVersion) {
    doc.at("version").fail(fmt::format("expected {} (the only version this build reads), got \"{}\"", kVersion,
                                       doc.required("version")->text()));
  }
  MeasurementFile m;
  m.file = source;
  ObjectReader machine = doc.child("machine");
  m.processes = read_count(machine, "processes");
  m.nodes = read_count(machine, "nodes");
  m.cpu = machine.optional("cpu").string().value_or("");
  m.cores_per_node = static_cast<int>(machine.optional("cores_per_node").integer_in(1, 1 << 24).value_or(0));
  m.memory_Bps = machine.optional("memory_Bps").number_in(0, trace::kMaxMemoryBps, true).value_or(0);
  if (const json::Value* limits = machine.optional("protocol_limits").object()) {
    ObjectReader r(*limits, source, machine.member_path("protocol_limits"));
    for (const auto& member : limits->members()) {
      const std::string& name = member.first;
      m.protocol_limits.emplace_back(name,
                                     static_cast<std::uint64_t>(r.required(name).integer_in(1, std::int64_t{1} << 40)));
    }
    r.finish();
  }
  if (const json::Value* affinity = machine.optional("affinity").array()) {
    const std::string path = machine.member_path("affinity");
    for (std::size_t i = 0; i < affinity->items().size(); ++i) {
      const json::Value& item = affinity->items()[i];
      if (!item.is_string()) {
        throw InputError(source, item.line(), json::item_path(path, i),
                         fmt::format("expected a string, a CPU list such as \"0-1\"; got {} {}",
                                     json::Value::type_name(item.type()), item.describe()));
      }
      m.affinity.push_back(item.text());
    }
    if (m.affinity.size() != static_cast<std::size_t>(m.processes)) {
      throw InputError(source, affinity->line(), path,
                       fmt::format("{} entries for {} processes (machine.processes): expected one per process",
                                   m.affinity.size(), m.processes));
    }
  }
  if (const json::OptionalField link = machine.optional("emulated_link")) {
    if (!link->is_object())
      machine.at("emulated_link").fail("expected an object of the link's settings, " + json::got(*link));
    ObjectReader r(*link, source, machine.member_path("emulated_link"));
    std::vector<std::string> settings;
    std::string rate, links;
    for (const auto& member : link->members()) {
      const std::string value = r.required(member.first).string();
      settings.push_back(member.first + " " + value);
      if (member.first == "rate") rate = value;
      if (member.first == "links") links = value;
    }
    if (links == "per-port" && !rate.empty()) {
      m.link_Bps = tc_rate_Bps(rate);
      if (!(m.link_Bps > 0)) {
        r.at("rate").fail(fmt::format("expected a rate in tc's units (e.g. 1gbit, 125mbps), got \"{}\"", rate));
      }
    }
    r.finish();
    m.emulated_link = fmt::format("{}", fmt::join(settings, ", "));
  }
  machine.allow({"hosts", "mpi_library", "mpi_path", "transports", "environment", "ucx", "memory_source"});
  machine.finish();

  const json::Value& series = doc.required("series").array();
  const std::string series_path = doc.member_path("series");
  for (std::size_t i = 0; i < series.items().size(); ++i) {
    m.series.push_back(read_series(series.items()[i], source, json::item_path(series_path, i)));
    const SeriesPoint& s = m.series.back();
    if (s.group_size > m.processes) {
      SourceRef{source, s.line, s.field + ".group_size"}.fail(
          fmt::format("expected at most the {} processes of machine.processes, got \"{}\"", m.processes, s.group_size));
    }
  }
  if (const json::Value* p2p = doc.optional("p2p").array()) {
    const std::string p2p_path = doc.member_path("p2p");
    for (std::size_t i = 0; i < p2p->items().size(); ++i) {
      m.p2p.push_back(read_p2p(p2p->items()[i], source, json::item_path(p2p_path, i)));
    }
  }
  doc.allow({"command", "layout", "data", "groups", "failed_checks"});
  doc.finish();
  return m;
}

double core_sharing(const MeasurementFile& file) {
  if (file.cores_per_node <= 0 || file.processes <= 0) return 1;
  const int nodes = std::max(file.nodes, 1);
  const int per_node = (file.processes + nodes - 1) / nodes;
  return per_node > file.cores_per_node ? static_cast<double>(per_node) / file.cores_per_node : 1.0;
}

std::string affinity_summary(const MeasurementFile& file) {
  if (file.affinity.empty()) return "";
  const std::string& first = file.affinity.front();
  if (std::all_of(file.affinity.begin(), file.affinity.end(), [&](const std::string& a) { return a == first; })) {
    return fmt::format("every process on CPUs {}", first);
  }
  constexpr std::size_t kShown = 16;
  std::string out = "per process: ";
  for (std::size_t i = 0; i < std::min(kShown, file.affinity.size()); ++i)
    out += (i > 0 ? " | " : "") + file.affinity[i];
  if (file.affinity.size() > kShown) out += fmt::format(" | ... ({} processes)", file.affinity.size());
  return out;
}

MeasurementFile read_measurements(const std::string& path) { return parse_measurements(json::read_file(path), path); }

double tc_rate_Bps(const std::string& text) {
  static const std::regex kRate(R"(^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit|tbit|bps|kbps|mbps|gbps|tbps)$)");
  std::smatch m;
  if (!std::regex_match(text, m, kRate)) return 0;
  const double value = std::strtod(m[1].str().c_str(), nullptr);
  const std::string unit = m[3].str();
  const bool bytes = unit.size() >= 3 && unit.compare(unit.size() - 3, 3, "bps") == 0;
  double scale = 1;
  switch (unit[0]) {
    case 'k':
      scale = 1e3;
      break;
    case 'm':
      scale = 1e6;
      break;
    case 'g':
      scale = 1e9;
      break;
    case 't':
      scale = 1e12;
      break;
    default:
      break;
  }
  const double rate = value * scale / (bytes ? 1 : 8);
  return std::isfinite(rate) && rate > 0 ? rate : 0;
}

}  // namespace ccsim::calibrate
