#include "report/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "report/json_tables.hpp"

namespace ccsim::report {
namespace {

double speedup(double plain, double compressed) { return compressed > 0 ? plain / compressed : 1.0; }

/// The rows of two runs' tables of one scope, paired by position.
ComparedTable pair_tables(const Table& ta, const Table& tb) {
  if (ta.rows.size() != tb.rows.size()) throw std::logic_error("compare: the runs are not of the same trace");
  ComparedTable table;
  table.scope = ta.scope;
  table.id = ta.id;
  table.ranks = ta.ranks;
  table.key = ta.key;
  table.by_name_because = ta.by_name_because;
  table.plain_total_s = ta.total_s;
  table.compressed_total_s = tb.total_s;
  table.plain_wait_s = ta.wait_s;
  table.compressed_wait_s = tb.wait_s;
  for (std::size_t i = 0; i < ta.rows.size(); ++i) {
    ComparedRow row;
    row.name = ta.rows[i].name;
    row.label = ta.rows[i].label;
    row.plain_algorithm = ta.rows[i].algorithm;
    row.compressed_algorithm = tb.rows[i].algorithm;
    row.plain_s = ta.rows[i].time_s;
    row.compressed_s = tb.rows[i].time_s;
    row.plain_wait_s = ta.rows[i].wait_s;
    row.compressed_wait_s = tb.rows[i].wait_s;
    row.communication = ta.rows[i].communication;
    row.error_worst_eb = tb.rows[i].error_worst_eb;
    row.error_expected_eb = tb.rows[i].error_expected_eb;
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace

Comparison compare(const engine::Result& plain, const engine::Result& compressed, const BreakdownOptions& options) {
  auto a = std::make_shared<const Breakdown>(make_breakdown(plain, options));
  auto b = std::make_shared<const Breakdown>(make_breakdown(compressed, options));
  if (a->tables.size() != b->tables.size() || a->later_count != b->later_count) {
    throw std::logic_error("compare: the runs are not of the same trace");
  }
  Comparison c;
  c.trace_name = a->trace_name;
  c.platform_name = a->platform_name;
  c.network_model = a->network_model;
  c.placement = a->placement;
  c.plain_algorithms = a->algorithm;
  c.compressed_algorithms = b->algorithm;
  c.compression = b->compression;
  c.compute = a->compute;
  c.b_compute = b->compute;
  c.a_compression = a->compression;
  c.notes = b->notes;
  c.error_bound_abs = compressed.error_bound_abs;
  c.world_size = a->world_size;
  c.a_nodes_used = a->nodes_used;
  c.b_nodes_used = b->nodes_used;
  c.stage_count = a->stage_count;
  c.iterations = a->iterations;
  c.plain_makespan_s = a->makespan_s;
  c.compressed_makespan_s = b->makespan_s;
  c.has_waits = a->has_waits && b->has_waits;
  for (std::size_t t = 0; t < a->tables.size(); ++t) c.tables.push_back(pair_tables(a->tables[t], b->tables[t]));
  if (a->later_count > 0) {
    c.later_count = a->later_count;
    c.later_table = [a, b](std::size_t i) { return pair_tables(a->later_table(i), b->later_table(i)); };
  }
  return c;
}

void for_each_table(const Comparison& c, const std::function<void(const ComparedTable&)>& visit) {
  for (const ComparedTable& t : c.tables) visit(t);
  for (std::size_t i = 0; i < c.later_count; ++i) visit(c.later_table(i));
}

namespace {

/// The header of a what-if comparison: both runs, the assumptions, the change of the iteration.
void write_what_if_header(const Comparison& c, std::ostream& out) {
  fmt::print(out, "{:<10}{}; compression: {}\n", c.a_label + ":", c.plain_algorithms, c.a_compression);
  fmt::print(out, "{:<10}{}; compression: {}\n", c.b_label + ":", c.compressed_algorithms, c.compression);
  for (const std::string& setting : c.assumptions) fmt::print(out, "assumption: {}\n", setting);
  for (const std::string& note : c.notes) fmt::print(out, "note: {}\n", note);
  const std::string span = c.iterations == 1  ? std::string("iteration")
                           : c.iterations > 1 ? fmt::format("trace total ({} iterations)", c.iterations)
                                              : std::string("trace total (iterations not given by the trace)");
  const double change = c.plain_makespan_s > 0 ? (c.compressed_makespan_s / c.plain_makespan_s - 1) * 100 : 0.0;
  fmt::print(out, "{}: {:.3f} ms {}, {:.3f} ms {}, change {:+.2f} % (speedup {:.3f}x)\n", span,
             c.plain_makespan_s * 1e3, c.a_label, c.compressed_makespan_s * 1e3, c.b_label, change,
             speedup(c.plain_makespan_s, c.compressed_makespan_s));
}

}  // namespace

/// Long: the text report's sections in output order.
void write_text(const Comparison& c, std::ostream& out) {
  if (c.a_summary && c.b_summary) write_summary_text({{c.a_label, &*c.a_summary}, {c.b_label, &*c.b_summary}}, out);
  // " on 1 node", or " on 1 node (baseline), on 4 nodes (what_if)" when the runs differ.
  const std::string nodes =
      c.a_nodes_used == c.b_nodes_used
          ? on_nodes(c.a_nodes_used)
          : fmt::format("{} ({}),{} ({})", on_nodes(c.a_nodes_used), c.a_label, on_nodes(c.b_nodes_used), c.b_label);
  fmt::print(out, "{} on {}: {} ranks{}, {} pipeline stage{}\n", c.trace_name, c.platform_name, c.world_size, nodes,
             c.stage_count, c.stage_count == 1 ? "" : "s");
  fmt::print(out, "network: {}\n", c.network_model);
  if (c.b_compute != c.compute) {
    if (!c.compute.empty()) fmt::print(out, "compute ({}): {}\n", c.a_label, c.compute);
    if (!c.b_compute.empty()) fmt::print(out, "compute ({}): {}\n", c.b_label, c.b_compute);
  } else if (!c.compute.empty()) {
    fmt::print(out, "compute: {}\n", c.compute);
  }
  if (!c.placement.empty()) fmt::print(out, "placement: {}\n", c.placement);
  if (!c.assumptions.empty()) write_what_if_header(c, out);
  // The tables below are the same for both kinds of comparison.
  if (c.assumptions.empty()) {
    fmt::print(out, "plain:      {}\n", c.plain_algorithms);
    fmt::print(out, "compressed: {}; compression: {}\n", c.compressed_algorithms, c.compression);
    for (const std::string& note : c.notes) fmt::print(out, "note: {}\n", note);
    if (std::isfinite(c.error_bound_abs)) {
      fmt::print(out, "error of compressed results: worst / expected absolute error (eb = {:.3g})\n",
                 c.error_bound_abs);
    } else if (std::isnan(c.error_bound_abs)) {
      fmt::print(out,
                 "error of compressed results: worst / expected in units of eb, the error bound of one compression\n");
    } else {
      fmt::print(out, "error of compressed results: the compressor has no error bound\n");
    }
    // A trace that does not say it holds one iteration is reported as a trace total.
    const std::string span = c.iterations == 1  ? std::string("iteration")
                             : c.iterations > 1 ? fmt::format("trace total ({} iterations)", c.iterations)
                                                : std::string("trace total (iterations not given by the trace)");
    fmt::print(out, "{}: {:.3f} ms plain, {:.3f} ms compressed, speedup {:.3f}x\n", span, c.plain_makespan_s * 1e3,
               c.compressed_makespan_s * 1e3, speedup(c.plain_makespan_s, c.compressed_makespan_s));
  }
  const bool what_if = !c.assumptions.empty();
  const std::string a_head = what_if ? c.a_label + " ms" : "plain ms";
  const std::string b_head = what_if ? c.b_label + " ms" : "compr. ms";
  const std::string a_wait = what_if ? c.a_label + " wait" : "plain wait";
  const std::string b_wait = what_if ? c.b_label + " wait" : "compr. wait";
  const std::size_t a_wait_width = std::max<std::size_t>(11, a_wait.size());
  const std::size_t b_wait_width = std::max<std::size_t>(11, b_wait.size());
  // The wait columns (report/README.md), when both runs measured their waits.
  auto waits = [&](const std::string& a_text, const std::string& b_text) {
    return c.has_waits ? fmt::format("  {:>{}}  {:>{}}", a_text, a_wait_width, b_text, b_wait_width) : std::string();
  };
  auto wait = [](bool communication, double s) { return communication ? fmt::format("{:.3f}", s * 1e3) : ""; };
  for_each_table(c, [&](const ComparedTable& t) {
    if (t.scope == "stage") {
      fmt::print(out, "\nPipeline stage {} (rank{} {}{})\n", t.id, t.ranks.size() == 1 ? "" : "s",
                 format_ranks(t.ranks), t.by_name_because.empty() ? "" : "; rows by name: " + t.by_name_because);
    } else {
      fmt::print(out, "\nRank {}\n", t.id);
    }
    std::size_t width = 8;
    std::size_t label_width = 5;
    std::size_t algo_width = 9;
    for (const ComparedRow& row : t.rows) {
      width = std::max(width, row.name.size());
      label_width = std::max(label_width, row.label.size());
      algo_width = std::max(algo_width, row.compressed_algorithm.size());
    }
    fmt::print(out, "{:>5}  {:<{}}  {:<{}}  {:>11}  {:>11}{}  {:>8}  {:<{}}  {}\n", "#", "operator", width, "label",
               label_width, a_head, b_head, waits(a_wait, b_wait), "speedup", "algorithm", algo_width, "error");
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const ComparedRow& row = t.rows[i];
      std::string gain = row.is_collective() ? fmt::format("{:.3f}x", speedup(row.plain_s, row.compressed_s)) : "";
      std::string line =
          fmt::format("{:>5}  {:<{}}  {:<{}}  {:>11.3f}  {:>11.3f}{}  {:>8}  {:<{}}  {}",
                      t.key == RowKey::kOperator ? std::to_string(i + 1) : "", row.name, width, row.label, label_width,
                      row.plain_s * 1e3, row.compressed_s * 1e3,
                      waits(wait(row.communication, row.plain_wait_s), wait(row.communication, row.compressed_wait_s)),
                      gain, row.compressed_algorithm, algo_width,
                      format_error(row.error_worst_eb, row.error_expected_eb, c.error_bound_abs));
      while (!line.empty() && line.back() == ' ') line.pop_back();
      fmt::print(out, "{}\n", line);
    }
    fmt::print(out, "{:>5}  {:<{}}  {:<{}}  {:>11.3f}  {:>11.3f}{}  {:>7.3f}x\n", "", "total", width, "", label_width,
               t.plain_total_s * 1e3, t.compressed_total_s * 1e3,
               waits(wait(true, t.plain_wait_s), wait(true, t.compressed_wait_s)),
               speedup(t.plain_total_s, t.compressed_total_s));
  });
}

void write_csv(const Comparison& c, std::ostream& out) {
  const bool summary = c.a_summary && c.b_summary;
  fmt::print(out,
             "scope,id,row,operator,label,{0}_ms,{1}_ms,speedup,{0}_algorithm,{1}_algorithm,"
             "error_worst_eb,error_expected_eb{2}{3}\n",
             c.a_label, c.b_label, c.has_waits ? fmt::format(",{0}_wait_ms,{1}_wait_ms", c.a_label, c.b_label) : "",
             summary ? fmt::format(",{0}_value,{1}_value", c.a_label, c.b_label) : "");
  if (summary) {
    // The summary first: its figure in `operator`, what it rests on (or why it is unknown) in
    // `label`, times in the ms columns, every figure in the value columns (in its name's unit).
    int i = 0;
    auto value = [](const std::optional<double>& v) { return v ? fmt::format("{:.6f}", *v) : std::string(); };
    for (const SummaryCsvRow& row : summary_csv_rows({&*c.a_summary, &*c.b_summary})) {
      const std::optional<double>&a = row.values[0], &b = row.values[1];
      fmt::print(out, "summary,{},{},{},{},{},{},{},,,,{}{},{},{}\n", c.a_summary->critical_rank, ++i, row.figure,
                 csv_field(row.note), row.is_time ? value(a) : "", row.is_time ? value(b) : "",
                 row.is_time && a && b ? fmt::format("{:.6f}", speedup(*a, *b)) : "", c.has_waits ? ",," : "", "",
                 value(a), value(b));
    }
  }
  const std::string values = summary ? ",," : "";
  // The wait columns, when both runs measured their waits: blank for compute.
  auto waits = [&](bool communication, double a_s, double b_s) {
    if (!c.has_waits) return std::string();
    return communication ? fmt::format(",{:.6f},{:.6f}", a_s * 1e3, b_s * 1e3) : std::string(",,");
  };
  for_each_table(c, [&](const ComparedTable& t) {
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const ComparedRow& row = t.rows[i];
      fmt::print(out, "{},{},{},{},{},{:.6f},{:.6f},{:.6f},{},{},{:.6g},{:.6g}{}{}\n", t.scope, t.id, i + 1,
                 csv_field(row.name), csv_field(row.label), row.plain_s * 1e3, row.compressed_s * 1e3,
                 speedup(row.plain_s, row.compressed_s), row.plain_algorithm, row.compressed_algorithm,
                 row.error_worst_eb, row.error_expected_eb,
                 waits(row.communication, row.plain_wait_s, row.compressed_wait_s), values);
    }
    fmt::print(out, "{},{},total,total,,{:.6f},{:.6f},{:.6f},,,,{}{}\n", t.scope, t.id, t.plain_total_s * 1e3,
               t.compressed_total_s * 1e3, speedup(t.plain_total_s, t.compressed_total_s),
               waits(true, t.plain_wait_s, t.compressed_wait_s), values);
  });
}

/// Long: the JSON document's keys in output order.
void write_json(const Comparison& c, std::ostream& out) {
  const std::string& a = c.a_label;
  const std::string& b = c.b_label;
  const bool what_if = !c.assumptions.empty();
  nlohmann::ordered_json doc;
  if (c.a_summary && c.b_summary) {
    doc["summary"][a] = summary_json(*c.a_summary);
    doc["summary"][b] = summary_json(*c.b_summary);
  }
  doc["trace"] = c.trace_name;
  doc["platform"] = c.platform_name;
  doc["network_model"] = c.network_model;
  doc["placement"] = c.placement;
  auto nodes = [](int n) { return n > 0 ? nlohmann::ordered_json(n) : nlohmann::ordered_json(); };
  doc[a + "_nodes"] = nodes(c.a_nodes_used);
  doc[b + "_nodes"] = nodes(c.b_nodes_used);
  if (what_if) doc["assumptions"] = c.assumptions;
  doc[a + "_collectives"] = c.plain_algorithms;
  doc[b + "_collectives"] = c.compressed_algorithms;
  if (what_if) {
    doc[a + "_compression"] = c.a_compression;
    doc[b + "_compression"] = c.compression;
  } else {
    doc["compression"] = c.compression;
  }
  if (c.b_compute != c.compute) {
    doc[a + "_compute"] = c.compute;
    doc[b + "_compute"] = c.b_compute;
  } else {
    doc["compute"] = c.compute;
  }
  doc["notes"] = c.notes;
  doc["error_bound_abs"] =
      std::isfinite(c.error_bound_abs) ? nlohmann::ordered_json(c.error_bound_abs) : nlohmann::ordered_json();
  doc["iterations"] = c.iterations > 0 ? nlohmann::ordered_json(c.iterations) : nlohmann::ordered_json();
  doc[a + "_trace_total_ms"] = c.plain_makespan_s * 1e3;
  doc[b + "_trace_total_ms"] = c.compressed_makespan_s * 1e3;
  auto per_iteration = [&](double s) {
    return c.iterations > 0 ? nlohmann::ordered_json(s * 1e3 / c.iterations) : nlohmann::ordered_json();
  };
  doc[a + "_iteration_ms"] = per_iteration(c.plain_makespan_s);
  doc[b + "_iteration_ms"] = per_iteration(c.compressed_makespan_s);
  if (what_if)
    doc["change_percent"] = c.plain_makespan_s > 0 ? (c.compressed_makespan_s / c.plain_makespan_s - 1) * 100 : 0.0;
  doc["speedup"] = speedup(c.plain_makespan_s, c.compressed_makespan_s);
  write_json_with_tables(out, doc, [&](const auto& emit) {
    for_each_table(c, [&](const ComparedTable& t) {
      nlohmann::ordered_json table;
      table["scope"] = t.scope;
      table["id"] = t.id;
      table["ranks"] = t.ranks;
      table[a + "_total_ms"] = t.plain_total_s * 1e3;
      table[b + "_total_ms"] = t.compressed_total_s * 1e3;
      if (c.has_waits) {
        table[a + "_wait_ms"] = t.plain_wait_s * 1e3;
        table[b + "_wait_ms"] = t.compressed_wait_s * 1e3;
      }
      table["rows"] = nlohmann::ordered_json::array();
      for (const ComparedRow& row : t.rows) {
        nlohmann::ordered_json r;
        r["operator"] = row.name;
        if (!row.label.empty()) r["label"] = row.label;
        r[a + "_ms"] = row.plain_s * 1e3;
        r[b + "_ms"] = row.compressed_s * 1e3;
        if (c.has_waits && row.communication) {
          r[a + "_wait_ms"] = row.plain_wait_s * 1e3;
          r[b + "_wait_ms"] = row.compressed_wait_s * 1e3;
        }
        if (row.is_collective()) {
          r["speedup"] = speedup(row.plain_s, row.compressed_s);
          r[a + "_algorithm"] = row.plain_algorithm;
          r[b + "_algorithm"] = row.compressed_algorithm;
        }
        if (row.compressed()) {
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
