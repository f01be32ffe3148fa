#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/input_error.hpp"
#include "import/kineto.hpp"
#include "import/shapes.hpp"
#include "trace/validate.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;

namespace {

const std::string kData = std::string(CCSIM_SOURCE_DIR) + "/tests/data/kineto/";

import::RankProfile parse(const std::string& text, const std::string& file = "t.json"){std::istringstream in(text);
return import::read_rank_profile(in, file);
}  // namespace

std::string ev(const std::string& name, double ts, double dur, const std::string& args = "{}", int tid = 1) {
  return R"({"ph":"X","name":")" + name + R"(","pid":0,"tid":)" + std::to_string(tid) + R"(,"ts":)" +
         std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":)" + args + "}";
}

std::string doc(const std::vector<std::string>& events, int rank = 0, int world = 1) {
  std::string s = R"({"schemaVersion":1,"distributedInfo":{"backend":"gloo","rank":)" + std::to_string(rank) +
                  R"(,"world_size":)" + std::to_string(world) + R"(},"traceEvents":[)";
  for (std::size_t i = 0; i < events.size(); ++i) s += (i ? "," : "") + events[i];
  return s + "]}";
}

/// The ops of one rank as "row=µs" in order.
std::vector<std::string> ops_of(const import::KinetoImport& r, int rank = 0) {
  std::vector<std::string> out;
  const auto& ops = r.trace.programs[static_cast<std::size_t>(rank)].ops;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "=%g", r.ranks[static_cast<std::size_t>(rank)].op_ms[i] * 1000);  // µs
    out.push_back(import::breakdown_row(r.trace, ops[i]) + buf);
  }
  return out;
}

}  // namespace

TEST_CASE("kineto SAX reader keeps the fields it needs and streams by thread", "[import]") {
  const auto p =
      parse(doc({R"({"ph":"M","name":"process_name","pid":0,"args":{"name":"rank 0"}})",
                 ev("aten::mm", 10, 5, R"({"Input Dims":[[64,256],[256,128]],"Sequence number":7,"x":[1,{"y":2}]})"),
                 ev("gloo:all_reduce", 11, 3, R"({"Input Dims":[[64]],"async":true})", 3),
                 R"({"ph":"B","name":"begin-end","pid":0,"tid":1,"ts":1})"},
                2, 4));
  CHECK(p.rank == 2);
  CHECK(p.world_size == 4);
  REQUIRE(p.events.size() == 2);
  CHECK(p.name(p.events[0]) == "aten::mm");
  CHECK(p.events[0].sequence == 7);
  CHECK(p.input_dims(p.events[0]) == std::vector<std::vector<std::int64_t>>{{64, 256}, {256, 128}});
  CHECK(p.streams.size() == 2);
  CHECK(p.streams[p.events[1].stream].kind == import::StreamKind::kHostAsync);
  CHECK(p.metadata_events == 1);
  CHECK(p.unknown.at("ph=B begin-end") == 1);
}

TEST_CASE("kineto reader: truncated and malformed files name the file and the byte", "[import]") {
  const std::string good = doc({ev("Iteration#0", 0, 10)});
  CHECK_THROWS_WITH(parse(good.substr(0, good.size() - 7), "rank3.json"),
                    Contains("rank3.json") && Contains("byte") && Contains("truncated or malformed"));
  CHECK_THROWS_WITH(parse("{\"traceEvents\":[{\"ph\":\"X\",,}]}", "r.json"),
                    Contains("r.json: byte 2") && Contains("malformed"));
  CHECK_THROWS_WITH(parse(doc({R"({"ph":"X","name":"a","tid":1,"ts":5})"})),
                    Contains("traceEvents[0].dur") && Contains("missing"));
  CHECK_THROWS_WITH(parse(doc({ev("a", 1, 1), R"({"ph":"X","name":"b","tid":1,"ts":"x","dur":1})"})),
                    Contains("traceEvents[1].ts"));
  CHECK_THROWS_WITH(parse(R"({"other":1})"), Contains("traceEvents"));
}

TEST_CASE("kineto import: every microsecond of the iteration to exactly one operator", "[import]") {
  // Iteration 0..100: gap 0-10, op:linear 10-40 holding an aten::addmm (12-30) and a ccl
  // all_reduce (32-38), gap 40-50 with an unknown event, backward 50-90 linked by sequence
  // number to the linear region, gap 90-100.
  const auto p = parse(doc({
      ev("Iteration#0", 0, 100),
      ev("op:linear:L0.mlp.up", 10, 30),
      ev("aten::addmm", 12, 18, R"({"Input Dims":[[512],[64,256],[256,512]],"Sequence number":5})"),
      ev("ccl:all_reduce bytes=65536 dtype=float32 shape=64x256 group=tp0 ranks=0 phase=fwd tag=L0.mlp", 32, 6),
      ev("c10d::allreduce_", 33, 1),
      ev("MyPythonThing", 42, 3),
      ev("autograd::engine::evaluate_function: AddmmBackward0", 50, 40, R"({"Sequence number":5})"),
      ev("aten::mm", 52, 10, R"({"Input Dims":[[64,512],[512,256]]})"),
      ev("gloo:all_reduce", 33, 4, R"({"async":true})", 3),
  }));
  const auto r = import::import_kineto({p}, {});
  CHECK(ops_of(r) == std::vector<std::string>{"python_untraced=10", "linear(mlp.up)=22", "all_reduce(tp:mlp)=6",
                                              "linear(mlp.up)=2", "python_untraced=10", "linear(mlp.up)=40",
                                              "python_untraced=10"});
  CHECK(r.ranks[0].ops_ms == Approx(r.ranks[0].iteration_ms));
  CHECK(r.ranks[0].unknown.at("MyPythonThing") == 1);
  const auto& ops = r.trace.programs[0].ops;
  CHECK(ops[1].flops == Approx(2.0 * 64 * 256 * 512 + 64 * 512));
  CHECK(ops[5].flops == Approx(2.0 * 64 * 512 * 256));
  CHECK(ops[2].bytes == 65536);
  CHECK(r.trace.groups.at(0).name == "tp0");
  CHECK(r.trace.groups.at(0).kind == trace::GroupKind::kTensor);
}

TEST_CASE("kineto import: events that cross an end count each microsecond once", "[import]") {
  // Iteration 0..100: op:linear 10-40, op:softmax 30-60 crossing linear's end (its 30-40 is
  // linear's already), a ccl call 60-80 with another call inside it (65-70: not an operator
  // of its own), a ccl call 90-110 crossing the iteration's end (counted up to 100).
  const auto p = parse(doc({
      ev("Iteration#0", 0, 100),
      ev("op:linear:L0.mlp.up", 10, 30),
      ev("op:softmax:L0.attn.softmax", 30, 30),
      ev("ccl:all_reduce bytes=1024 dtype=float32 shape=256 group=tp0 ranks=0 phase=fwd tag=L0.mlp", 60, 20),
      ev("ccl:broadcast bytes=1024 dtype=float32 shape=256 group=tp0 ranks=0 phase=fwd tag=L0.x", 65, 5),
      ev("ccl:all_reduce bytes=2048 dtype=float32 shape=512 group=tp0 ranks=0 phase=fwd tag=L0.attn", 90, 20),
  }));
  const auto r = import::import_kineto({p}, {});
  CHECK(ops_of(r) == std::vector<std::string>{"python_untraced=10", "linear(mlp.up)=30", "softmax(attn.softmax)=20",
                                              "all_reduce(tp:mlp)=20", "python_untraced=10", "all_reduce(tp:attn)=10"});
  CHECK(r.ranks[0].ops_ms == Approx(r.ranks[0].iteration_ms));
  CHECK(r.ranks[0].not_nested == 1);
  CHECK(r.ranks[0].crossing_iteration_end == 1);
  CHECK(r.ranks[0].nested_calls == std::map<std::string, std::uint64_t>{{"ccl:broadcast", 1}});
  CHECK(r.trace.programs[0].ops[5].measured_s == Approx(10e-6));
}

TEST_CASE("kineto import: shapes beyond what a trace counts are refused, naming the event", "[import]") {
  // A GEMM of 2^32 x 2^32 x 2^32 moves 2^66 bytes: no native trace can hold that count
  // (found by the kineto fuzzer: the cast to an integer count was undefined behaviour).
  const auto huge =
      parse(doc({ev("Iteration#0", 0, 100), ev("op:linear:L0.mlp.up", 10, 30),
                 ev("aten::mm", 12, 18, R"({"Input Dims":[[4294967296,4294967296],[4294967296,4294967296]]})")}));
  CHECK_THROWS_WITH(import::import_kineto({huge}, {}),
                    Contains("traceEvents[2].args.Input Dims") && Contains("bytes") && Contains("aten::mm"));
  // Two that each fit but not together in one operator.
  const auto two = parse(doc({ev("Iteration#0", 0, 100), ev("op:linear:L0.mlp.up", 10, 30),
                              ev("aten::relu", 12, 5, R"({"Input Dims":[[100000000000,1000]]})"),
                              ev("aten::relu", 20, 5, R"({"Input Dims":[[100000000000,1000]]})")}));
  CHECK_THROWS_WITH(import::import_kineto({two}, {}),
                    Contains("traceEvents[3].args.Input Dims") && Contains("1.1259e+15 bytes per operator"));
  // Extents that are not positive give no cost at all (an op of unknown size), not an error.
  const auto negative =
      parse(doc({ev("Iteration#0", 0, 100), ev("aten::relu", 12, 18, R"({"Input Dims":[[-64,256]]})")}));
  CHECK_NOTHROW(import::import_kineto({negative}, {}));
}

TEST_CASE("kineto import: unlinked backward nodes and the step phase", "[import]") {
  const auto p = parse(doc({
      ev("Iteration#3", 0, 30),
      ev("autograd::engine::evaluate_function: ReluBackward0", 0, 10, R"({"Sequence number":99})"),
      ev("autograd::engine::evaluate_function: FooBackward0", 10, 10),
      ev("op:optimizer:sgd", 20, 10),
  }));
  const auto r = import::import_kineto({p}, {});
  CHECK(r.ranks[0].iteration == "Iteration#3");
  CHECK(ops_of(r) ==
        std::vector<std::string>{"relu(bwd-unlinked)=10", "bwd_other(FooBackward0)=10", "optimizer(sgd)=10"});
  import::KinetoOptions o;
  o.iteration = 2;
  CHECK_THROWS_WITH(import::import_kineto({p}, o), Contains("no Iteration#2") && Contains("it has 3"));
}

TEST_CASE("kineto import: send/recv peers, pipeline groups and bad ccl names", "[import]") {
  const auto r0 = parse(doc(
      {ev("Iteration#0", 0, 10),
       ev("ccl:send bytes=1024 dtype=float32 shape=256 group=pp src=0 dst=1 ranks=0,1 phase=fwd tag=act.mb0", 1, 2)},
      0, 2));
  const auto r1 = parse(doc(
      {ev("Iteration#0", 0, 10),
       ev("ccl:recv bytes=1024 dtype=float32 shape=256 group=pp src=0 dst=1 ranks=0,1 phase=fwd tag=act.mb0", 1, 5)},
      1, 2));
  const auto r = import::import_kineto({r1, r0}, {});
  trace::validate(r.trace);
  REQUIRE(r.trace.groups.size() == 1);
  CHECK(r.trace.groups[0].kind == trace::GroupKind::kPipeline);
  CHECK(r.trace.groups[0].ranks == std::vector<int>{0, 1});
  CHECK(r.trace.programs[0].ops[1].kind == trace::OpKind::kSend);
  CHECK(r.trace.programs[0].ops[1].peer == 1);
  CHECK(r.trace.programs[1].ops[1].kind == trace::OpKind::kRecv);
  CHECK(r.trace.programs[1].ops[1].peer == 0);
  CHECK(r.trace.op_label(r.trace.programs[1].ops[1]) == "pp:act");
  CHECK(r.trace.names[r.trace.programs[1].ops[1].tag] == "act.mb0");

  const auto bad = [](const std::string& name) {
    return import::import_kineto({parse(doc({ev("Iteration#0", 0, 10), ev(name, 1, 2)}), "bad.json")}, {});
  };
  CHECK_THROWS_WITH(bad("ccl:all_reduce bytes=x dtype=float32 group=tp0 ranks=0"),
                    Contains("bad.json: field 'traceEvents[1].name'") && Contains("bytes"));
  CHECK_THROWS_WITH(bad("ccl:all_reduce bytes=8 dtype=float32 group=tp0"), Contains("without ranks="));
  CHECK_THROWS_WITH(bad("ccl:all_reduce bytes=8 dtype=float32 group=tp0 ranks=1,2"),
                    Contains("ranks: rank 1 but the import has 1 rank file (ranks 0..0)"));
  CHECK_THROWS_WITH(bad("ccl:all_reduce bytes=8 dtype=float32 group=tp0 ranks=0,0"), Contains("rank 0 twice"));
  CHECK_THROWS_WITH(bad("ccl:send bytes=8 dtype=float32 group=pp src=0 dst=4294967297 ranks=0"),
                    Contains("dst: rank 4294967297 but the import has 1 rank file"));
  {
    // Ranks in range, but the file's own rank is not in the group.
    std::vector<import::RankProfile> three;
    three.push_back(parse(
        doc({ev("Iteration#0", 0, 10), ev("ccl:all_reduce bytes=8 dtype=float32 group=tp0 ranks=1,2", 1, 2)}, 0, 3),
        "bad.json"));
    for (int rank : {1, 2}) three.push_back(parse(doc({ev("Iteration#0", 0, 10)}, rank, 3)));
    CHECK_THROWS_WITH(import::import_kineto(three, {}), Contains("does not hold rank 0"));
  }
  CHECK_THROWS_WITH(bad("ccl:frobnicate bytes=8"), Contains("unknown ccl operation"));
  CHECK_THROWS_WITH(bad("ccl:all_reduce bytes=8 dtype=float99 group=tp0 ranks=0"), Contains("dtype"));
}

TEST_CASE("FLOPs and bytes from recorded shapes", "[import]") {
  const auto c = [](const char* name, std::vector<std::vector<std::int64_t>> dims) {
    return import::op_cost(name, dims, 4);
  };
  CHECK(c("aten::mm", {{64, 256}, {256, 128}}).flops == Approx(2.0 * 64 * 256 * 128));
  CHECK(c("aten::mm", {{64, 256}, {256, 128}}).bytes == Approx(4.0 * (64 * 256 + 256 * 128 + 64 * 128)));
  CHECK(c("aten::addmm", {{768}, {64, 256}, {256, 768}, {}, {}}).flops == Approx(2.0 * 64 * 256 * 768 + 64 * 768));
  CHECK(c("aten::bmm", {{8, 64, 32}, {8, 32, 64}}).flops == Approx(2.0 * 8 * 64 * 32 * 64));
  CHECK(c("aten::baddbmm", {{8, 64, 64}, {8, 64, 32}, {8, 32, 64}, {}, {}}).flops == Approx(2.0 * 8 * 64 * 32 * 64));
  CHECK(c("aten::linear", {{64, 1, 256}, {384, 256}, {384}}).flops == Approx(2.0 * 64 * 256 * 384 + 64 * 384));
  CHECK(c("aten::matmul", {{64, 256}, {256, 128}}).flops == Approx(2.0 * 64 * 256 * 128));
  CHECK(c("aten::relu", {{64, 1024}}).bytes == Approx(2.0 * 4 * 64 * 1024));
  CHECK_FALSE(c("aten::mm", {{64, 256}, {128, 128}}).known);
  CHECK_FALSE(c("aten::view", {{64, 256}}).known);
}

TEST_CASE("kineto import of the tp2_pp2 cuts agrees with the measurement", "[import]") {
  // it0/ and it1/ hold the run's two profiled steps (one per directory, to keep files small);
  // summary.json's rows are means over both.
  std::vector<import::KinetoImport> steps;
  for (const std::string dir : {"it0", "it1"}) {
    std::vector<import::RankProfile> profiles;
    for (const auto& f : import::kineto_rank_files({kData + "tp2_pp2/" + dir}))
      profiles.push_back(import::read_rank_profile_file(f));
    REQUIRE(profiles.size() == 4);
    steps.push_back(import::import_kineto(profiles, {}));
    trace::validate(steps.back().trace);
  }
  CHECK(steps[0].ranks[0].iteration == "Iteration#0");
  CHECK(steps[1].ranks[0].iteration == "Iteration#1");
  const auto summary = import::read_run_summary(kData + "tp2_pp2/summary.json");
  std::map<std::string, int> kinds;
  for (const auto& g : steps[0].trace.groups) ++kinds[std::string(trace::group_kind_name(g.kind))];
  CHECK(kinds["tensor"] == 2);
  CHECK(kinds["pipeline"] == 2);
  for (int rank = 0; rank < 4; ++rank) {
    INFO("rank " << rank);
    std::map<std::string, double> mine;  // mean over the two steps
    for (const auto& step : steps) {
      const auto& imported = step.ranks[static_cast<std::size_t>(rank)];
      // The per-rank total equals the Iteration#k duration within 1 %.
      CHECK(std::abs(imported.ops_ms - imported.iteration_ms) <= 0.01 * imported.iteration_ms);
      const auto& ops = step.trace.programs[static_cast<std::size_t>(rank)].ops;
      for (std::size_t i = 0; i < ops.size(); ++i)
        mine[import::breakdown_row(step.trace, ops[i])] += imported.op_ms[i] / 2;
    }
    // Every row of summary.json within 3 % (0.1 ms for the tiny rows), and no row it lacks.
    const auto& rows = summary.rows.at(static_cast<std::size_t>(rank));
    REQUIRE(rows.size() > 20);
    for (const auto& [row, ms] : rows) {
      INFO(row << ": imported " << mine[row] << " ms, summary " << ms << " ms");
      CHECK(std::abs(mine[row] - ms) <= std::max(0.03 * ms, 0.1));
    }
    for (const auto& [row, ms] : mine) {
      INFO("imported row " << row << " is not in summary.json");
      CHECK(rows.count(row) == 1);
    }
    // GEMMs carry FLOPs: the forward qkv of one micro-batch, [64, 256] x [256, 384] (3h/tp).
    const auto& ops = steps[0].trace.programs[static_cast<std::size_t>(rank)].ops;
    bool qkv = false;
    for (const auto& op : ops)
      if (import::breakdown_row(steps[0].trace, op) == "linear(attn.qkv)" && op.flops >= 2.0 * 64 * 256 * 384)
        qkv = true;
    CHECK(qkv);
    CHECK(steps[0].ranks[static_cast<std::size_t>(rank)].unknown.count("CopyToTP") == 1);

    // Messages against the run's configuration: seq 64, micro-batch 1, hidden 256, fp32,
    // 4 micro-batches, 2 layers per stage, GPipe over 2 stages.
    const std::uint64_t activation = 64 * 1 * 256 * 4;
    const int micro_batches = 4, layers = 2;
    int all_reduces = 0, sends = 0, recvs = 0;
    for (const auto& op : ops) {
      if (op.kind == trace::OpKind::kCompute) continue;
      CHECK(op.bytes == activation);
      all_reduces += op.kind == trace::OpKind::kAllReduce;
      sends += op.kind == trace::OpKind::kSend;
      recvs += op.kind == trace::OpKind::kRecv;
    }
    CHECK(all_reduces == layers * micro_batches * 2 * 2);  // attn and mlp, forward and backward
    CHECK(sends == micro_batches);                         // activations forward or gradients back
    CHECK(recvs == micro_batches);
  }
}

namespace {

/// The import of `text` (one rank's profile) read whole and read for one iteration, as
/// "row=µs" lists, with the reader's counts.
struct TwoWays {
  import::RankProfile whole, window;
  import::KinetoImport from_whole, from_window;
};
TwoWays both_ways(const std::string& text, int k) {
  std::istringstream a(text), b(text);
  TwoWays t{import::read_rank_profile(a, "r.json"),
            import::read_rank_profile(b, "r.json", import::ProfileWindow::iteration(k)),
            {},
            {}};
  import::KinetoOptions o;
  o.iteration = k;
  t.from_whole = import::import_kineto({t.whole}, o);
  t.from_window = import::import_kineto({t.window}, o);
  return t;
}

}  // namespace

TEST_CASE("kineto reader: one iteration read alone imports as the whole file does", "[import]") {
  // A profile of three steps; the reader keeps the chosen step's events (and every Iteration#k).
  std::vector<std::string> events;
  for (int k = 0; k < 3; ++k) {
    const double t = 1000.0 * k;
    events.push_back(ev("Iteration#" + std::to_string(k), t, 100));
    events.push_back(ev("op:linear:L0.mlp.up", t + 10, 30));
    events.push_back(
        ev("aten::addmm", t + 12, 18,
           R"({"Input Dims":[[512],[64,256],[256,512]],"Sequence number":)" + std::to_string(5 + k) + "}"));
    events.push_back(ev("autograd::engine::evaluate_function: AddmmBackward0", t + 50, 40,
                        R"({"Sequence number":)" + std::to_string(5 + k) + "}"));
    events.push_back(ev("gloo:all_reduce", t + 33, 4, R"({"async":true})", 3));
    events.push_back(ev("MyPythonThing", t + 42, 3));
  }
  events.push_back(R"({"ph":"i","name":"marker","pid":0,"tid":1,"ts":5})");
  const std::string text = doc(events);
  for (int k : {-1, 0, 2}) {
    INFO("iteration " << k);
    const TwoWays t = both_ways(text, k);
    CHECK(t.whole.events.size() == 18);
    CHECK(t.window.events.size() == 3 + 5);  // the three Iteration#k, and the step's five others
    CHECK(t.window.dropped == 10);
    CHECK(t.window.passes == 1);  // each step's events come after its Iteration#k
    CHECK(t.window.streams.size() == t.whole.streams.size());
    CHECK(ops_of(t.from_window) == ops_of(t.from_whole));
    const auto& w = t.from_window.ranks[0];
    const auto& h = t.from_whole.ranks[0];
    CHECK(w.iteration == h.iteration);
    CHECK(w.outside_iteration == h.outside_iteration);
    CHECK(w.outside_iteration == 12);
    CHECK(w.unknown == h.unknown);
    REQUIRE(w.streams.size() == h.streams.size());
    for (std::size_t s = 0; s < w.streams.size(); ++s) {
      CHECK(w.streams[s].events == h.streams[s].events);
      CHECK(w.streams[s].by_name == h.streams[s].by_name);
    }
  }
}

TEST_CASE("kineto reader: one iteration's window checks the whole file and names what is missing", "[import]") {
  const auto window = [](const std::string& text, int k) {
    std::istringstream in(text);
    return import::read_rank_profile(in, "r.json", import::ProfileWindow::iteration(k));
  };
  // A malformed event after the iteration is still an error, named as before.
  CHECK_THROWS_WITH(
      window(doc({ev("Iteration#0", 0, 10), ev("a", 1, 1), R"({"ph":"X","name":"b","tid":1,"ts":500})"}), 0),
      Contains("traceEvents[2].dur") && Contains("missing"));
  const std::string text = doc({ev("Iteration#3", 0, 10), ev("a", 1, 1), ev("Iteration#4", 20, 10), ev("b", 21, 1)});
  // An iteration the file lacks: the importer lists those it has.
  import::KinetoOptions o;
  o.iteration = 7;
  CHECK_THROWS_WITH(import::import_kineto({window(text, 7)}, o), Contains("no Iteration#7") && Contains("it has 3, 4"));
  // The default is the smallest k, wherever it stands in the file.
  const std::string later_first =
      doc({ev("Iteration#9", 100, 10), ev("b", 101, 1), ev("Iteration#2", 0, 10), ev("a", 1, 1)});
  const auto r = import::import_kineto({window(later_first, -1)}, {});
  CHECK(r.ranks[0].iteration == "Iteration#2");
  CHECK(ops_of(r) == std::vector<std::string>{"python_untraced=10"});
  // A repeated Iteration#k is named, as when the whole file is read.
  CHECK_THROWS_WITH(import::import_kineto({window(doc({ev("Iteration#1", 0, 10), ev("Iteration#1", 50, 10)}), 1)}, {}),
                    Contains("a second Iteration#1"));
  // Events out of time order: one that starts in the iteration came long before its
  // Iteration#k in the file (after a later one), so the file is read again with the window
  // known; an enclosing step event a tick earlier is taken in one pass.
  for (int k : {-1, 1}) {
    const std::string unordered = doc({ev("a", 101, 1), ev("late", 500, 1), ev("Iteration#1", 100, 10), ev("b", 102, 1),
                                       ev("Iteration#0", 0, 10), ev("c", 1, 1)});
    const TwoWays t = both_ways(unordered, k);
    CHECK(t.window.passes == 2);
    CHECK(ops_of(t.from_window) == ops_of(t.from_whole));
    CHECK(t.from_window.ranks[0].outside_iteration == t.from_whole.ranks[0].outside_iteration);
  }
  // Thousands of events within a microsecond, before the Iteration#k that takes them all.
  std::vector<std::string> dense;
  for (int i = 0; i < 3000; ++i) dense.push_back(ev("aten::view", 1 + 1e-4 * i, 0));
  dense.push_back(ev("Iteration#0", 0.5, 10));
  const TwoWays d = both_ways(doc(dense), 0);
  CHECK(d.window.passes == 1);
  CHECK(d.window.events.size() == 3001);
  CHECK(ops_of(d.from_window) == ops_of(d.from_whole));
  const std::string step = doc({ev("ProfilerStep#5", 99.5, 20), ev("Iteration#5", 100, 10), ev("a", 101, 1)});
  const TwoWays t = both_ways(step, 5);
  CHECK(t.window.passes == 1);
  CHECK(t.window.events.size() == 3);
  CHECK(ops_of(t.from_window) == ops_of(t.from_whole));
  CHECK(t.from_window.ranks[0].streams[0].events == t.from_whole.ranks[0].streams[0].events);
  CHECK_FALSE(import::iteration_number("Iteration#"));
  CHECK_FALSE(import::iteration_number("Iteration#-1"));
  CHECK_FALSE(import::iteration_number("Iteration#99999999999"));
  CHECK(import::iteration_number("Iteration#12") == 12);
}

TEST_CASE("kineto reader: the tp2_pp2 steps joined into one profile import each step as its cut does", "[import]") {
  // it0/ and it1/ hold one step each of one run (real timestamps): joined per rank, they are
  // the profile of two steps that torch.profiler wrote; each step read through its window
  // imports as the cut that holds it alone.
  std::vector<std::vector<import::RankProfile>> cuts(2);
  std::vector<std::string> joined(4);
  for (int rank = 0; rank < 4; ++rank) {
    for (int k = 0; k < 2; ++k) {
      const std::string file = kData + "tp2_pp2/it" + std::to_string(k) + "/rank" + std::to_string(rank) + ".json";
      cuts[static_cast<std::size_t>(k)].push_back(import::read_rank_profile_file(file));
      std::ifstream in(file);
      std::stringstream buf;
      buf << in.rdbuf();
      const std::string text = buf.str();
      const auto open = text.find("\"traceEvents\"");
      REQUIRE(open != std::string::npos);
      const auto first = text.find('[', open) + 1, last = text.rfind(']');
      std::string& j = joined[static_cast<std::size_t>(rank)];
      j = j.empty() ? text.substr(0, last) : j + "," + text.substr(first, last - first);
    }
    joined[static_cast<std::size_t>(rank)] += "]}";
  }
  for (int k = 0; k < 2; ++k) {
    INFO("iteration " << k);
    std::vector<import::RankProfile> windows;
    for (int rank = 0; rank < 4; ++rank) {
      std::istringstream in(joined[static_cast<std::size_t>(rank)]);
      windows.push_back(import::read_rank_profile(in, "joined.json", import::ProfileWindow::iteration(k)));
      const auto& cut = cuts[static_cast<std::size_t>(k)][static_cast<std::size_t>(rank)];
      const auto& other = cuts[static_cast<std::size_t>(1 - k)][static_cast<std::size_t>(rank)];
      CHECK(windows.back().events.size() <= cut.events.size() + 1);  // and the other step's Iteration#k
      CHECK(windows.back().passes == 1);                             // the profiler writes its events in time order
      CHECK(windows.back().dropped + 1 >= other.events.size());
    }
    import::KinetoOptions o;
    o.iteration = k;
    const auto from_cut = import::import_kineto(cuts[static_cast<std::size_t>(k)], o);
    const auto from_window = import::import_kineto(windows, o);
    for (int rank = 0; rank < 4; ++rank) {
      INFO("rank " << rank);
      CHECK(from_window.ranks[static_cast<std::size_t>(rank)].iteration == "Iteration#" + std::to_string(k));
      CHECK(ops_of(from_window, rank) == ops_of(from_cut, rank));
    }
  }
}
