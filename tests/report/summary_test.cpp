#include <catch2/catch.hpp>

#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/breakdown.hpp"
#include "report/comparison.hpp"
#include "report/summary.hpp"
#include "support/op_record.hpp"
#include "synth/megatron.hpp"

using namespace ccsim;

namespace {

// names: 1 "linear", 2 "all_reduce", 3 "compute", 4 "send", 5 "recv"
engine::Result base(int world) {
  engine::Result r = test::hand_made_result(world, {"", "linear", "all_reduce", "compute", "send", "recv"});
  r.has_waits = true;
  return r;
}

engine::OpRecord with_wait(engine::OpRecord op, double wait_s) {
  op.wait_s = wait_s;
  return op;
}

// One rank: 10 ms of compute, then an all_reduce of 5 ms of which 2 ms wait for a peer.
engine::Result compute_then_all_reduce() {
  engine::Result r = base(1);
  r.ops = {{test::record(1, 0, 3, 0, 0.0, 0.010), with_wait(test::record(2, 0, 2, 64, 0.010, 0.015), 0.002)}};
  r.makespan_s = 0.015;
  return r;
}

// Two pipeline stages, one micro-batch: stage 0 computes its forward (0-10 ms), sends the
// activation (10-12), waits for the gradient (recv 12-40, of which 26 ms wait: stage 1 computes
// 12-22 and 22-38, then sends 38-40), and computes its backward (40-60).
engine::Result two_stage_pipeline() {
  engine::Result r = base(2);
  r.stage = {0, 1};
  r.stage_count = 2;
  r.ops = {{test::record(1, 0, 3, 0, 0.0, 0.010), test::record(4, 0, 4, 64, 0.010, 0.012),
            with_wait(test::record(5, 0, 5, 64, 0.012, 0.040), 0.026), test::record(1, 0, 3, 0, 0.040, 0.060)},
           {with_wait(test::record(5, 0, 5, 64, 0.0, 0.012), 0.010), test::record(1, 0, 3, 0, 0.012, 0.022),
            test::record(1, 0, 3, 0, 0.022, 0.038), test::record(4, 0, 4, 64, 0.038, 0.040)}};
  r.makespan_s = 0.060;
  return r;
}

double part(const report::TimeSplit& split, const std::string& name) {
  for (const auto& [p, v] : split.parts()) {
    if (p == name) return v;
  }
  return -1;
}

double sum_of_parts(const report::TimeSplit& split) {
  double sum = 0;
  for (const auto& [p, v] : split.parts()) sum += v;
  return sum;
}

}  // namespace

TEST_CASE("summary: compute and an all_reduce on one rank, by hand", "[report][summary]") {
  const report::Summary s = report::make_summary(compute_then_all_reduce(), {});
  CHECK(s.critical_rank == 0);
  CHECK(s.iteration_s == Approx(0.015));
  CHECK(s.split.compute_s == Approx(0.010));
  CHECK(part(s.split, "all_reduce") == Approx(0.003));  // 5 ms less 2 ms of waiting
  CHECK(s.split.collective_wait_s == Approx(0.002));
  CHECK(s.split.exposed_s() == Approx(0.003));
  CHECK(s.split.overlapped_s == 0);
  CHECK(s.split.bubble_s == 0);
  CHECK(s.split.idle_s == Approx(0).margin(1e-15));
  CHECK(sum_of_parts(s.split) == Approx(s.iteration_s));
  // Without a workload and a peak, the figures say why they are unknown.
  CHECK_FALSE(s.tokens_per_s.value);
  CHECK(s.tokens_per_s.note == "the trace does not give its global batch and sequence length (its \"workload\")");
  CHECK_FALSE(s.mfu.value);
  CHECK(s.mfu.note == "the platform's accelerator has no peak FLOP rate");
}

TEST_CASE("summary: a 2-stage pipeline's bubble is the wait of its receive, not communication", "[report][summary]") {
  const report::Summary s = report::make_summary(two_stage_pipeline(), {});
  CHECK(s.critical_rank == 0);  // ends at 60 ms, stage 1 at 40 ms
  CHECK(s.critical_stage == 0);
  CHECK(s.iteration_s == Approx(0.060));
  CHECK(s.split.compute_s == Approx(0.030));
  CHECK(s.split.bubble_s == Approx(0.026));
  CHECK(part(s.split, "send") == Approx(0.002));
  CHECK(part(s.split, "recv") == Approx(0.002));
  CHECK(s.split.exposed_s() == Approx(0.004));
  CHECK(sum_of_parts(s.split) == Approx(0.060));

  // --rows kind: each table's rows add up to its total (the mean end of its ranks).
  report::BreakdownOptions options;
  options.key = report::RowKey::kKind;
  options.per_rank = true;
  const report::Breakdown b = report::make_breakdown(two_stage_pipeline(), options);
  REQUIRE(b.tables.size() == 4);
  for (const report::Table& t : b.tables) {
    double sum = 0;
    for (const report::Row& row : t.rows) sum += row.time_s;
    CHECK(sum == Approx(t.total_s));
    CHECK(t.rows.back().name == "idle");
  }
  const report::Table& rank1 = b.tables[3];
  CHECK(rank1.total_s == Approx(0.040));
  CHECK(rank1.rows[0].name == "compute");
  CHECK(rank1.rows[0].time_s == Approx(0.026));
  CHECK(rank1.rows[rank1.rows.size() - 3].name == "pipeline bubble");
  CHECK(rank1.rows[rank1.rows.size() - 3].time_s == Approx(0.010));
}

TEST_CASE("summary: communication on a stream of its own overlaps compute", "[report][summary][streams]") {
  // Compute 0-10 ms on stream 0; an all_reduce 4-14 ms on stream 1: 6 ms overlapped, 4 exposed.
  engine::Result r = base(1);
  r.ops = {{test::record(1, 0, 3, 0, 0.0, 0.010), test::record(2, 0, 2, 64, 0.004, 0.014)}};
  r.streams = {std::make_shared<const std::vector<std::uint8_t>>(std::vector<std::uint8_t>{0, 1})};
  r.makespan_s = 0.014;
  const report::Summary s = report::make_summary(r, {});
  CHECK(s.split.compute_s == Approx(0.010));
  CHECK(s.split.overlapped_s == Approx(0.006));
  CHECK(s.split.exposed_s() == Approx(0.004));
  CHECK(sum_of_parts(s.split) == Approx(0.014));
}

TEST_CASE("summary: tokens/s, MFU and HFU from the job's facts", "[report][summary]") {
  report::JobFacts facts;
  facts.global_batch = 8;
  facts.sequence_length = 125;
  facts.tokens_per_iteration = 1000;
  facts.model_flops_per_iteration = 1e12;
  facts.model_flops_source = "by hand";
  facts.executed_flops_per_iteration = 1.2e12;
  facts.peak_flops_per_rank = 1e13;
  facts.accelerator = "X1";
  engine::Result r = two_stage_pipeline();
  const report::Summary s = report::make_summary(r, facts);
  REQUIRE(s.tokens_per_s.value);
  CHECK(*s.tokens_per_s.value == Approx(1000 / 0.060));
  CHECK(s.tokens_per_s.note == "global batch 8 x sequence 125 = 1,000 tokens per iteration");
  REQUIRE(s.mfu.value);
  CHECK(*s.mfu.value == Approx(1e12 / (0.060 * 2 * 1e13)));
  REQUIRE(s.hfu.value);
  CHECK(*s.hfu.value == Approx(1.2e12 / (0.060 * 2 * 1e13)));
  CHECK(s.mfu.note == "1e+12 model FLOPs per iteration (by hand); peak 10 TFLOP/s of X1 x 2 ranks");

  // A trace that does not say how many iterations it holds has no rate.
  r.iterations = 0;
  const report::Summary unknown = report::make_summary(r, facts);
  CHECK_FALSE(unknown.tokens_per_s.value);
  CHECK(unknown.mfu.note == "the trace does not say how many iterations it holds");
  // An imported trace: FLOPs in its operators, no model.
  facts.model_flops_per_iteration = 0;
  facts.compute_ops = 10;
  facts.compute_ops_without_flops = 4;
  const report::Summary imported = report::make_summary(two_stage_pipeline(), facts);
  CHECK_FALSE(imported.mfu.value);
  CHECK(imported.mfu.note ==
        "the trace does not give its model FLOPs per iteration (its \"workload\": no model, e.g. an imported trace)");
  REQUIRE(imported.hfu.value);
  CHECK(imported.hfu.note.ends_with("; a lower bound: 4 of 10 compute operators carry no FLOPs"));
}

TEST_CASE("summary: first in the text, JSON and CSV of a breakdown and a comparison", "[report][summary]") {
  report::JobFacts facts;
  facts.peak_flops_per_rank = 1e13;
  facts.model_flops_per_iteration = 1e12;
  report::Breakdown b = report::make_breakdown(two_stage_pipeline(), {});
  b.summary = report::make_summary(two_stage_pipeline(), facts);
  std::ostringstream text, csv, json;
  report::write_text(b, text);
  INFO(text.str());
  CHECK(text.str().starts_with(
      "Summary of the iteration; critical rank 0 (pipeline stage 0): the rank that finishes last\n"
      "  iteration ms                            60.000\n"));
  CHECK(text.str().find("    pipeline bubble                       26.000\n") != std::string::npos);
  CHECK(text.str().find("  tokens/s: n/a: the trace does not give its global batch") != std::string::npos);
  report::write_json(b, json);
  const auto doc = nlohmann::ordered_json::parse(json.str());
  CHECK(doc.begin().key() == "summary");
  CHECK(doc["summary"]["iteration_ms"] == Approx(60));
  CHECK(doc["summary"]["mfu_pct"]["value"] == Approx(1e12 / (0.060 * 2 * 1e13) * 100));
  CHECK(doc["summary"]["tokens_per_s"]["value"].is_null());
  CHECK(doc["summary"]["pipeline_bubble_ms"] == Approx(26));
  CHECK(doc["summary"]["communication_exposed_ms"] == Approx(4));
  CHECK(doc["summary"]["communication_overlapped_ms"] == 0);
  CHECK(doc["summary"]["time_by_kind"].size() == 6);  // compute, send, recv, bubble, collective wait, idle
  report::write_csv(b, csv);
  std::istringstream lines(csv.str());
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  CHECK(header == "scope,id,row,operator,label,calls,time_ms,share_pct,wait_ms,value");
  CHECK(first == "summary,0,1,iteration_ms,,,60.000000,100.0000,,60.000000");
  CHECK(csv.str().find("\nsummary,0,3,mfu_pct,") != std::string::npos);
  CHECK(csv.str().find("\nsummary,0,7,pipeline_bubble_ms,,,26.000000,43.3333,,26.000000\n") != std::string::npos);

  report::Comparison c = report::compare(two_stage_pipeline(), two_stage_pipeline(), {});
  c.a_summary = report::make_summary(two_stage_pipeline(), facts);
  c.b_summary = report::make_summary(two_stage_pipeline(), facts);
  std::ostringstream ctext, cjson, ccsv;
  report::write_text(c, ctext);
  CHECK(ctext.str().find("                                           plain      compressed\n") != std::string::npos);
  report::write_json(c, cjson);
  const auto cdoc = nlohmann::ordered_json::parse(cjson.str());
  CHECK(cdoc.begin().key() == "summary");
  CHECK(cdoc["summary"]["compressed"]["iteration_ms"] == Approx(60));
  report::write_csv(c, ccsv);
  CHECK(ccsv.str().find(",plain_value,compressed_value\nsummary,0,1,iteration_ms,,60.000000,60.000000,1.000000,,,,,,,"
                        "60.000000,60.000000\n") != std::string::npos);
}

TEST_CASE("synthesized GPT: the trace carries Megatron's model FLOPs and its batch", "[report][summary][synth]") {
  synth::ModelSpec gpt;
  gpt.name = "tiny-gpt";
  gpt.layers = 4;
  gpt.hidden = 256;
  gpt.heads = 8;
  gpt.kv_heads = 8;
  gpt.ffn = 4 * 256;
  gpt.vocab = 1000;
  gpt.seq = 128;
  gpt.activation = synth::Activation::kGelu;
  synth::Parallelism par;
  par.tp = 2;
  par.pp = 2;
  par.dp = 2;
  par.micro_batches = 4;
  par.micro_batch_size = 2;
  const trace::Trace t = synth::synthesize(gpt, par, "local");
  REQUIRE(t.workload);
  const double B = 4 * 2 * 2, s = 128, l = 4, h = 256, V = 1000;
  CHECK(t.workload->global_batch == 16);
  CHECK(t.workload->sequence_length == 128);
  // Korthikanti et al. 2022 (model FLOPs, no recomputation): 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
  const double model_flops = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  CHECK(t.workload->model_flops == Approx(model_flops).epsilon(1e-12));

  // MFU of an iteration of 50 ms on 8 ranks of 1 TFLOP/s.
  report::JobFacts facts;
  facts.tokens_per_iteration = t.workload->tokens();
  facts.model_flops_per_iteration = t.workload->model_flops;
  facts.peak_flops_per_rank = 1e12;
  engine::Result r = base(8);
  r.ops.resize(8);
  for (int k = 0; k < 8; ++k)
    r.ops.writable(static_cast<std::size_t>(k)).push_back(test::record(1, 0, 3, 0, 0.0, 0.050));
  r.makespan_s = 0.050;
  const report::Summary summary = report::make_summary(r, facts);
  REQUIRE(summary.mfu.value);
  CHECK(*summary.mfu.value == Approx(model_flops / (0.050 * 8 * 1e12)));
  CHECK(*summary.tokens_per_s.value == Approx(16 * 128 / 0.050));
}

TEST_CASE("money and counts in fixed notation with thousands separators, never 4.263e+04", "[report][summary]") {
  CHECK(report::format_thousands(42630.123, 2) == "42,630.12");
  CHECK(report::format_thousands(999.995, 2) == "1,000.00");  // rounding carries into a new group
  CHECK(report::format_thousands(-1234567, 0) == "-1,234,567");
  CHECK(report::format_thousands(12, 0) == "12");
  CHECK(report::format_thousands(-0.001, 2) == "0.00");
  CHECK(report::format_thousands(1e7, 0) == "10,000,000");
}
