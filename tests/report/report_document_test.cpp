// The document of `ccsim report` (report/report_document.hpp): its sections in order, the
// assumptions in theirs, and the time per operator kind, which adds up to each stage's time.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "report/report_document.hpp"
#include "report/summary.hpp"
#include "support/op_record.hpp"

using namespace ccsim;

namespace {

/// Two ranks in one stage: rank 0 computes 4 ms then waits 3 ms in an all_reduce of 5 ms;
/// rank 1 computes 6 ms then its all_reduce takes 3 ms, 1 of them waiting.
engine::Result two_ranks() {
  engine::Result r = test::hand_made_result(2, {"", "linear", "compute", "all_reduce", "grads"});
  engine::OpRecord all_reduce0 = test::record(3, 4, 3, 1024, 0.004, 0.009);
  all_reduce0.wait_s = 0.003;
  engine::OpRecord all_reduce1 = test::record(3, 4, 3, 1024, 0.006, 0.009);
  all_reduce1.wait_s = 0.001;
  r.ops = {{test::record(1, 0, 2, 0, 0, 0.004), all_reduce0}, {test::record(1, 0, 2, 0, 0, 0.006), all_reduce1}};
  r.makespan_s = 0.009;
  r.has_waits = true;
  r.nodes_used = 1;
  return r;
}

std::size_t at(const std::string& text, const std::string& what) {
  const std::size_t at = text.find(what);
  INFO(what);
  CHECK(at != std::string::npos);
  return at;
}

}  // namespace

TEST_CASE("the time per operator kind splits each call into its transfer and its wait for peers", "[report]") {
  const engine::Result result = two_ranks();
  const report::Breakdown b = report::make_breakdown(result, {});
  // Means over the stage's 2 ranks: linear (4 + 6) / 2 = 5 ms; all_reduce transfers
  // (5 - 3 + 3 - 1) / 2 = 2 ms; waits (3 + 1) / 2 = 2 ms: 9 ms, the stage's time.
  CHECK(report::kind_rows(b) == std::vector<std::vector<std::string>>{{"stage 0", "all_reduce", "2.000"},
                                                                      {"stage 0", "linear", "5.000"},
                                                                      {"stage 0", "waiting for peers", "2.000"}});
  const report::Comparison c = report::compare(result, result, {});
  CHECK(report::kind_rows(c) ==
        std::vector<std::vector<std::string>>{{"stage 0", "all_reduce", "2.000", "2.000"},
                                              {"stage 0", "linear", "5.000", "5.000"},
                                              {"stage 0", "waiting for peers", "2.000", "2.000"}});
}

TEST_CASE("a plain report states its sections and assumptions in order, and why what is missing is", "[report]") {
  const engine::Result result = two_ranks();
  report::Breakdown b = report::make_breakdown(result, {});
  b.summary = report::make_summary(result, report::JobFacts{});
  report::ReportContent content;
  content.title = "ccsim report: t on p";
  content.command = "ccsim report t.json -o out";
  content.breakdown = &b;
  content.job_assumptions = {"trace: t", "platform: p"};
  content.figures_skipped = "figures skipped: --no-figures";
  const std::string md = report::report_document(content).markdown();
  std::size_t last = 0;
  for (const std::string section :
       {"# ccsim report: t on p", "ccsim report t.json -o out", "## Summary", "| whole trace | 9.000 |",
        "| stage 0 (mean over its ranks) | 9.000 |", "No compressor given", "## Assumptions",
        "- trace: t\n- platform: p\n- network: model\n", "- plain collectives: all\\_reduce: ring",
        "- times: simulated by SimGrid", "## Time per operator kind", "| stage 0 | waiting for peers | 2.000 |",
        "## Breakdown\n", "### Pipeline stage 0 (ranks 0-1)", "| total |", "## Cost",
        "Not computed: give --iterations N", "## Figures", "figures skipped: --no-figures"}) {
    const std::size_t next = at(md, section);
    INFO(section);
    CHECK(next >= last);
    last = next;
  }
}

TEST_CASE("a compared report pairs the runs and lists the cost's own assumptions last", "[report]") {
  const engine::Result result = two_ranks();
  report::Breakdown b = report::make_breakdown(result, {});
  b.summary = report::make_summary(result, report::JobFacts{});
  report::Comparison c = report::compare(result, result, {});
  c.a_summary = b.summary;
  c.b_summary = b.summary;
  report::ReportContent content;
  content.breakdown = &b;
  content.comparison = &c;
  content.cost_assumptions = {"network: said by the runs", "price: 3 per node-hour", "compute: said too"};
  content.cost_sentence = "2 ranks on 1 node(s), 1,000 iterations.";
  content.cost_rows = {{"time", "9 s", "9 s", "0 %"}};
  content.figures = {{"breakdown.png", "Time per kind"}};
  const std::string md = report::report_document(content).markdown();
  std::size_t last = 0;
  for (const std::string section :
       {"| whole trace | 9.000 | 9.000 | 1.000x |", "- times: simulated by SimGrid",
        "- cost: price: 3 per node-hour\n\n", "| scope | operator kind | plain ms | compressed ms |",
        "## Breakdown, plain and compressed", "| plain ms | compressed ms | speedup | plain algorithm |",
        "2 ranks on 1 node(s), 1,000 iterations.", "|  | plain | compressed | saving |", "| time | 9 s | 9 s | 0 % |",
        "![Time per kind](breakdown.png)"}) {
    const std::size_t next = at(md, section);
    INFO(section);
    CHECK(next >= last);
    last = next;
  }
  CHECK(md.find("cost: network:") == std::string::npos);
  CHECK(md.find("cost: compute:") == std::string::npos);
}
