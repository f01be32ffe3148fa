#include "study/job_report.hpp"

#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/summary.hpp"
#include "study/job_facts.hpp"

namespace ccsim::study {

JobReport job_report(const JobReplays& replays, const ReplaySettings& settings, const JobReportOptions& options) {
  const trace::Trace& trace = replays.job.trace;
  const topology::Platform& platform = replays.job.platform;
  const engine::Result& plain = replays.results.front();
  JobReport out;
  out.title = fmt::format("ccsim report: {} on {}", trace.name, platform.name);
  report::BreakdownOptions view;
  view.key = options.rows;
  const report::JobFacts facts = job_facts(trace, platform);
  out.breakdown = report::make_breakdown(plain, view);
  out.breakdown.summary = report::make_summary(plain, facts);
  if (replays.results.size() > 1) {
    out.comparison = report::compare(plain, replays.last(), view);
    out.comparison->a_summary = out.breakdown.summary;
    out.comparison->b_summary = report::make_summary(replays.last(), facts);
  }
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
