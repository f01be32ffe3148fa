#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "core/input_error.hpp"
#include "trace/native_reader.hpp"
#include "trace/native_writer.hpp"
#include "support/error_of.hpp"

using ccsim::InputError;
using namespace ccsim::trace;

namespace {

// Version 2: TP 2 x PP 2 on 4 ranks, one program per pipeline stage. Stage 0's operators are
// on lines 14-16, stage 1's on lines 19-21.
const std::string kStage0 = R"(      {"kind": "compute", "name": "linear", "flops": 1e9},
      {"kind": "all_reduce", "group": "@tensor", "bytes": 1024, "dtype": "fp16"},
      {"kind": "send", "peer": "@pipeline+1", "bytes": 64, "dtype": "fp16", "tag": "act"})";
const std::string kStage1 =
    R"(      {"kind": "recv", "peer": "@pipeline-1", "bytes": 64, "dtype": "fp16", "tag": "act"},
      {"kind": "compute", "name": "linear", "flops": 1e9},
      {"kind": "all_reduce", "group": "@tensor", "bytes": 1024, "dtype": "fp16"})";

std::string two_stages(const std::string& ops0 = kStage0, const std::string& ops1 = kStage1,
                       const std::string& ranks0 = "[[0, 1]]", const std::string& ranks1 = "[2, 3]",
                       const std::string& tp0 = "tp0") {
  return "{\n"
         "  \"format\": \"ccsim-trace\",\n"
         "  \"version\": 2,\n"
         "  \"name\": \"t\",\n"
         "  \"world_size\": 4,\n"
         "  \"groups\": [\n"
         "    {\"name\": \"" +
         tp0 +
         "\", \"kind\": \"tensor\", \"ranks\": [0, 1]},\n"
         "    {\"name\": \"tp1\", \"kind\": \"tensor\", \"ranks\": [2, 3]},\n"
         "    {\"name\": \"pp0\", \"kind\": \"pipeline\", \"ranks\": [0, 2]},\n"
         "    {\"name\": \"pp1\", \"kind\": \"pipeline\", \"ranks\": [1, 3]}\n"
         "  ],\n"
         "  \"programs\": [\n"
         "    {\"ranks\": " +
         ranks0 + ", \"ops\": [\n" + ops0 +
         "\n    ]},\n"
         "    {\"ranks\": " +
         ranks1 + ", \"ops\": [\n" + ops1 +
         "\n    ]}\n"
         "  ]\n"
         "}\n";
}

std::string error_of(const std::string& text) {
  return ccsim::test::message_of([&] { parse_native(text, "t.json"); });
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

std::string written(const Trace& t, int version) {
  std::ostringstream out;
  write_native(t, out, version);
  return out.str();
}

/// Every operator of every rank, as the rank runs it, is the same in both traces.
void check_same_ops(const Trace& a, const Trace& b) {
  REQUIRE(a.world_size == b.world_size);
  for (int rank = 0; rank < a.world_size; ++rank) {
    REQUIRE(a.op_count(rank) == b.op_count(rank));
    for (std::size_t k = 0; k < a.op_count(rank); ++k) {
      const Op x = a.op(rank, k);
      const Op y = b.op(rank, k);
      CHECK(x.kind == y.kind);
      CHECK(x.group == y.group);
      CHECK(x.peer == y.peer);
      CHECK(x.root == y.root);
      CHECK(x.bytes == y.bytes);
      CHECK(x.flops == y.flops);
      CHECK(a.names[x.tag] == b.names[y.tag]);
      CHECK(x.stream == y.stream);
      const auto after_a =
          a.programs[static_cast<std::size_t>(a.program_of[static_cast<std::size_t>(rank)])].after_of(x);
      const auto after_b =
          b.programs[static_cast<std::size_t>(b.program_of[static_cast<std::size_t>(rank)])].after_of(y);
      CHECK(std::vector<std::uint32_t>(after_a.begin(), after_a.end()) ==
            std::vector<std::uint32_t>(after_b.begin(), after_b.end()));
    }
  }
}

}  // namespace

TEST_CASE("version 2: ranks of one program share its operators, partners resolved per rank", "[trace][v2]") {
  const Trace t = parse_native(two_stages(), "t.json");
  REQUIRE(t.world_size == 4);
  CHECK(t.programs.size() == 2);
  CHECK(t.program_op_count() == 6);  // held once per program
  CHECK(t.op_count() == 12);         // run once per rank
  CHECK(t.program_of == std::vector<int>{0, 0, 1, 1});
  CHECK(&t.program_ops(0) == &t.program_ops(1));
  // Rank 1: its own tensor group and the next member of its pipeline group.
  CHECK(t.op(1, 1).group == t.group_index("tp0"));
  CHECK(t.op(1, 2).peer == 3);
  CHECK(t.op(0, 2).peer == 2);
  CHECK(t.op(3, 0).peer == 1);
  CHECK(t.op(2, 2).group == t.group_index("tp1"));
  CHECK(t.op(2, 2).relative == 0);
  CHECK(t.program_ops(2)[2].relative == kGroupByKind);
  CHECK(t.op_field(3, 2) == "programs[1].ops[2]");
  CHECK(t.op(3, 0).line == 19);
}

TEST_CASE("version 2 expands to version 1 and back without changing any rank's operators", "[trace][v2]") {
  const Trace v2 = parse_native(two_stages(), "t.json");
  const std::string v1_text = written(v2, 1);
  CHECK(v1_text.find("\"version\": 1") != std::string::npos);
  CHECK(v1_text.find("\"peer\":3") != std::string::npos);
  CHECK(v1_text.find('@') == std::string::npos);
  const Trace v1 = parse_native(v1_text, "v1.json");
  CHECK(v1.programs.size() == 4);
  check_same_ops(v2, v1);
  const std::string v2_text = written(v2, 2);
  CHECK(v2_text.find(R"({"ranks": [[0,1]], "ops": [)") != std::string::npos);
  CHECK(v2_text.find(R"("peer":"@pipeline+1")") != std::string::npos);
  const Trace again = parse_native(v2_text, "again.json");
  CHECK(again.programs.size() == 2);
  check_same_ops(v2, again);
  CHECK(written(again, 2) == v2_text);
}

TEST_CASE("version 2 names what a program or a rank gets wrong", "[trace][v2]") {
  CHECK(
      error_of(replace(two_stages(), "@tensor", "@model")) ==
      "t.json:15: field 'programs[0].ops[1].group': expected @tensor, @pipeline or @data (the rank's own group of that "
      "kind), got \"@model\"");
  CHECK(error_of(replace(two_stages(), "@tensor", "@data")) ==
        "t.json:15: field 'programs[0].ops[1].group': rank 0 is in no data group");
  CHECK(error_of(replace(two_stages(), "@pipeline+1", "@pipeline+2")) ==
        "t.json:16: field 'programs[0].ops[2].peer': rank 0 is member 0 of pipeline group \"pp0\" (2 ranks): it has no "
        "member 2");
  CHECK(error_of(replace(two_stages(), "@pipeline+1", "pipeline+1")) ==
        "t.json:16: field 'programs[0].ops[2].peer': expected a rank or @tensor|@pipeline|@data followed by +N or -N "
        "(N >= 1: the member N places after or before the rank in its group of that kind), got \"pipeline+1\"");
  CHECK(error_of(replace(two_stages(), "@pipeline+1", "@pipeline+0")) ==
        "t.json:16: field 'programs[0].ops[2].peer': expected a rank or @tensor|@pipeline|@data followed by +N or -N "
        "(N >= 1: the member N places after or before the rank in its group of that kind), got \"@pipeline+0\"");
  // A program names a group of its own: every rank that runs it must be a member.
  CHECK(error_of(replace(two_stages(), "\"group\": \"@tensor\", \"bytes\": 1024, \"dtype\": \"fp16\"}\n    ]",
                         "\"group\": \"tp0\", \"bytes\": 1024, \"dtype\": \"fp16\"}\n    ]")) ==
        "t.json:21: field 'programs[1].ops[2].group': rank 2 is not a member of group \"tp0\" (ranks 0, 1)");
  // Every rank runs exactly one program.
  CHECK(error_of(two_stages(kStage0, kStage1, "[[0, 1]]", "[1, 2, 3]")) ==
        "t.json:18: field 'programs[1].ranks[0]': rank 1 already runs programs[0]; a rank runs exactly one program");
  CHECK(error_of(two_stages(kStage0, kStage1, "[[0, 1]]", "[2]")) ==
        "t.json:12: field 'programs': rank 3 runs no program (each of the world_size 4 ranks runs one)");
  CHECK(error_of(two_stages(kStage0, kStage1, "[[1, 0]]", "[2, 3]")) ==
        "t.json:13: field 'programs[0].ranks[0]': expected a range [first, last] with first <= last, got [1, 0]");
  CHECK(error_of(two_stages(kStage0, kStage1, "[[0, 4]]", "[2, 3]")) ==
        "t.json:13: field 'programs[0].ranks[0]': expected a rank in 0..3 (world_size is 4), got \"4\"");
  CHECK(error_of(two_stages(kStage0, kStage1, "[]", "[2, 3]")) ==
        "t.json:13: field 'programs[0].ranks': expected at least one rank or range, got []");
  CHECK(
      error_of(two_stages(kStage0, kStage1, "[[0, 1]]", "[2, 3]", "@tp0")) ==
      "t.json:7: field 'groups[0].name': expected a name that does not start with '@' (\"@tensor\", ... name a rank's "
      "own group in version 2), got \"@tp0\"");
  // Version 2 has programs, not per-rank entries; other versions are refused.
  CHECK(error_of(replace(two_stages(), "\"programs\"", "\"ranks\"")) ==
        "t.json:1: field 'programs': missing (required)");
  CHECK(error_of(replace(two_stages(), "\"version\": 2", "\"version\": 3")) ==
        "t.json:3: field 'version': expected 1 or 2 (the versions this build reads), got \"3\"");
}

TEST_CASE("version 2 broadcast roots are members of the rank's group", "[trace][v2]") {
  const std::string bcast =
      R"(      {"kind": "broadcast", "group": "@tensor", "bytes": 1024, "dtype": "fp16", "root": "@1"})";
  const Trace t = parse_native(two_stages(bcast, bcast), "t.json");
  CHECK(t.op(0, 0).root == 1);
  CHECK(t.op(2, 0).root == 3);
  CHECK(error_of(two_stages(replace(bcast, "@1", "@2"), bcast)) ==
        "t.json:14: field 'programs[0].ops[0].root': group \"tp0\" of rank 0 has 2 ranks: it has no member 2");
  CHECK(
      error_of(two_stages(replace(bcast, "\"@1\"", "1"), bcast)) ==
      "t.json:14: field 'programs[0].ops[0].root': expected \"@N\" (member N of the group) on a collective of \"@tensor\", "
      "got \"1\"");
}

// Stage 0 with its send on stream 1 after the linear layer, and a second linear layer on
// stream 0 after nothing: lines 14-17.
const std::string kStreams0 = R"(      {"kind": "compute", "name": "linear", "flops": 1e9},
      {"kind": "all_reduce", "group": "@tensor", "bytes": 1024, "dtype": "fp16"},
      {"kind": "send", "peer": "@pipeline+1", "bytes": 64, "dtype": "fp16", "tag": "act", "stream": 1, "after": [0, 1]},
      {"kind": "compute", "name": "linear", "flops": 1e9})";

TEST_CASE("streams and dependencies are read, written and checked", "[trace][v2][streams]") {
  const Trace t = parse_native(two_stages(kStreams0), "t.json");
  REQUIRE(t.programs[0].ops.size() == 4);
  CHECK(t.programs[0].stream_count() == 2);
  CHECK(t.programs[1].stream_count() == 1);
  const Op send = t.op(1, 2);
  CHECK(send.stream == 1);
  const auto after = t.programs[0].after_of(send);
  CHECK(std::vector<std::uint32_t>(after.begin(), after.end()) == std::vector<std::uint32_t>{0, 1});
  CHECK(t.programs[0].after_of(t.op(0, 3)).empty());
  // Both versions keep them (version 1 writes each rank's copy of its program's indices).
  for (int version : {1, 2}) {
    INFO("version " << version);
    check_same_ops(t, parse_native(written(t, version), "w.json"));
  }
  CHECK(written(t, 2).find(R"("stream":1,"after":[0,1])") != std::string::npos);

  // What is wrong is named by file, line and field.
  CHECK(
      error_of(replace(two_stages(kStreams0), "\"after\": [0, 1]", "\"after\": [0, 2]")) ==
      "t.json:16: field 'programs[0].ops[2].after[1]': expected the index of an earlier operator of this list (0..1), "
      "got \"2\"");
  CHECK(error_of(replace(two_stages(kStreams0), "\"after\": [0, 1]", "\"after\": 1")) ==
        "t.json:16: field 'programs[0].ops[2].after': expected an array of operator indices (earlier operators of this "
        "list), e.g. [12]");
  CHECK(error_of(replace(two_stages(kStreams0), "\"stream\": 1", "\"stream\": 64")) ==
        "t.json:16: field 'programs[0].ops[2].stream': expected an integer from 0 to 63, got \"64\"");
  CHECK(
      error_of(replace(two_stages(), "\"name\": \"linear\", \"flops\": 1e9}",
                       "\"name\": \"linear\", \"flops\": 1e9, \"after\": [0]}")) ==
      "t.json:14: field 'programs[0].ops[0].after[0]': the first operator of a list has no earlier operator to follow, "
      "got \"0\"");
  // A rank's collectives on one group are on one stream: their order is the program's.
  CHECK(error_of(replace(two_stages(kStreams0 + R"(,
      {"kind": "all_reduce", "group": "@tensor", "bytes": 1024, "dtype": "fp16", "stream": 1})"),
                         "", "")) ==
        "t.json:18: field 'programs[0].ops[4].stream': rank 0's collectives on group \"tp0\" must all be on one stream "
        "(their order is the program's): operator #4 is on stream 1, operator #1 (line 15) on stream 0");
}

TEST_CASE(
    "version 2 messages and calls that do not match are named as version 1's are, whatever their operators' forms",
    "[trace][v2]") {
  // Validation checks a program's operator forms first (a rank's operators of one form share
  // partners): a problem between forms or between programs falls to the check operator by
  // operator, which names it.
  CHECK(error_of(replace(two_stages(), "\"peer\": \"@pipeline-1\", \"bytes\": 64",
                         "\"peer\": \"@pipeline-1\", \"bytes\": 128")) ==
        "t.json:19: field 'programs[1].ops[0].bytes': recv of 128 bytes from rank 0 (tag \"act\") is matched by a send "
        "of 64 bytes (line 16)");
  // Two calls on the pipeline group, of other sizes in the two programs.
  const std::string pp0 = kStage0 + R"(,
      {"kind": "all_reduce", "group": "@pipeline", "bytes": 32, "dtype": "fp16"})";
  const std::string pp1 = kStage1 + R"(,
      {"kind": "all_reduce", "group": "@pipeline", "bytes": 64, "dtype": "fp16"})";
  CHECK(
      error_of(two_stages(pp0, pp1)) ==
      "t.json:23: field 'programs[1].ops[3].bytes': all_reduce #1 on group \"pp0\" has 64 bytes on rank 2 but 32 bytes "
      "on rank 0 (line 17)");
  CHECK_NOTHROW(parse_native(
      two_stages(pp0, replace(pp1, "\"bytes\": 64, \"dtype\": \"fp16\"}", "\"bytes\": 32, \"dtype\": \"fp16\"}")),
      "t.json"));
  // Two forms that are one channel for rank 0 (@pipeline+1 and rank 2) but not for rank 1.
  const std::string two_sends = kStage0 + R"(,
      {"kind": "send", "peer": 2, "bytes": 64, "dtype": "fp16", "tag": "act", "stream": 1})";
  CHECK(error_of(two_stages(two_sends)) ==
        "t.json:17: field 'programs[0].ops[3].stream': rank 0's sends to rank 2 with tag \"act\" must all be on one "
        "stream (their order is the program's): operator #3 is on stream 1, operator #2 (line 16) on stream 0");
  // The same send on stream 0: one stream, but rank 0 sends twice and rank 2 receives once.
  CHECK(error_of(two_stages(replace(two_sends, ", \"stream\": 1}", "}"))) ==
        "t.json:17: field 'programs[0].ops[3]': send #2 from rank 0 to rank 2 with tag \"act\" has no matching recv "
        "(rank 2 posts 1 recv from rank 0 with this tag)");
}

TEST_CASE("the optional workload is read, written back and checked", "[trace]") {
  const std::string head = "{\"format\": \"ccsim-trace\", \"version\": 1, \"name\": \"t\", \"world_size\": 1,\n";
  const std::string ranks = "\"ranks\": [{\"rank\": 0, \"ops\": []}]}\n";
  Trace t = parse_native(head +
                             "\"workload\": {\"global_batch\": 16, \"sequence_length\": 2048, \"model_flops\": 1.5e15, "
                             "\"model_flops_source\": \"by hand\"},\n" +
                             ranks,
                         "t.json");
  REQUIRE(t.workload);
  CHECK(t.workload->global_batch == 16);
  CHECK(t.workload->sequence_length == 2048);
  CHECK(t.workload->tokens() == 32768);
  CHECK(t.workload->model_flops == 1.5e15);
  CHECK(t.workload->model_flops_source == "by hand");
  const std::string text = written(t, 2);
  CHECK(text.find("  \"workload\": {\"global_batch\":16,\"sequence_length\":2048,\"model_flops\":1.5e+15,"
                  "\"model_flops_source\":\"by hand\"},\n") != std::string::npos);
  const Trace back = parse_native(text, "back.json");
  REQUIRE(back.workload);
  CHECK(back.workload->model_flops == 1.5e15);
  CHECK_FALSE(parse_native(head + ranks, "t.json").workload);
  CHECK(error_of(head + "\"workload\": {\"global_batch\": 0},\n" + ranks) ==
        "t.json:2: field 'workload.global_batch': expected an integer from 1 to 1099511627776, got \"0\"");
  CHECK(error_of(head + "\"workload\": {\"batch\": 4},\n" + ranks).find("workload.batch") != std::string::npos);
}
