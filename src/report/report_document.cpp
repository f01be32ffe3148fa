#include "report/report_document.hpp"

#include <cmath>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "report/summary.hpp"

namespace ccsim::report {
namespace {

std::string ms(double s) { return fmt::format("{:.3f}", s * 1e3); }
std::string ratio(double plain_s, double compressed_s) {
  return compressed_s > 0 ? fmt::format("{:.3f}x", plain_s / compressed_s) : std::string("-");
}

std::string table_heading(const std::string& scope, int id, const std::vector<int>& ranks) {
  return scope == "stage" ? fmt::format("Pipeline stage {} (ranks {})", id, format_ranks(ranks))
                          : fmt::format("Rank {}", id);
}

void add_plain_tables(Document& doc, const Breakdown& b) {
  for (const Table& t : b.tables) {
    doc.heading(3, table_heading(t.scope, t.id, t.ranks));
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const Row& r = t.rows[i];
      rows.push_back(
          {std::to_string(i + 1), r.name, r.label, ms(r.time_s), fmt::format("{:.2f}", r.share * 100), r.algorithm});
    }
    rows.push_back({"", "total", "", ms(t.total_s), "100.00", ""});
    doc.table({"#", "operator", "label", "time ms", "share %", "algorithm"}, std::move(rows),
              {true, false, false, true, true, false});
  }
}

void add_compared_tables(Document& doc, const Comparison& c) {
  for (const ComparedTable& t : c.tables) {
    doc.heading(3, table_heading(t.scope, t.id, t.ranks));
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const ComparedRow& r = t.rows[i];
      rows.push_back({std::to_string(i + 1), r.name, r.label, ms(r.plain_s), ms(r.compressed_s),
                      r.is_collective() ? ratio(r.plain_s, r.compressed_s) : "", r.plain_algorithm,
                      r.compressed_algorithm, format_error(r.error_worst_eb, r.error_expected_eb, c.error_bound_abs)});
    }
    rows.push_back({"", "total", "", ms(t.plain_total_s), ms(t.compressed_total_s),
                    ratio(t.plain_total_s, t.compressed_total_s), "", "", ""});
    doc.table({"#", "operator", "label", "plain ms", "compressed ms", "speedup", "plain algorithm",
               "compressed algorithm", "error"},
              std::move(rows), {true, false, false, true, true, true, false, false, false});
  }
}

void add_summary(Document& doc, const ReportContent& content) {
  const Breakdown& breakdown = *content.breakdown;
  const Comparison* comparison = content.comparison;
  {
    // The block replay, compare and cost print first (docs/summary.md defines each figure).
    std::ostringstream block;
    std::vector<std::pair<std::string, const Summary*>> runs{{comparison ? "plain" : "", &*breakdown.summary}};
    if (comparison) runs.emplace_back("compressed", &*comparison->b_summary);
    write_summary_text(runs, block);
    std::string text = block.str();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    doc.code(text);
  }
  std::vector<std::vector<std::string>> summary;
  if (comparison) {
    summary.push_back({"whole trace", ms(comparison->plain_makespan_s), ms(comparison->compressed_makespan_s),
                       ratio(comparison->plain_makespan_s, comparison->compressed_makespan_s)});
    for (const ComparedTable& t : comparison->tables) {
      summary.push_back({fmt::format("{} {} (mean over its ranks)", t.scope, t.id), ms(t.plain_total_s),
                         ms(t.compressed_total_s), ratio(t.plain_total_s, t.compressed_total_s)});
    }
    doc.table({"", "plain ms", "compressed ms", "speedup"}, std::move(summary), {false, true, true, true});
  } else {
    summary.push_back({"whole trace", ms(breakdown.makespan_s)});
    for (const Table& t : breakdown.tables) {
      summary.push_back({fmt::format("{} {} (mean over its ranks)", t.scope, t.id), ms(t.total_s)});
    }
    doc.table({"", "plain ms"}, std::move(summary), {false, true});
    doc.paragraph("No compressor given (--compress NAME[:key=value,...]): the plain run only.");
  }
  doc.paragraph(
      fmt::format("The whole trace: {}. The whole trace is the slowest rank's end; a stage's time is the mean "
                  "over its ranks.",
                  format_span(breakdown.makespan_s, breakdown.iterations)));
}

std::vector<std::string> assumptions(const ReportContent& content) {
  const Breakdown& breakdown = *content.breakdown;
  const Comparison* comparison = content.comparison;
  std::vector<std::string> out = content.job_assumptions;
  out.push_back(fmt::format("network: {}", breakdown.network_model));
  if (!breakdown.compute.empty()) out.push_back(fmt::format("compute: {}", breakdown.compute));
  if (!breakdown.placement.empty()) out.push_back(fmt::format("placement: {}", breakdown.placement));
  out.push_back(fmt::format("plain collectives: {}", breakdown.algorithm));
  if (comparison) {
    out.push_back(fmt::format("compressed collectives: {}; compression: {}", comparison->compressed_algorithms,
                              comparison->compression));
    if (std::isfinite(comparison->error_bound_abs)) {
      out.push_back(
          fmt::format("error: worst / expected absolute error of a result (eb = {:.3g})", comparison->error_bound_abs));
    } else if (std::isnan(comparison->error_bound_abs)) {
      out.push_back("error: worst / expected in units of eb, the error bound of one compression");
    } else {
      out.push_back("error: the compressor has no error bound");
    }
    for (const std::string& note : comparison->notes) out.push_back(fmt::format("note: {}", note));
  } else {
    for (const std::string& note : breakdown.notes) out.push_back(fmt::format("note: {}", note));
  }
  out.push_back("times: simulated by SimGrid (contention, overlap, topology), deterministic");
  for (const std::string& a : content.cost_assumptions) {
    if (!a.starts_with("network:") && !a.starts_with("compute:")) out.push_back("cost: " + a);  // said above
  }
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> kind_rows(const Breakdown& breakdown) {
  std::vector<std::vector<std::string>> rows;
  for (const Table& t : breakdown.tables) {
    std::map<std::string, double> kinds;
    for (const Row& r : t.rows) {
      kinds[r.name] += r.time_s - r.wait_s;
      if (r.wait_s > 0) kinds[kWaitingForPeers] += r.wait_s;
    }
    for (const auto& [kind, s] : kinds) rows.push_back({fmt::format("{} {}", t.scope, t.id), kind, ms(s)});
  }
  return rows;
}

std::vector<std::vector<std::string>> kind_rows(const Comparison& comparison) {
  std::vector<std::vector<std::string>> rows;
  for (const ComparedTable& t : comparison.tables) {
    std::map<std::string, std::pair<double, double>> kinds;
    for (const ComparedRow& r : t.rows) {
      kinds[r.name].first += r.plain_s - r.plain_wait_s;
      kinds[r.name].second += r.compressed_s - r.compressed_wait_s;
      if (r.plain_wait_s > 0 || r.compressed_wait_s > 0) {
        kinds[kWaitingForPeers].first += r.plain_wait_s;
        kinds[kWaitingForPeers].second += r.compressed_wait_s;
      }
    }
    for (const auto& [kind, s] : kinds) {
      rows.push_back({fmt::format("{} {}", t.scope, t.id), kind, ms(s.first), ms(s.second)});
    }
  }
  return rows;
}

Document report_document(const ReportContent& content) {
  const Breakdown& breakdown = *content.breakdown;
  const Comparison* comparison = content.comparison;
  Document doc(content.title);
  doc.paragraph("Made by this command (from the directory it ran in):");
  doc.code(content.command);

  doc.heading(2, "Summary");
  add_summary(doc, content);

  doc.heading(2, "Assumptions");
  doc.list(assumptions(content));

  doc.heading(2, "Time per operator kind");
  doc.paragraph(
      "Summed over each stage's operators, mean over its ranks. Sends, receives and collectives count their "
      "transfers; the time they wait for peers (the pipeline bubble, a late member) is \"waiting for peers\". "
      "Operators of streams that overlap count once each.");
  if (comparison) {
    doc.table({"scope", "operator kind", "plain ms", "compressed ms"}, kind_rows(*comparison),
              {false, false, true, true});
  } else {
    doc.table({"scope", "operator kind", "time ms"}, kind_rows(breakdown), {false, false, true});
  }

  doc.heading(2, comparison ? "Breakdown, plain and compressed" : "Breakdown");
  if (comparison) {
    add_compared_tables(doc, *comparison);
  } else {
    add_plain_tables(doc, breakdown);
  }

  doc.heading(2, "Cost");
  if (content.cost_sentence) {
    doc.paragraph(*content.cost_sentence);
    std::vector<std::string> header{"", "plain"};
    std::vector<bool> numeric{false, true};
    if (comparison) {
      header.insert(header.end(), {"compressed", "saving"});
      numeric.insert(numeric.end(), {true, true});
    }
    doc.table(std::move(header), content.cost_rows, std::move(numeric));
  } else {
    doc.paragraph(
        "Not computed: give --iterations N, or --tokens N with --tokens-per-iteration (and --price, --power).");
  }

  doc.heading(2, "Figures");
  if (content.figures.empty()) {
    doc.paragraph(content.figures_skipped);
  } else {
    for (const auto& [file, caption] : content.figures) doc.image(file, caption);
  }
  doc.paragraph("The figures' data: report.json (the JSON of replay, compare and cost).");
  return doc;
}

}  // namespace ccsim::report
