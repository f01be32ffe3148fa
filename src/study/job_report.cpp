#include "study/job_report.hpp"

#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/summary.hpp"
#include "study/job_facts.hpp"

namespace ccsim::study {

report::Breakdown job_breakdown(const ReplayJob& job, const engine::Result& result,
                                const report::BreakdownOptions& view) {
  report::Breakdown out = report::make_breakdown(result, view);
  out.summary = report::make_summary(result, job_facts(job.trace, job.platform));
  return out;
}

report::Comparison job_comparison(const ReplayJob& job, const engine::Result& a, const engine::Result& b,
                                  const report::BreakdownOptions& view) {
  report::Comparison out = report::compare(a, b, view);
  const report::JobFacts facts = job_facts(job.trace, job.platform);
  out.a_summary = report::make_summary(a, facts);
  out.b_summary = report::make_summary(b, facts);
  return out;
}

report::Comparison what_if_comparison(const WhatIfReplays& replays, const ReplaySettings& settings,
                                      const report::BreakdownOptions& view) {
  const engine::Result& baseline = replays.baseline.last();
  const engine::Result& changed = replays.what_if.last();
  report::Comparison out = report::compare(baseline, changed, view);
  out.a_summary = report::make_summary(baseline, job_facts(replays.baseline.job.trace, replays.baseline.job.platform));
  out.b_summary = report::make_summary(changed, job_facts(replays.what_if.job.trace, replays.what_if.job.platform));
  out.a_label = "baseline";
  out.b_label = "what_if";
  out.assumptions = settings.settings;
  // The notes of both runs (the baseline's auto choices may differ from the what-if's).
  out.notes = what_if_notes(replays);
  return out;
}

JobReport job_report(const JobReplays& replays, const ReplaySettings& settings, const JobReportOptions& options) {
  const trace::Trace& trace = replays.job.trace;
  const topology::Platform& platform = replays.job.platform;
  const engine::Result& plain = replays.results.front();
  JobReport out;
  out.title = fmt::format("ccsim report: {} on {}", trace.name, platform.name);
  report::BreakdownOptions view;
  view.key = options.rows;
  out.breakdown = job_breakdown(replays.job, plain, view);
  if (replays.results.size() > 1) out.comparison = job_comparison(replays.job, plain, replays.last(), view);
  if (options.cost) out.cost = study_cost(*options.cost, trace, platform, replays.runs());
  out.job_assumptions.push_back(fmt::format("trace: {} ({}), {} ranks{}, {} pipeline stage(s)", trace.name,
                                            options.trace_file, out.breakdown.world_size,
                                            report::on_nodes(out.breakdown.nodes_used), out.breakdown.stage_count));
  out.job_assumptions.push_back(fmt::format("platform: {}: {}", platform.name, platform.description));
  for (std::string& setting : setting_assumptions(settings, replays.setting_notes)) {
    out.job_assumptions.push_back(std::move(setting));
  }
  return out;
}

std::string job_report_json(const JobReport& report) {
  nlohmann::ordered_json data;
  {
    std::ostringstream text;
    report::write_json(report.breakdown, text);
    data["breakdown"] = nlohmann::ordered_json::parse(text.str());
  }
  if (report.comparison) {
    std::ostringstream text;
    report::write_json(*report.comparison, text);
    data["comparison"] = nlohmann::ordered_json::parse(text.str());
  }
  if (report.cost) data["cost"] = nlohmann::ordered_json::parse(cost_json(*report.cost));
  return data.dump(2) + "\n";
}

report::ReportContent report_content(const JobReport& report, const std::string& command,
                                     const report::Figures& figures) {
  report::ReportContent content;
  content.title = report.title;
  content.command = command;
  content.breakdown = &report.breakdown;
  content.comparison = report.comparison ? &*report.comparison : nullptr;
  content.job_assumptions = report.job_assumptions;
  if (report.cost) {
    content.cost_assumptions = report.cost->assumptions;
    content.cost_sentence = fmt::format("{} ranks on {} node(s), {} iterations.", report.cost->ranks,
                                        report.cost->nodes, report::format_thousands(report.cost->iterations, 0));
    content.cost_rows = cost_rows(*report.cost);
  }
  content.figures = figures.images;
  content.figures_skipped = figures.skipped;
  return content;
}

}  // namespace ccsim::study
