#include "report/breakdown.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "report/json_tables.hpp"

namespace ccsim::report {
namespace {

double rank_total(const engine::Result& result, int rank) { return result.rank_end_s(rank); }

bool is_communication(const engine::Result& result, const engine::OpRecord& op) {
  return result.name(op.kind) != "compute";
}

/// True when all ranks run the same sequence of operator names and labels.
bool same_sequence(const engine::Result& result, const std::vector<int>& ranks) {
  const auto& first = result.ops[static_cast<std::size_t>(ranks.front())];
  for (int r : ranks) {
    const auto& ops = result.ops[static_cast<std::size_t>(r)];
    if (ops.data() == first.data()) continue;  // one list (ranks --fast ran as one)
    if (ops.size() != first.size()) return false;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].name != first[i].name || ops[i].label != first[i].label) return false;
    }
  }
  return true;
}

/// Per operator of `rank`: the part of its time during which an operator of another of the
/// rank's streams ran (all 0 for a rank without streams).
/// overlaps() of the ranks of one table in turn: the members of a group that ran as one share
/// their records (and their program's streams), so each group's is computed once.
class Overlaps {
 public:
  explicit Overlaps(const engine::Result& result) : result_(result) {}
  const std::vector<double>& of(int rank) {
    const auto& ops = result_.ops[static_cast<std::size_t>(rank)];
    const std::vector<std::uint8_t>* streams = result_.streams_of(rank);
    if (ops.data() != records_ || streams != streams_ || ops.size() != last_.size()) {
      last_ = overlaps(result_, rank);
      records_ = ops.data();
      streams_ = streams;
    }
    return last_;
  }

 private:
  static std::vector<double> overlaps(const engine::Result& result, int rank);
  const engine::Result& result_;
  const engine::OpRecord* records_ = nullptr;
  const std::vector<std::uint8_t>* streams_ = nullptr;
  std::vector<double> last_;
};

std::vector<double> Overlaps::overlaps(const engine::Result& result, int rank) {
  const auto& ops = result.ops[static_cast<std::size_t>(rank)];
  std::vector<double> out(ops.size(), 0.0);
  const std::vector<std::uint8_t>* streams = result.streams_of(rank);
  if (streams == nullptr) return out;
  const int count = 1 + *std::max_element(streams->begin(), streams->end());
  // Each stream's busy spans in time order (a stream runs its operators one after another):
  // the other streams' spans of a stream are their merge, not a sort of them all.
  using Spans = std::vector<std::pair<double, double>>;
  std::vector<Spans> spans(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].end_s > ops[i].start_s) spans[(*streams)[i]].emplace_back(ops[i].start_s, ops[i].end_s);
  }
  for (Spans& list : spans) {
    if (!std::is_sorted(list.begin(), list.end())) std::sort(list.begin(), list.end());
  }
  Spans others, merging;
  for (int s = 0; s < count; ++s) {
    if (spans[static_cast<std::size_t>(s)].empty()) continue;  // no operator of s takes time: nothing to add
    others.clear();                                            // the other streams' busy time, merged
    for (int t = 0; t < count; ++t) {
      if (t == s) continue;
      const Spans& list = spans[static_cast<std::size_t>(t)];
      merging.resize(others.size() + list.size());
      std::merge(others.begin(), others.end(), list.begin(), list.end(), merging.begin());
      others.swap(merging);
    }
    std::vector<std::pair<double, double>> merged;
    for (const auto& span : others) {
      if (!merged.empty() && span.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, span.second);
      else
        merged.push_back(span);
    }
    std::size_t k = 0;  // a stream's operators run one after another: in time order
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if ((*streams)[i] != s) continue;
      while (k < merged.size() && merged[k].second <= ops[i].start_s) ++k;
      for (std::size_t j = k; j < merged.size() && merged[j].first < ops[i].end_s; ++j) {
        out[i] += std::min(ops[i].end_s, merged[j].second) - std::max(ops[i].start_s, merged[j].first);
      }
    }
  }
  return out;
}

/// Long: rows, weights and totals of one table computed in one pass over the ranks' records.
Table make_table(const engine::Result& result, std::string scope, int id, std::vector<int> ranks, RowKey key) {
  Table table;
  table.scope = std::move(scope);
  table.id = id;
  table.ranks = std::move(ranks);
  if (key == RowKey::kAuto) {
    const std::size_t ops = result.ops[static_cast<std::size_t>(table.ranks.front())].size();
    key = RowKey::kOperator;
    if (ops > kAutoOperatorRows) {
      key = RowKey::kName;
      table.by_name_because = fmt::format("{} operators per rank; --rows operator lists each",
                                          format_thousands(static_cast<double>(ops), 0));
    }
  }
  if (key == RowKey::kOperator && !same_sequence(result, table.ranks)) {
    key = RowKey::kName;
    table.by_name_because = "its ranks run different operators";
  }
  table.key = key;
  const double n = static_cast<double>(table.ranks.size());
  // Consecutive ranks that read one list of records (and streams), as --fast leaves ranks it
  // ran as one, count once with their number as weight: a stage of 10,240 accelerators is
  // 640 ranks of 9,500 records each, mostly one list.
  std::vector<std::pair<int, double>> weighted;  // (rank, ranks it stands for)
  for (int r : table.ranks) {
    if (!weighted.empty() &&
        result.ops.shared(static_cast<std::size_t>(r), static_cast<std::size_t>(weighted.back().first)) &&
        result.streams_of(r) == result.streams_of(weighted.back().first)) {
      weighted.back().second += 1;
    } else {
      weighted.emplace_back(r, 1.0);
    }
  }
  for (const auto& [r, w] : weighted) table.total_s += w * rank_total(result, r) / n;

  if (key == RowKey::kKind) {
    std::map<std::string, std::size_t> index;
    for (const auto& [r, w] : weighted) {
      for (const auto& [part, seconds] : split_time(result, r).parts()) {
        auto [it, added] = index.emplace(part, table.rows.size());
        if (added) {
          Row fresh;  // calls 0: a part of the ranks' time, not operators
          fresh.name = part;
          table.rows.push_back(std::move(fresh));
        }
        table.rows[it->second].time_s += w * seconds / n;
      }
    }
    // The fixed parts last, in TimeSplit::parts' order, whatever kinds the ranks had.
    std::stable_partition(table.rows.begin(), table.rows.end(), [](const Row& row) {
      return row.name != "pipeline bubble" && row.name != "collective wait" && row.name != "idle";
    });
  } else if (key == RowKey::kOperator) {
    const auto& first = result.ops[static_cast<std::size_t>(table.ranks.front())];
    table.rows.resize(first.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
      table.rows[i].name = result.name(first[i].name);
      table.rows[i].label = result.name(first[i].label);
      table.rows[i].calls = 1;
      table.rows[i].algorithm = result.name(first[i].algorithm);
      table.rows[i].error_worst_eb = first[i].error_worst_eb;
      table.rows[i].error_expected_eb = first[i].error_expected_eb;
      table.rows[i].communication = is_communication(result, first[i]);
    }
    Overlaps overlaps(result);
    for (const auto& [r, w] : weighted) {
      const auto& ops = result.ops[static_cast<std::size_t>(r)];
      const std::vector<double>& overlap = overlaps.of(r);
      for (std::size_t i = 0; i < ops.size(); ++i) {
        table.rows[i].time_s += w * (ops[i].end_s - ops[i].start_s) / n;
        table.rows[i].wait_s += w * ops[i].wait_s / n;
        table.rows[i].overlap_s += w * overlap[i] / n;
      }
    }
  } else {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> index;  // (name, label) -> row
    Overlaps overlaps(result);
    std::vector<std::uint64_t> calls;  // of the rank at hand, by row
    for (const auto& [r, w] : weighted) {
      const std::vector<double>& overlap = overlaps.of(r);
      std::size_t i = 0;
      calls.assign(table.rows.size(), 0);
      for (const engine::OpRecord& op : result.ops[static_cast<std::size_t>(r)]) {
        auto [it, added] = index.emplace(std::make_pair(op.name, op.label), table.rows.size());
        if (added) {
          Row fresh;
          fresh.name = result.name(op.name);
          fresh.label = result.name(op.label);
          fresh.algorithm = result.name(op.algorithm);
          fresh.communication = is_communication(result, op);
          table.rows.push_back(std::move(fresh));
        }
        Row& row = table.rows[it->second];
        row.error_worst_eb = std::max(row.error_worst_eb, static_cast<double>(op.error_worst_eb));
        row.error_expected_eb = std::max(row.error_expected_eb, static_cast<double>(op.error_expected_eb));
        row.time_s += w * (op.end_s - op.start_s) / n;
        row.wait_s += w * op.wait_s / n;
        row.overlap_s += w * overlap[i++] / n;
        if (calls.size() < table.rows.size()) calls.resize(table.rows.size(), 0);
        row.calls = std::max(row.calls, ++calls[it->second]);
      }
    }
  }
  for (Row& row : table.rows) {
    row.share = table.total_s > 0 ? row.time_s / table.total_s : 0.0;
    table.wait_s += row.wait_s;
  }
  return table;
}

/// The wait column of a row: blank for compute, which waits for no one.
std::string format_wait(const Row& row) { return row.communication ? fmt::format("{:.3f}", row.wait_s * 1e3) : ""; }

bool has_labels(const Table& table) {
  for (const Row& row : table.rows) {
    if (!row.label.empty()) return true;
  }
  return false;
}

}  // namespace

std::string format_error(double worst_eb, double expected_eb, double eb) {
  if (worst_eb <= 0) return "";
  // Quantizers and sparsifiers have no a-priori bound: say how many lossy steps an element took.
  if (std::isinf(eb)) return fmt::format("no bound ({:g} lossy compression{})", worst_eb, worst_eb == 1 ? "" : "s");
  if (std::isnan(eb)) return fmt::format("{:.3g} eb / {:.3g} eb", worst_eb, expected_eb);
  return fmt::format("{:.3g} / {:.3g}", worst_eb * eb, expected_eb * eb);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string format_span(double total_s, int iterations) {
  if (iterations == 1) return fmt::format("iteration {:.3f} ms", total_s * 1e3);
  if (iterations > 1) {
    return fmt::format("trace total {:.3f} ms, {} iterations, {:.3f} ms per iteration", total_s * 1e3, iterations,
                       total_s * 1e3 / iterations);
  }
  return fmt::format("trace total {:.3f} ms (the trace does not say how many iterations it holds)", total_s * 1e3);
}

std::string on_nodes(int nodes) {
  return nodes > 0 ? fmt::format(" on {} node{}", nodes, nodes == 1 ? "" : "s") : std::string();
}

RowKey row_key_of(const std::string& text) {
  if (text == "auto") return RowKey::kAuto;
  return text == "name" ? RowKey::kName : text == "kind" ? RowKey::kKind : RowKey::kOperator;
}

std::string format_ranks(const std::vector<int>& ranks) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    parts.push_back(j == i ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]));
    i = j + 1;
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

Breakdown make_breakdown(const engine::Result& result, const BreakdownOptions& options) {
  Breakdown out;
  out.trace_name = result.trace_name;
  out.platform_name = result.platform_name;
  out.network_model = result.network_model;
  out.algorithm = result.algorithm;
  out.placement = result.placement;
  out.compression = result.compression;
  out.compute = result.compute;
  out.notes = result.notes;
  out.error_bound_abs = result.error_bound_abs;
  out.world_size = result.world_size;
  out.nodes_used = result.nodes_used;
  out.stage_count = result.stage_count;
  out.iterations = result.iterations;
  out.makespan_s = result.makespan_s;
  out.has_waits = result.has_waits;
  out.has_streams =
      std::any_of(result.streams.begin(), result.streams.end(), [](const auto& s) { return s != nullptr; });
  if (out.has_streams) {
    out.notes.push_back(
        "operators ran on several streams of a rank: their times overlap, so shares add up to more "
        "than 100 %; overlap ms is the part of an operator's time during which another stream of its "
        "rank ran an operator");
  }
  if (options.per_stage) {
    std::vector<std::vector<int>> members(static_cast<std::size_t>(result.stage_count));
    for (int r = 0; r < result.world_size; ++r)
      members[static_cast<std::size_t>(result.stage[static_cast<std::size_t>(r)])].push_back(r);
    for (int s = 0; s < result.stage_count; ++s) {
      if (!members[static_cast<std::size_t>(s)].empty()) {
        out.tables.push_back(make_table(result, "stage", s, members[static_cast<std::size_t>(s)], options.key));
      }
    }
  }
  if (options.per_rank && options.ranks_on_demand) {
    out.later_count = static_cast<std::size_t>(std::max(0, result.world_size));
    out.later_table = [&result, key = options.key](std::size_t r) {
      return make_table(result, "rank", static_cast<int>(r), {static_cast<int>(r)}, key);
    };
  } else if (options.per_rank) {
    for (int r = 0; r < result.world_size; ++r) out.tables.push_back(make_table(result, "rank", r, {r}, options.key));
  }
  return out;
}

void for_each_table(const Breakdown& b, const std::function<void(const Table&)>& visit) {
  for (const Table& t : b.tables) visit(t);
  for (std::size_t i = 0; i < b.later_count; ++i) visit(b.later_table(i));
}

void write_text(const Breakdown& b, std::ostream& out) {
  if (b.summary) write_summary_text({{"", &*b.summary}}, out);
  fmt::print(out, "{} on {}: {} ranks{}, {} pipeline stage{}, {}\n", b.trace_name, b.platform_name, b.world_size,
             on_nodes(b.nodes_used), b.stage_count, b.stage_count == 1 ? "" : "s",
             format_span(b.makespan_s, b.iterations));
  fmt::print(out, "network: {}\n", b.network_model);
  if (!b.compute.empty()) fmt::print(out, "compute: {}\n", b.compute);
  fmt::print(out, "collectives: {}\n", b.algorithm);
  if (!b.placement.empty()) fmt::print(out, "placement: {}\n", b.placement);
  if (!b.compression.empty() && b.compression != "none") fmt::print(out, "compression: {}\n", b.compression);
  for (const std::string& note : b.notes) fmt::print(out, "note: {}\n", note);
  for_each_table(b, [&](const Table& t) {
    if (t.scope == "stage") {
      fmt::print(out, "\nPipeline stage {} (rank{} {}{}{})\n", t.id, t.ranks.size() == 1 ? "" : "s",
                 format_ranks(t.ranks), t.ranks.size() == 1 ? "" : fmt::format(", mean over {} ranks", t.ranks.size()),
                 t.by_name_because.empty() ? "" : "; rows by name: " + t.by_name_because);
    } else {
      fmt::print(out, "\nRank {}\n", t.id);
    }
    const bool labels = has_labels(t);
    const bool errors =
        std::any_of(t.rows.begin(), t.rows.end(), [](const Row& row) { return row.error_worst_eb > 0; });
    std::size_t width = 8;
    for (const Row& row : t.rows) width = std::max(width, row.name.size());
    std::size_t label_width = 5;
    for (const Row& row : t.rows) label_width = std::max(label_width, row.label.size());
    const bool by_op = t.key == RowKey::kOperator;
    // Rows by kind are parts of the ranks' time: no calls, and no wait or overlap (their own rows).
    const bool kinds = t.key == RowKey::kKind;
    const bool waits = b.has_waits && !kinds, overlaps = b.has_streams && !kinds;
    std::string head = by_op   ? fmt::format("{:>5}  {:<{}}", "#", "operator", width)
                       : kinds ? fmt::format("{:<{}}", "part", width)
                               : fmt::format("{:<{}}  {:>6}", "operator", width, "calls");
    if (labels) head += fmt::format("  {:<{}}", "label", label_width);
    fmt::print(out, "{}  {:>11}  {:>8}{}{}{}\n", head, "time ms", "share %",
               waits ? fmt::format("  {:>10}", "wait ms") : "", overlaps ? fmt::format("  {:>10}", "overlap ms") : "",
               errors ? "  error (worst / expected)" : "");
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const Row& row = t.rows[i];
      std::string left = by_op   ? fmt::format("{:>5}  {:<{}}", i + 1, row.name, width)
                         : kinds ? fmt::format("{:<{}}", row.name, width)
                                 : fmt::format("{:<{}}  {:>6}", row.name, width, row.calls);
      if (labels) left += fmt::format("  {:<{}}", row.label, label_width);
      std::string error = format_error(row.error_worst_eb, row.error_expected_eb, b.error_bound_abs);
      std::string line = fmt::format("{}  {:>11.3f}  {:>8.2f}{}{}{}", left, row.time_s * 1e3, row.share * 100,
                                     waits ? fmt::format("  {:>10}", format_wait(row)) : "",
                                     overlaps ? fmt::format("  {:>10.3f}", row.overlap_s * 1e3) : "",
                                     error.empty() ? "" : "  " + error);
      while (!line.empty() && line.back() == ' ') line.pop_back();
      fmt::print(out, "{}\n", line);
    }
    std::string total = by_op   ? fmt::format("{:>5}  {:<{}}", "", "total", width)
                        : kinds ? fmt::format("{:<{}}", "total", width)
                                : fmt::format("{:<{}}  {:>6}", "total", width, "");
    if (labels) total += fmt::format("  {:<{}}", "", label_width);
    fmt::print(out, "{}  {:>11.3f}  {:>8.2f}{}\n", total, t.total_s * 1e3, 100.0,
               waits ? fmt::format("  {:>10.3f}", t.wait_s * 1e3) : "");
  });
}

void write_csv(const Breakdown& b, std::ostream& out) {
  out << "scope,id,row,operator,label,calls,time_ms,share_pct" << (b.has_waits ? ",wait_ms" : "")
      << (b.has_streams ? ",overlap_ms" : "") << (b.summary ? ",value" : "") << "\n";
  // The summary first: its figure in `operator`, what it rests on (or why it is unknown) in
  // `label`, times in time_ms and share_pct, every figure in `value` (in the unit its name says).
  const std::string blank = std::string(b.has_waits ? "," : "") + (b.has_streams ? "," : "");
  if (b.summary) {
    int i = 0;
    for (const SummaryCsvRow& row : summary_csv_rows({&*b.summary})) {
      const std::optional<double>& v = row.values.front();
      fmt::print(out, "summary,{},{},{},{},,{},{}{},{}\n", b.summary->critical_rank, ++i, row.figure,
                 csv_field(row.note), row.is_time ? fmt::format("{:.6f}", *v) : "",
                 row.is_time ? fmt::format("{:.4f}", row.shares_pct.front()) : "", blank,
                 v ? fmt::format("{:.6f}", *v) : "");
    }
  }
  const std::string value = b.summary ? "," : "";
  for_each_table(b, [&](const Table& t) {
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const Row& row = t.rows[i];
      fmt::print(out, "{},{},{},{},{},{},{:.6f},{:.4f}{}{}{}\n", t.scope, t.id, i + 1, csv_field(row.name),
                 csv_field(row.label), row.calls, row.time_s * 1e3, row.share * 100,
                 !b.has_waits        ? ""
                 : row.communication ? fmt::format(",{:.6f}", row.wait_s * 1e3)
                                     : ",",
                 b.has_streams ? fmt::format(",{:.6f}", row.overlap_s * 1e3) : "", value);
    }
    fmt::print(out, "{},{},total,total,,,{:.6f},100.0000{}{}{}\n", t.scope, t.id, t.total_s * 1e3,
               b.has_waits ? fmt::format(",{:.6f}", t.wait_s * 1e3) : "", b.has_streams ? "," : "", value);
  });
}

void write_json(const Breakdown& b, std::ostream& out) {
  nlohmann::ordered_json doc;
  if (b.summary) doc["summary"] = summary_json(*b.summary);
  doc["trace"] = b.trace_name;
  doc["platform"] = b.platform_name;
  doc["network_model"] = b.network_model;
  doc["collectives"] = b.algorithm;
  doc["placement"] = b.placement;
  doc["compression"] = b.compression;
  doc["compute"] = b.compute;
  doc["notes"] = b.notes;
  doc["error_bound_abs"] =
      std::isfinite(b.error_bound_abs) ? nlohmann::ordered_json(b.error_bound_abs) : nlohmann::ordered_json();
  doc["world_size"] = b.world_size;
  doc["nodes"] = b.nodes_used > 0 ? nlohmann::ordered_json(b.nodes_used) : nlohmann::ordered_json();
  doc["pipeline_stages"] = b.stage_count;
  doc["iterations"] = b.iterations > 0 ? nlohmann::ordered_json(b.iterations) : nlohmann::ordered_json();
  doc["trace_total_ms"] = b.makespan_s * 1e3;
  doc["iteration_ms"] =
      b.iterations > 0 ? nlohmann::ordered_json(b.makespan_s * 1e3 / b.iterations) : nlohmann::ordered_json();
  write_json_with_tables(out, doc, [&](const auto& emit) {
    for_each_table(b, [&](const Table& t) {
      nlohmann::ordered_json table;
      table["scope"] = t.scope;
      table["id"] = t.id;
      table["ranks"] = t.ranks;
      table["rows_by"] = t.key == RowKey::kOperator ? "operator" : t.key == RowKey::kKind ? "kind" : "name";
      table["total_ms"] = t.total_s * 1e3;
      if (b.has_waits) table["wait_ms"] = t.wait_s * 1e3;
      table["rows"] = nlohmann::ordered_json::array();
      for (const Row& row : t.rows) {
        nlohmann::ordered_json r;
        r["operator"] = row.name;
        if (!row.label.empty()) r["label"] = row.label;
        r["calls"] = row.calls;
        r["time_ms"] = row.time_s * 1e3;
        r["share_pct"] = row.share * 100;
        if (b.has_waits && row.communication) r["wait_ms"] = row.wait_s * 1e3;
        if (b.has_streams) r["overlap_ms"] = row.overlap_s * 1e3;
        if (!row.algorithm.empty()) r["algorithm"] = row.algorithm;
        if (row.error_worst_eb > 0) {
          r["error_worst_eb"] = row.error_worst_eb;
          r["error_expected_eb"] = row.error_expected_eb;
        }
        table["rows"].push_back(std::move(r));
      }
      emit(table);
    });
  });
}

}  // namespace ccsim::report
