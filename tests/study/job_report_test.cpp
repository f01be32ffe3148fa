// What `ccsim report` says of a job's replays (study/job_report.hpp), on the profile of traces/
// with its measured durations standing for the replays (study::measured_result: nothing is
// simulated), on the platform the profile names.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "study/job_facts.hpp"
#include "study/job_report.hpp"
#include "study/measured_result.hpp"
#include "trace/native_reader.hpp"

using namespace ccsim;
using Catch::Matchers::StartsWith;

namespace {

const std::string kRoot = CCSIM_SOURCE_DIR;

/// The profile "replayed" `runs` times: "plain", then "compressed".
study::JobReplays profile_replays(int runs) {
  study::JobReplays r;
  r.job.trace = trace::read_native(kRoot + "/traces/qu2025-profile.json");
  r.job.platform = topology::read_platform(topology::find_platform("qu2025-fit", {kRoot + "/platforms"}));
  const engine::Result measured = study::measured_result(r.job.trace);
  for (const char* label : {"plain", "compressed"}) {
    if (static_cast<int>(r.results.size()) == runs) break;
    r.labels.emplace_back(label);
    r.results.push_back(measured);
  }
  return r;
}

}  // namespace

TEST_CASE("a report of a plain job has its breakdown and the job's assumptions", "[study]") {
  study::ReplaySettings s;
  s.settings = {"intra.latency=2us"};
  study::JobReplays r = profile_replays(1);
  r.setting_notes = {"intra.latency=2us: no effect: all 2 ranks were on one node"};
  study::JobReportOptions o;
  o.trace_file = "traces/qu2025-profile.json";
  const study::JobReport report = study::job_report(r, s, o);
  CHECK(report.title == "ccsim report: qu2025-profile on qu2025-fit");
  CHECK_FALSE(report.comparison);
  CHECK_FALSE(report.cost);
  CHECK(report.breakdown.world_size == 4);
  REQUIRE(report.job_assumptions.size() == 4);
  CHECK_THAT(report.job_assumptions[0], StartsWith("trace: qu2025-profile (traces/qu2025-profile.json), 4 ranks"));
  CHECK_THAT(report.job_assumptions[0], Catch::Matchers::EndsWith(", 2 pipeline stage(s)"));
  CHECK_THAT(report.job_assumptions[1], StartsWith("platform: qu2025-fit: "));
  CHECK(report.job_assumptions[2] == "set: intra.latency=2us (--set)");
  CHECK(report.job_assumptions[3] == "set: " + r.setting_notes[0]);

  const nlohmann::json data = nlohmann::json::parse(study::job_report_json(report));
  CHECK(data.size() == 1);
  CHECK(data.contains("breakdown"));

  report::Figures figures;
  figures.skipped = "figures skipped: --no-figures";
  const report::ReportContent c = study::report_content(report, "ccsim report T -o D", figures);
  CHECK(c.title == report.title);
  CHECK(c.command == "ccsim report T -o D");
  CHECK(c.breakdown == &report.breakdown);
  CHECK(c.comparison == nullptr);
  CHECK_FALSE(c.cost_sentence);
  CHECK(c.job_assumptions == report.job_assumptions);
  CHECK(c.figures_skipped == figures.skipped);
}

TEST_CASE("a report of a compressed job compares the runs and, when asked, prices them", "[study]") {
  const study::JobReplays r = profile_replays(2);
  study::JobReportOptions o;
  o.rows = report::RowKey::kKind;
  study::CostOptions cost;
  cost.iterations = 1000;
  cost.price = 2;
  cost.power = 1;
  o.cost = cost;
  const study::JobReport report = study::job_report(r, {}, o);
  REQUIRE(report.comparison);
  CHECK(report.comparison->a_label == "plain");
  CHECK(report.comparison->b_label == "compressed");
  REQUIRE(report.cost);
  CHECK(report.cost->names == std::vector<std::string>{"plain", "compressed"});
  CHECK(report.job_assumptions.size() == 2);  // no --set

  const nlohmann::json data = nlohmann::json::parse(study::job_report_json(report));
  CHECK(data.contains("breakdown"));
  CHECK(data.contains("comparison"));
  CHECK(data.contains("cost"));

  const report::ReportContent c = study::report_content(report, "ccsim report", {});
  CHECK(c.comparison == &*report.comparison);
  REQUIRE(c.cost_sentence);
  CHECK(*c.cost_sentence == "4 ranks on 2 node(s), 1,000 iterations.");  // 2 nodes of 2 accelerators
  CHECK(c.cost_rows == study::cost_rows(*report.cost));
  CHECK(c.cost_assumptions == report.cost->assumptions);
}

TEST_CASE("replay, compare and whatif show a job's replays with the job's summary", "[study]") {
  const study::JobReplays r = profile_replays(2);
  report::BreakdownOptions view;
  view.key = report::RowKey::kName;
  const report::Breakdown b = study::job_breakdown(r.job, r.last(), view);
  CHECK(b.world_size == 4);
  CHECK(b.summary.has_value());

  const report::Comparison c = study::job_comparison(r.job, r.results.front(), r.last(), view);
  CHECK(c.a_label == "plain");
  CHECK(c.b_label == "compressed");
  CHECK(c.a_summary.has_value());
  CHECK(c.b_summary.has_value());

  study::WhatIfReplays w{profile_replays(1), profile_replays(1)};
  w.what_if.setting_notes = {"intra.latency=2us: no effect"};
  study::ReplaySettings s;
  s.settings = {"intra.latency=2us"};
  const report::Comparison what_if = study::what_if_comparison(w, s, view);
  CHECK(what_if.a_label == "baseline");
  CHECK(what_if.b_label == "what_if");
  CHECK(what_if.assumptions == s.settings);
  CHECK(what_if.notes == study::what_if_notes(w));
  CHECK(what_if.notes.back() == "what_if: intra.latency=2us: no effect");
  CHECK(what_if.b_summary.has_value());
}

TEST_CASE("a platform's accelerator as the hardware a trace was measured on", "[study]") {
  const study::JobReplays r = profile_replays(1);
  const trace::Hardware h = study::accelerator_hardware(r.job.platform, "--hardware qu2025-fit");
  CHECK(h.name == r.job.platform.network.accelerator().model);
  CHECK(h.peak_flops == 4.0e12);  // platforms/qu2025-fit.json
  CHECK(h.source == "--hardware qu2025-fit: the accelerator of platform qu2025-fit");
}
