#include "report/summary.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace ccsim::report {
namespace {

/// Send and receive wait for one peer; in the traces ccsim writes and imports they are the
/// pipeline's activations and gradients.
bool point_to_point(std::string_view kind) { return kind == "send" || kind == "recv"; }

std::string percent_or_na(const Figure& f) { return f.value ? fmt::format("{:.2f}", *f.value * 100) : "n/a"; }

}  // namespace

double TimeSplit::exposed_s() const {
  double sum = 0;
  for (const auto& [kind, s] : exposed_by_kind) sum += s;
  return sum;
}

std::vector<std::pair<std::string, double>> TimeSplit::parts() const {
  std::vector<std::pair<std::string, double>> out{{"compute", compute_s}};
  out.insert(out.end(), exposed_by_kind.begin(), exposed_by_kind.end());
  out.emplace_back("pipeline bubble", bubble_s);
  out.emplace_back("collective wait", collective_wait_s);
  out.emplace_back("idle", idle_s);
  return out;
}

TimeSplit split_time(const engine::Result& result, int rank) {
  TimeSplit split;
  split.rank = rank;
  split.end_s = result.rank_end_s(rank);
  // States by priority: 0 compute, 1..K the transfer kinds, K+1 bubble, K+2 collective wait.
  // Each operator opens and closes its states; between two event times the rank is in the
  // first state with an open operator.
  std::vector<std::uint32_t> kinds;  // the transfer kinds, by first appearance (name ids)
  struct Event {
    double t;
    int state;
    int delta;
  };
  std::vector<Event> events;
  const auto& ops = result.ops[static_cast<std::size_t>(rank)];
  events.reserve(4 * ops.size());
  struct Open {
    double t0, t1;
    int state;  // -1: bubble, -2: collective wait, >= 0: 0 compute or 1 + kind index
  };
  std::vector<Open> spans;
  spans.reserve(2 * ops.size());
  for (const engine::OpRecord& op : ops) {
    if (!(op.end_s > op.start_s)) continue;
    const std::string_view kind = result.name(op.kind);
    if (kind == "compute") {
      spans.push_back({op.start_s, op.end_s, 0});
      continue;
    }
    auto at = std::find(kinds.begin(), kinds.end(), op.kind);
    if (at == kinds.end()) at = kinds.insert(kinds.end(), op.kind);
    const double wait_end = std::min(op.end_s, op.start_s + std::max(0.0, op.wait_s));
    if (wait_end > op.start_s) spans.push_back({op.start_s, wait_end, point_to_point(kind) ? -1 : -2});
    if (op.end_s > wait_end) spans.push_back({wait_end, op.end_s, 1 + static_cast<int>(at - kinds.begin())});
  }
  const int kind_count = static_cast<int>(kinds.size());
  const int bubble = kind_count + 1, collective_wait = kind_count + 2, states = kind_count + 3;
  for (const Open& s : spans) {
    const int state = s.state == -1 ? bubble : s.state == -2 ? collective_wait : s.state;
    events.push_back({s.t0, state, +1});
    events.push_back({s.t1, state, -1});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.t < b.t; });
  std::vector<int> open(static_cast<std::size_t>(states), 0);
  std::vector<double> in_state(static_cast<std::size_t>(states), 0.0);
  int transfers_open = 0;
  double t = 0, busy = 0;
  for (std::size_t i = 0; i < events.size();) {
    const double next = std::min(events[i].t, split.end_s);
    if (next > t) {
      const auto first = std::find_if(open.begin(), open.end(), [](int n) { return n > 0; });
      if (first != open.end()) {
        in_state[static_cast<std::size_t>(first - open.begin())] += next - t;
        busy += next - t;
        if (open[0] > 0 && transfers_open > 0) split.overlapped_s += next - t;
      }
      t = next;
    }
    for (const double at_time = events[i].t; i < events.size() && events[i].t == at_time; ++i) {
      open[static_cast<std::size_t>(events[i].state)] += events[i].delta;
      if (events[i].state >= 1 && events[i].state <= kind_count) transfers_open += events[i].delta;
    }
  }
  split.compute_s = in_state[0];
  for (int k = 0; k < kind_count; ++k) {
    split.exposed_by_kind.emplace_back(std::string(result.name(kinds[static_cast<std::size_t>(k)])),
                                       in_state[static_cast<std::size_t>(1 + k)]);
  }
  split.bubble_s = in_state[static_cast<std::size_t>(bubble)];
  split.collective_wait_s = in_state[static_cast<std::size_t>(collective_wait)];
  split.idle_s = std::max(0.0, split.end_s - busy);
  return split;
}

Summary make_summary(const engine::Result& result, const JobFacts& facts) {
  Summary s;
  double latest = -1;
  const std::vector<std::size_t> first = result.ops.first_readers();
  for (int r = 0; r < result.world_size; ++r) {
    const auto reader = static_cast<int>(first[static_cast<std::size_t>(r)]);
    if (reader != r && result.streams_of(r) == result.streams_of(reader)) {
      continue;  // ranks that ran as one, or copies of one, end together (an earlier rank)
    }
    const double end = result.rank_end_s(r);
    if (end > latest) {
      latest = end;
      s.critical_rank = r;
    }
  }
  if (!result.stage.empty()) s.critical_stage = result.stage[static_cast<std::size_t>(s.critical_rank)];
  s.iterations = result.iterations;
  const double k = result.iterations > 0 ? result.iterations : 1;
  s.iteration_s = result.makespan_s / k;
  if (result.world_size > 0) {
    s.split = split_time(result, s.critical_rank);
    TimeSplit& p = s.split;
    for (double* v : {&p.end_s, &p.compute_s, &p.bubble_s, &p.collective_wait_s, &p.idle_s, &p.overlapped_s}) *v /= k;
    for (auto& [kind, v] : p.exposed_by_kind) v /= k;
  }

  const std::string no_iterations = "the trace does not say how many iterations it holds";
  if (result.iterations <= 0) {
    s.tokens_per_s.note = s.mfu.note = s.hfu.note = no_iterations;
    return s;
  }
  if (facts.tokens_per_iteration > 0 && s.iteration_s > 0) {
    s.tokens_per_s.value = facts.tokens_per_iteration / s.iteration_s;
    s.tokens_per_s.note =
        facts.global_batch > 0 && facts.sequence_length > 0
            ? fmt::format("global batch {} x sequence {} = {} tokens per iteration", facts.global_batch,
                          facts.sequence_length, format_thousands(facts.tokens_per_iteration, 0))
            : fmt::format("{} tokens per iteration", format_thousands(facts.tokens_per_iteration, 0));
  } else {
    s.tokens_per_s.note = "the trace does not give its global batch and sequence length (its \"workload\")";
  }
  const double peak_total = s.iteration_s * result.world_size * facts.peak_flops_per_rank;
  const std::string peak = fmt::format("peak {:.4g} TFLOP/s{} x {} ranks", facts.peak_flops_per_rank / 1e12,
                                       facts.accelerator.empty() ? "" : " of " + facts.accelerator, result.world_size);
  if (!(peak_total > 0)) {
    s.mfu.note = s.hfu.note = "the platform's accelerator has no peak FLOP rate";
    return s;
  }
  if (facts.model_flops_per_iteration > 0) {
    s.mfu.value = facts.model_flops_per_iteration / peak_total;
    s.mfu.note =
        fmt::format("{:.4g} model FLOPs per iteration ({}); {}", facts.model_flops_per_iteration,
                    facts.model_flops_source.empty() ? "as the trace gives them" : facts.model_flops_source, peak);
  } else {
    s.mfu.note =
        "the trace does not give its model FLOPs per iteration (its \"workload\": no model, e.g. an imported trace)";
  }
  if (facts.executed_flops_per_iteration > 0) {
    s.hfu.value = facts.executed_flops_per_iteration / peak_total;
    s.hfu.note = fmt::format(
        "{:.4g} FLOPs per iteration in the trace's compute operators; {}{}", facts.executed_flops_per_iteration, peak,
        facts.compute_ops_without_flops > 0 ? fmt::format("; a lower bound: {} of {} compute operators carry no FLOPs",
                                                          facts.compute_ops_without_flops, facts.compute_ops)
                                            : "");
  } else {
    s.hfu.note = "the trace's compute operators carry no FLOPs";
  }
  return s;
}

std::string format_thousands(double value, int decimals) {
  std::string digits = fmt::format("{:.{}f}", std::fabs(value), decimals);
  const std::size_t point = digits.find('.');
  std::string whole = digits.substr(0, point), out;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) out += ',';
    out += whole[i];
  }
  if (point != std::string::npos) out += digits.substr(point);
  // A negative value that rounds to zero prints without its sign.
  return (value < 0 && digits.find_first_not_of("0.") != std::string::npos ? "-" : "") + out;
}

void write_summary_text(const std::vector<std::pair<std::string, const Summary*>>& runs, std::ostream& out) {
  const Summary& first = *runs.front().second;
  std::vector<std::string> critical;
  for (const auto& [name, s] : runs) critical.push_back(fmt::format("{}", s->critical_rank));
  if (std::all_of(critical.begin(), critical.end(), [&](const std::string& c) { return c == critical.front(); })) {
    critical.resize(1);  // one rank for all runs
  }
  const std::string what = first.iterations == 1 ? std::string("the iteration")
                           : first.iterations > 1
                               ? fmt::format("one iteration (the trace total / its {} iterations)", first.iterations)
                               : std::string("the whole trace (it does not say how many iterations it holds)");
  fmt::print(out, "Summary of {}; critical rank {} (pipeline stage {}): the rank that finishes last\n", what,
             fmt::join(critical, " / "), first.critical_stage);
  const int width = 30;
  if (runs.size() > 1) {
    std::string head = fmt::format("  {:<{}}", "", width);
    for (const auto& [name, s] : runs) head += fmt::format("  {:>14}", name);
    fmt::print(out, "{}\n", head);
  }
  auto line = [&](const std::string& label, auto value) {
    std::string text = fmt::format("  {:<{}}", label, width);
    for (const auto& [name, s] : runs) text += fmt::format("  {:>14}", value(*s));
    fmt::print(out, "{}\n", text);
  };
  auto ms = [](double s) { return fmt::format("{:.3f}", s * 1e3); };
  auto pct = [](double part, double whole) { return whole > 0 ? fmt::format("{:.2f}", part / whole * 100) : "0.00"; };
  line(first.iterations == 1 || first.iterations > 1 ? "iteration ms" : "trace total ms",
       [&](const Summary& s) { return ms(s.iteration_s); });
  line("tokens/s",
       [](const Summary& s) { return s.tokens_per_s.value ? format_thousands(*s.tokens_per_s.value, 0) : "n/a"; });
  line("MFU %", [](const Summary& s) { return percent_or_na(s.mfu); });
  line("HFU %", [](const Summary& s) { return percent_or_na(s.hfu); });
  line("communication exposed ms", [&](const Summary& s) { return ms(s.split.exposed_s()); });
  line("  share of the iteration %", [&](const Summary& s) { return pct(s.split.exposed_s(), s.split.end_s); });
  line("communication overlapped ms", [&](const Summary& s) { return ms(s.split.overlapped_s); });
  line("pipeline bubble ms", [&](const Summary& s) { return ms(s.split.bubble_s); });
  line("  share of the iteration %", [&](const Summary& s) { return pct(s.split.bubble_s, s.split.end_s); });
  fmt::print(out, "  time by kind on the critical rank, ms (exposed communication; adds up to the iteration):\n");
  std::vector<std::string> names;  // the parts of every run, in the first run's order
  for (const auto& [name, s] : runs) {
    for (const auto& [part, v] : s->split.parts()) {
      if (std::find(names.begin(), names.end(), part) == names.end()) names.push_back(part);
    }
  }
  for (const std::string& part : names) {
    line("  " + part, [&](const Summary& s) {
      for (const auto& [p, v] : s.split.parts()) {
        if (p == part) return ms(v);
      }
      return ms(0);
    });
  }
  line("  total", [&](const Summary& s) { return ms(s.split.end_s); });
  auto notes = [&](const std::string& label, const Figure Summary::*figure) {
    std::vector<std::string> seen;
    for (const auto& [name, s] : runs) {
      const Figure& f = s->*figure;
      if (std::find(seen.begin(), seen.end(), f.note) != seen.end()) continue;
      seen.push_back(f.note);
      fmt::print(out, "  {}: {}{}\n", label, f.value ? "" : "n/a: ", f.note);
    }
  };
  notes("tokens/s", &Summary::tokens_per_s);
  notes("MFU", &Summary::mfu);
  notes("HFU", &Summary::hfu);
  fmt::print(out, "\n");
}

nlohmann::ordered_json summary_json(const Summary& s) {
  nlohmann::ordered_json j;
  auto figure = [](const Figure& f, double scale) {
    nlohmann::ordered_json v;
    v["value"] = f.value ? nlohmann::ordered_json(*f.value * scale) : nlohmann::ordered_json();
    v[f.value ? "basis" : "unknown_because"] = f.note;
    return v;
  };
  j["critical_rank"] = s.critical_rank;
  j["critical_stage"] = s.critical_stage;
  j["per"] = s.iterations > 0 ? "iteration" : "trace";
  j["iteration_ms"] = s.iteration_s * 1e3;
  j["tokens_per_s"] = figure(s.tokens_per_s, 1);
  j["mfu_pct"] = figure(s.mfu, 100);
  j["hfu_pct"] = figure(s.hfu, 100);
  j["communication_exposed_ms"] = s.split.exposed_s() * 1e3;
  j["communication_overlapped_ms"] = s.split.overlapped_s * 1e3;
  j["pipeline_bubble_ms"] = s.split.bubble_s * 1e3;
  nlohmann::ordered_json kinds = nlohmann::ordered_json::array();
  for (const auto& [part, v] : s.split.parts()) {
    nlohmann::ordered_json k;
    k["kind"] = part;
    k["time_ms"] = v * 1e3;
    k["share_pct"] = s.split.end_s > 0 ? v / s.split.end_s * 100 : 0.0;
    kinds.push_back(std::move(k));
  }
  j["time_by_kind"] = std::move(kinds);
  return j;
}

std::vector<SummaryCsvRow> summary_csv_rows(const std::vector<const Summary*>& runs) {
  std::vector<SummaryCsvRow> rows;
  auto time = [&](const std::string& figure, auto seconds) {
    SummaryCsvRow row;
    row.figure = figure;
    row.is_time = true;
    for (const Summary* s : runs) {
      const double v = seconds(*s);
      row.values.emplace_back(v * 1e3);
      row.shares_pct.push_back(s->split.end_s > 0 ? v / s->split.end_s * 100 : 0.0);
    }
    rows.push_back(std::move(row));
  };
  auto figure = [&](const std::string& name, const Figure Summary::*member, double scale) {
    SummaryCsvRow row;
    row.figure = name;
    for (const Summary* s : runs) {
      const Figure& f = s->*member;
      row.values.push_back(f.value ? std::optional<double>(*f.value * scale) : std::nullopt);
      if (row.note.empty()) row.note = f.value ? f.note : "n/a: " + f.note;
    }
    rows.push_back(std::move(row));
  };
  time(runs.front()->iterations > 0 ? "iteration_ms" : "trace_total_ms",
       [](const Summary& s) { return s.iteration_s; });
  figure("tokens_per_s", &Summary::tokens_per_s, 1);
  figure("mfu_pct", &Summary::mfu, 100);
  figure("hfu_pct", &Summary::hfu, 100);
  time("communication_exposed_ms", [](const Summary& s) { return s.split.exposed_s(); });
  time("communication_overlapped_ms", [](const Summary& s) { return s.split.overlapped_s; });
  time("pipeline_bubble_ms", [](const Summary& s) { return s.split.bubble_s; });
  std::vector<std::string> names;
  for (const Summary* s : runs) {
    for (const auto& [part, v] : s->split.parts()) {
      if (std::find(names.begin(), names.end(), part) == names.end()) names.push_back(part);
    }
  }
  for (const std::string& part : names) {
    time("kind:" + part, [&](const Summary& s) {
      for (const auto& [p, v] : s.split.parts()) {
        if (p == part) return v;
      }
      return 0.0;
    });
  }
  return rows;
}

}  // namespace ccsim::report
