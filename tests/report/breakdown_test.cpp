#include <catch2/catch.hpp>

#include <sstream>

#include <nlohmann/json.hpp>

#include "report/breakdown.hpp"
#include "report/comparison.hpp"
#include "support/op_record.hpp"

using namespace ccsim;

namespace {

// Two ranks in one stage: compute 10/20 ms, then an all_reduce ending at 40 ms on both.
engine::Result two_rank_result() {
  engine::Result r = test::hand_made_result(2, {"", "linear", "all_reduce", "compute", "qkv"});
  r.ops = {{test::record(1, 4, 3, 0, 0.0, 0.010), test::record(2, 0, 2, 64, 0.010, 0.040)},
           {test::record(1, 4, 3, 0, 0.0, 0.020), test::record(2, 0, 2, 64, 0.020, 0.040)}};
  r.makespan_s = 0.040;
  return r;
}

/// `a` and `b` (a report made at once, and the same made table by table as it is written)
/// render the same text, CSV and JSON, and the JSON is the document nlohmann writes whole.
template <typename Report>
void check_same_renderings(const Report& a, const Report& b) {
  std::ostringstream text_a, text_b, csv_a, csv_b, json_a, json_b;
  report::write_text(a, text_a);
  report::write_text(b, text_b);
  CHECK(text_a.str() == text_b.str());
  report::write_csv(a, csv_a);
  report::write_csv(b, csv_b);
  CHECK(csv_a.str() == csv_b.str());
  report::write_json(a, json_a);
  report::write_json(b, json_b);
  CHECK(json_a.str() == json_b.str());
  CHECK(json_b.str() == nlohmann::ordered_json::parse(json_b.str()).dump(2) + "\n");
}

}  // namespace

TEST_CASE("a stage table averages its ranks per operator", "[report]") {
  report::Breakdown b = report::make_breakdown(two_rank_result(), {});
  REQUIRE(b.tables.size() == 1);
  const report::Table& t = b.tables[0];
  CHECK(t.key == report::RowKey::kOperator);
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].name == "linear");
  CHECK(t.rows[0].label == "qkv");
  CHECK(t.rows[0].time_s == Approx(0.015));
  CHECK(t.rows[1].time_s == Approx(0.025));
  CHECK(t.total_s == Approx(0.040));
  CHECK(t.rows[1].share == Approx(0.625));
}

TEST_CASE("per-rank tables and name rows", "[report]") {
  engine::Result r = two_rank_result();
  r.ops.writable(0).push_back(test::record(1, 4, 3, 0, 0.040, 0.050));
  report::BreakdownOptions options;
  options.per_rank = true;
  report::Breakdown b = report::make_breakdown(r, options);
  REQUIRE(b.tables.size() == 3);
  // The stage's ranks now run different sequences: the stage falls back to name rows.
  CHECK(b.tables[0].key == report::RowKey::kName);
  CHECK(b.tables[0].rows[0].calls == 2);
  CHECK(b.tables[0].rows[0].time_s == Approx((0.020 + 0.020) / 2));
  CHECK(b.tables[1].scope == "rank");
  CHECK(b.tables[1].total_s == Approx(0.050));
  CHECK(b.tables[2].rows[1].time_s == Approx(0.020));
}

TEST_CASE("rank tables made as they are written render as the tables made at once", "[report]") {
  engine::Result r = two_rank_result();
  r.has_waits = true;
  r.ops.writable(0)[1].wait_s = 0.010;
  r.ops.writable(0).push_back(test::record(1, 4, 3, 0, 0.040, 0.050));
  for (const bool stages : {true, false}) {
    report::BreakdownOptions at_once;
    at_once.per_rank = true;
    at_once.per_stage = stages;
    report::BreakdownOptions on_demand = at_once;
    on_demand.ranks_on_demand = true;
    const report::Breakdown a = report::make_breakdown(r, at_once);
    const report::Breakdown b = report::make_breakdown(r, on_demand);
    CHECK(a.tables.size() == (stages ? 3U : 2U));
    CHECK(b.tables.size() == (stages ? 1U : 0U));
    CHECK(b.later_count == 2);
    check_same_renderings(a, b);
    std::ostringstream json;
    report::write_json(b, json);
    CHECK(nlohmann::ordered_json::parse(json.str())["tables"].size() == (stages ? 3U : 2U));
  }
  // No table at all: an empty list.
  report::BreakdownOptions none;
  none.per_stage = false;
  std::ostringstream json;
  report::write_json(report::make_breakdown(r, none), json);
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(json.str());
  CHECK(json.str() == doc.dump(2) + "\n");
  CHECK(doc["tables"].empty());
}

TEST_CASE("a comparison pairs per-rank tables made as they are written as it pairs tables made at once", "[report]") {
  engine::Result plain = two_rank_result();
  plain.has_waits = true;
  plain.ops.writable(0)[1].wait_s = 0.010;
  engine::Result compressed = plain;
  compressed.ops.writable(0)[1].end_s = compressed.ops.writable(1)[1].end_s = 0.030;
  compressed.makespan_s = 0.030;
  report::BreakdownOptions at_once;
  at_once.per_rank = true;
  report::BreakdownOptions on_demand = at_once;
  on_demand.ranks_on_demand = true;
  const report::Comparison a = report::compare(plain, compressed, at_once);
  const report::Comparison b = report::compare(plain, compressed, on_demand);
  CHECK(a.tables.size() == 3);
  CHECK(b.tables.size() == 1);
  CHECK(b.later_count == 2);
  check_same_renderings(a, b);
  std::ostringstream json;
  report::write_json(b, json);
  CHECK(json.str().find("\"compressed_total_ms\": 30.0") != std::string::npos);
}

TEST_CASE("text, csv and json renderings", "[report]") {
  report::Breakdown b = report::make_breakdown(two_rank_result(), {});
  std::ostringstream text;
  report::write_text(b, text);
  CHECK(text.str() ==
        "t on p: 2 ranks, 1 pipeline stage, iteration 40.000 ms\n"
        "network: model\n"
        "collectives: all_reduce: ring\n"
        "\n"
        "Pipeline stage 0 (ranks 0-1, mean over 2 ranks)\n"
        "    #  operator    label      time ms   share %\n"
        "    1  linear      qkv         15.000     37.50\n"
        "    2  all_reduce              25.000     62.50\n"
        "       total                   40.000    100.00\n");
  std::ostringstream csv;
  report::write_csv(b, csv);
  CHECK(csv.str() ==
        "scope,id,row,operator,label,calls,time_ms,share_pct\n"
        "stage,0,1,linear,qkv,1,15.000000,37.5000\n"
        "stage,0,2,all_reduce,,1,25.000000,62.5000\n"
        "stage,0,total,total,,,40.000000,100.0000\n");
  std::ostringstream json;
  report::write_json(b, json);
  CHECK(json.str().find("\"iteration_ms\": 40.0") != std::string::npos);
  CHECK(json.str().find("\"rows_by\": \"operator\"") != std::string::npos);
}

TEST_CASE("rank lists collapse into ranges", "[report]") {
  CHECK(report::format_ranks({0, 1, 2, 3, 8, 10, 11}) == "0-3, 8, 10-11");
  CHECK(report::format_ranks({5}) == "5");
}

TEST_CASE("csv fields are quoted when they need it", "[report]") {
  CHECK(report::csv_field("linear") == "linear");
  CHECK(report::csv_field("a,b") == "\"a,b\"");
  CHECK(report::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
}

TEST_CASE("a trace total is called an iteration only when the trace holds one", "[report]") {
  CHECK(report::format_span(0.040, 1) == "iteration 40.000 ms");
  CHECK(report::format_span(0.040, 2) == "trace total 40.000 ms, 2 iterations, 20.000 ms per iteration");
  CHECK(report::format_span(0.040, 0) == "trace total 40.000 ms (the trace does not say how many iterations it holds)");
  engine::Result two = two_rank_result();
  two.iterations = 2;
  std::ostringstream json;
  report::write_json(report::make_breakdown(two, {}), json);
  CHECK(json.str().find("\"iterations\": 2,\n  \"trace_total_ms\": 40.0,\n  \"iteration_ms\": 20.0") !=
        std::string::npos);
}

TEST_CASE("the wait column: the mean wait of communications, blank for compute, summed in the total",
          "[report][wait]") {
  // Rank 0 enters the all_reduce at 10 ms and waits for rank 1, which enters at 20 ms.
  engine::Result r = two_rank_result();
  r.has_waits = true;
  r.ops.writable(0)[1].wait_s = 0.010;
  report::Breakdown b = report::make_breakdown(r, {});
  REQUIRE(b.tables.size() == 1);
  CHECK(b.tables[0].rows[1].wait_s == Approx(0.005));
  CHECK(b.tables[0].wait_s == Approx(0.005));
  std::ostringstream text;
  report::write_text(b, text);
  CHECK_THAT(text.str(), Catch::EndsWith("    #  operator    label      time ms   share %     wait ms\n"
                                         "    1  linear      qkv         15.000     37.50\n"
                                         "    2  all_reduce              25.000     62.50       5.000\n"
                                         "       total                   40.000    100.00       5.000\n"));
  std::ostringstream csv;
  report::write_csv(b, csv);
  CHECK(csv.str() ==
        "scope,id,row,operator,label,calls,time_ms,share_pct,wait_ms\n"
        "stage,0,1,linear,qkv,1,15.000000,37.5000,\n"
        "stage,0,2,all_reduce,,1,25.000000,62.5000,5.000000\n"
        "stage,0,total,total,,,40.000000,100.0000,5.000000\n");
  std::ostringstream json;
  report::write_json(b, json);
  CHECK(json.str().find("\"wait_ms\": 5.0") != std::string::npos);
  CHECK(json.str().find("\"share_pct\": 37.5\n") != std::string::npos);  // compute: no wait_ms, its last key

  // Results without measured waits (trace inspect) have no wait column at all.
  r.has_waits = false;
  std::ostringstream plain;
  report::write_csv(report::make_breakdown(r, {}), plain);
  CHECK(plain.str().rfind("scope,id,row,operator,label,calls,time_ms,share_pct\n", 0) == 0);
}

TEST_CASE("each choice of rows in words is its row key", "[report]") {
  CHECK(report::row_key_of("auto") == report::RowKey::kAuto);
  CHECK(report::row_key_of("name") == report::RowKey::kName);
  CHECK(report::row_key_of("kind") == report::RowKey::kKind);
  CHECK(report::row_key_of("operator") == report::RowKey::kOperator);
}
