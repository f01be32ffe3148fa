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

// A two-rank trace with one tensor group; each rank's ops are given as JSON lines.
// Line numbers: rank 0's first op is on line 9, rank 1's first op follows rank 0's ops + 2.
std::string two_ranks(const std::string& ops0, const std::string& ops1, const std::string& extra_groups = "") {
  return "{\n"
         "  \"format\": \"ccsim-trace\",\n"
         "  \"version\": 1,\n"
         "  \"name\": \"t\",\n"
         "  \"world_size\": 2,\n"
         "  \"groups\": [{\"name\": \"tp0\", \"kind\": \"tensor\", \"ranks\": [0, 1]}" +
         extra_groups +
         "],\n"
         "  \"ranks\": [\n"
         "    {\"rank\": 0, \"ops\": [\n" +
         ops0 +
         "\n    ]},\n"
         "    {\"rank\": 1, \"ops\": [\n" +
         ops1 +
         "\n    ]}\n"
         "  ]\n"
         "}\n";
}

std::string error_of(const std::string& text) {
  return ccsim::test::message_of([&] { parse_native(text, "t.json"); });
}

const std::string kAr = R"(      {"kind": "all_reduce", "group": "tp0", "bytes": 1024, "dtype": "fp32"})";

}  // namespace

TEST_CASE("a valid trace is read with its groups and operators", "[trace]") {
  Trace t = parse_native(two_ranks(R"(      {"kind": "compute", "name": "linear", "label": "qkv", "duration_ms": 2.5},
)" + kAr + R"(,
      {"kind": "send", "peer": 1, "bytes": 64, "tag": 7})",
                                   kAr + R"(,
      {"kind": "recv", "peer": 0, "bytes": 64, "tag": 7})"),
                         "t.json");
  REQUIRE(t.world_size == 2);
  REQUIRE(t.groups.size() == 1);
  CHECK(t.groups[0].kind == GroupKind::kTensor);
  REQUIRE(t.programs[0].ops.size() == 3);
  CHECK(t.programs[0].ops[0].kind == OpKind::kCompute);
  CHECK(t.op_name(t.programs[0].ops[0]) == "linear");
  CHECK(t.op_label(t.programs[0].ops[0]) == "qkv");
  CHECK(t.programs[0].ops[0].duration_s == Approx(2.5e-3));
  CHECK(t.programs[0].ops[0].line == 9);
  CHECK(t.programs[0].ops[1].kind == OpKind::kAllReduce);
  CHECK(t.programs[0].ops[1].bytes == 1024);
  CHECK(t.names[t.programs[0].ops[2].tag] == "7");
  CHECK(t.programs[1].ops[1].peer == 0);
  CHECK(t.pipeline_stage_count() == 1);
}

TEST_CASE("the reader rejects malformed operators word for word", "[trace]") {
  const std::string ok1 = kAr;
  CHECK(error_of(two_ranks(R"(      {"kind": "compute", "name": "linear", "duration_ms": 1, "flop": 10})", "")) ==
        "t.json:9: field 'ranks[0].ops[0].flop': unknown key; did you mean flops? valid keys here: after, bytes, "
        "duration_ms, flops, gemm, kind, label, name, stream");
  CHECK(error_of(two_ranks(R"(      {"kind": "compute", "name": "linear"})", "")) ==
        "t.json:9: field 'ranks[0].ops[0]': a compute operator needs duration_ms, flops or gemm");
  CHECK(error_of(two_ranks(R"(      {"kind": "compute", "name": "linear", "duration_ms": "fast"})", "")) ==
        "t.json:9: field 'ranks[0].ops[0].duration_ms': expected a number, got \"fast\"");
  CHECK(error_of(two_ranks(R"(      {"kind": "matmul", "name": "linear"})", "")) ==
        "t.json:9: field 'ranks[0].ops[0].kind': expected one of compute, all_reduce, all_gather, reduce_scatter, "
        "broadcast, all_to_all, send, recv, got \"matmul\"");
  // Misspellings: the closest name, also for a required key that the misspelling left absent.
  CHECK(error_of(two_ranks(R"(      {"kind": "allreduce", "group": "tp0", "bytes": 1024, "dtype": "fp32"})", ok1)) ==
        "t.json:9: field 'ranks[0].ops[0].kind': expected one of compute, all_reduce, all_gather, reduce_scatter, "
        "broadcast, all_to_all, send, recv, got \"allreduce\"; did you mean all_reduce?");
  CHECK(error_of(two_ranks(R"(      {"kind": "all_reduce", "group": "tp0", "byte": 1024, "dtype": "fp32"})", ok1)) ==
        "t.json:9: field 'ranks[0].ops[0].bytes': missing (required); the object has \"byte\": did you mean bytes?");
  CHECK(error_of(two_ranks(R"(      {"kind": "all_reduce", "group": "tp0", "bytes": -4, "dtype": "fp32"})", ok1)) ==
        "t.json:9: field 'ranks[0].ops[0].bytes': expected an integer from 0 to 1125899906842624, got \"-4\"");
  CHECK(error_of(two_ranks(R"(      {"kind": "all_reduce", "group": "tp0", "bytes": 1022, "dtype": "fp32"})", ok1)) ==
        "t.json:9: field 'ranks[0].ops[0].bytes': expected a multiple of 4 (the size of fp32), got \"1022\"");
  CHECK(error_of(two_ranks(R"(      {"kind": "all_reduce", "group": "tp0", "bytes": 1024, "dtype": "fp12"})", ok1)) ==
        "t.json:9: field 'ranks[0].ops[0].dtype': expected one of fp32, fp16, bf16, fp64, int32, int8, uint8, got "
        "\"fp12\"; did you mean fp32?");
  CHECK(error_of(two_ranks(R"(      {"kind": "all_reduce", "group": "dp0", "bytes": 1024, "dtype": "fp32"})", ok1)) ==
        "t.json:9: field 'ranks[0].ops[0].group': expected one of the groups defined in 'groups' (tp0), got \"dp0\"");
  CHECK(error_of(two_ranks(R"(      {"kind": "send", "peer": 2, "bytes": 8})", "")) ==
        "t.json:9: field 'ranks[0].ops[0].peer': expected a rank in 0..1 (world_size is 2), got \"2\"");
  CHECK(error_of(two_ranks(R"(      {"kind": "send", "peer": 0, "bytes": 8})", "")) ==
        "t.json:9: field 'ranks[0].ops[0].peer': a rank cannot send to itself, got \"0\"");
  CHECK(error_of(
            two_ranks(R"(      {"kind": "broadcast", "group": "tp0", "bytes": 8, "dtype": "fp32", "root": 5})", "")) ==
        "t.json:9: field 'ranks[0].ops[0].root': expected a member of group \"tp0\" (ranks 0, 1), got \"5\"");
}

TEST_CASE("a trace with old Mac (CR) or Windows (CRLF) line ends reports the lines an editor shows", "[trace]") {
  // Every error of a CR-only trace was on line 1: only LF ended a line.
  const std::string lf = two_ranks(R"(      {"kind": "compute", "name": "linear", "duration_ms": 1, "flop": 10})", "");
  for (const std::string end : {"\r", "\r\n"}) {
    std::string text;
    for (char c : lf) text += c == '\n' ? end : std::string(1, c);
    CHECK(error_of(text) ==
          "t.json:9: field 'ranks[0].ops[0].flop': unknown key; did you mean flops? valid keys here: after, bytes, "
          "duration_ms, flops, gemm, kind, label, name, stream");
  }
}

TEST_CASE("the reader rejects operators on groups the rank is not in", "[trace]") {
  std::string text = two_ranks(R"(      {"kind": "all_reduce", "group": "solo", "bytes": 8, "dtype": "fp32"})", "",
                               R"(, {"name": "solo", "kind": "other", "ranks": [1]})");
  CHECK(error_of(text) ==
        "t.json:9: field 'ranks[0].ops[0].group': rank 0 is not a member of group \"solo\" (ranks 1)");
}

TEST_CASE("the reader rejects bad groups", "[trace]") {
  CHECK(error_of(two_ranks("", "", R"(, {"name": "x", "kind": "data", "ranks": [0, 7]})")) ==
        "t.json:6: field 'groups[1].ranks[1]': expected a rank in 0..1 (world_size is 2), got \"7\"");
  CHECK(error_of(two_ranks("", "", R"(, {"name": "tp0", "kind": "data", "ranks": [0]})")) ==
        "t.json:6: field 'groups[1].name': group \"tp0\" is defined twice");
  CHECK(
      error_of(two_ranks("", "", R"(, {"name": "x", "kind": "tensor", "ranks": [1]})")) ==
      "t.json:6: field 'groups[1].ranks[0]': rank 1 is already in tensor group \"tp0\"; a rank belongs to at most one "
      "tensor group");
  CHECK(error_of(two_ranks("", "", R"(, {"name": "x", "kind": "expert", "ranks": [1]})")) ==
        "t.json:6: field 'groups[1].kind': expected one of tensor, pipeline, data, other, got \"expert\"");
  CHECK(error_of(two_ranks("", "", R"(, {"name": "x", "kind": "data", "ranks": [1, 1]})")) ==
        "t.json:6: field 'groups[1].ranks[1]': rank 1 appears twice in group \"x\"");
}

TEST_CASE("the reader checks the document header and rank entries", "[trace]") {
  std::string text = two_ranks("", "");
  std::string wrong_format = text;
  wrong_format.replace(wrong_format.find("ccsim-trace"), 11, "chrome");
  CHECK(error_of(wrong_format) == "t.json:2: field 'format': expected \"ccsim-trace\", got \"chrome\"");
  std::string wrong_version = text;
  wrong_version.replace(wrong_version.find("\"version\": 1"), 12, "\"version\": 0");
  CHECK(error_of(wrong_version) ==
        "t.json:3: field 'version': expected 1 or 2 (the versions this build reads), got \"0\"");
  std::string swapped = text;
  swapped.replace(swapped.find("\"rank\": 0"), 9, "\"rank\": 1");
  CHECK(error_of(swapped) ==
        "t.json:8: field 'ranks[0].rank': expected 0 (entries are listed in rank order), got \"1\"");
  std::string bigger = text;
  bigger.replace(bigger.find("\"world_size\": 2"), 15, "\"world_size\": 3");
  CHECK(error_of(bigger) == "t.json:7: field 'ranks': expected 3 entries (world_size), got 2");
  std::string typo = text;
  typo.replace(typo.find("\"name\": \"t\""), 11, "\"nmae\": \"t\"");
  // The misspelling is named, at its line (it read as the key missing, at the document's line).
  CHECK(error_of(typo) == "t.json:4: field 'name': missing (required); the object has \"nmae\": did you mean name?");
}

TEST_CASE("collectives whose members disagree are rejected", "[trace]") {
  CHECK(
      error_of(two_ranks(kAr, R"(      {"kind": "all_reduce", "group": "tp0", "bytes": 2048, "dtype": "fp32"})")) ==
      "t.json:12: field 'ranks[1].ops[0].bytes': all_reduce #1 on group \"tp0\" has 2048 bytes on rank 1 but 1024 bytes "
      "on rank 0 (line 9)");
  CHECK(error_of(two_ranks(kAr, R"(      {"kind": "all_reduce", "group": "tp0", "bytes": 1024, "dtype": "fp16"})")) ==
        "t.json:12: field 'ranks[1].ops[0].dtype': all_reduce #1 on group \"tp0\" has dtype fp16 on rank 1 but fp32 on "
        "rank 0 (line 9)");
  CHECK(error_of(two_ranks(kAr, R"(      {"kind": "all_gather", "group": "tp0", "bytes": 1024, "dtype": "fp32"})")) ==
        "t.json:12: field 'ranks[1].ops[0]': collective #1 on group \"tp0\" is all_gather on rank 1 but all_reduce on "
        "rank 0 (line 9)");
  CHECK(error_of(two_ranks(kAr + ",\n" + kAr, kAr)) ==
        "t.json:10: field 'ranks[0].ops[1]': all_reduce on group \"tp0\" is collective #2 of rank 0 on this group, but "
        "rank 1 calls only 1 collective on it");
}

TEST_CASE("unmatched or mismatched point-to-point messages are rejected", "[trace]") {
  CHECK(error_of(two_ranks(R"(      {"kind": "send", "peer": 1, "bytes": 8, "tag": "a"})", "")) ==
        "t.json:9: field 'ranks[0].ops[0]': send #1 from rank 0 to rank 1 with tag \"a\" has no matching recv (rank 1 "
        "posts 0 recvs from rank 0 with this tag)");
  CHECK(error_of(two_ranks(R"(      {"kind": "send", "peer": 1, "bytes": 8, "tag": "a"})",
                           R"(      {"kind": "recv", "peer": 0, "bytes": 8, "tag": "b"})")) ==
        "t.json:9: field 'ranks[0].ops[0]': send #1 from rank 0 to rank 1 with tag \"a\" has no matching recv (rank 1 "
        "posts 0 recvs from rank 0 with this tag)");
  CHECK(error_of(two_ranks("", R"(      {"kind": "recv", "peer": 0, "bytes": 8})")) ==
        "t.json:12: field 'ranks[1].ops[0]': recv #1 on rank 1 from rank 0 with tag \"\" has no matching send (rank 0 "
        "posts 0 sends to rank 1 with this tag)");
  CHECK(error_of(two_ranks(R"(      {"kind": "send", "peer": 1, "bytes": 8})",
                           R"(      {"kind": "recv", "peer": 0, "bytes": 16})")) ==
        "t.json:12: field 'ranks[1].ops[0].bytes': recv of 16 bytes from rank 0 (tag \"\") is matched by a send of 8 "
        "bytes (line 9)");
}

TEST_CASE("the bundled profile trace reads", "[trace]") {
  Trace t = read_native(CCSIM_SOURCE_DIR "/traces/qu2025-profile.json");
  CHECK(t.world_size == 4);
  CHECK(t.platform == "qu2025-fit");
  CHECK(t.pipeline_stage_count() == 2);
  CHECK(t.pipeline_stages() == std::vector<int>{0, 1, 0, 1});
  CHECK(t.programs[0].ops.size() == 12);
}

TEST_CASE("an unreadable trace file names the file", "[trace]") {
  CHECK_THROWS_WITH(read_native("/nonexistent/x.json"),
                    "/nonexistent/x.json: cannot open file: No such file or directory");
}

TEST_CASE("a broadcast root out of the 32-bit range is not narrowed into the group", "[trace]") {
  // 4294967297 = 2^32 + 1 and 4294967296 = 2^32: narrowed to int they would read as ranks 1 and 0.
  for (const char* root : {"4294967297", "4294967296", "-4294967295"}) {
    const std::string op =
        std::string(R"(      {"kind": "broadcast", "group": "tp0", "bytes": 8, "dtype": "fp32", "root": )") + root +
        "}";
    CHECK(
        error_of(two_ranks(op, op)) ==
        std::string("t.json:9: field 'ranks[0].ops[0].root': expected a member of group \"tp0\" (ranks 0, 1), got \"") +
            root + "\"");
  }
  const std::string tag = R"(      {"kind": "send", "peer": 1, "bytes": 8, "tag": 1e300})";
  CHECK(error_of(two_ranks(tag, "")) == "t.json:9: field 'ranks[0].ops[0].tag': expected an integer, got \"1e300\"");
  const std::string peer = R"(      {"kind": "send", "peer": 4294967297, "bytes": 8})";
  CHECK(error_of(two_ranks(peer, "")) ==
        "t.json:9: field 'ranks[0].ops[0].peer': expected a rank in 0..1 (world_size is 2), got \"4294967297\"");
}

TEST_CASE("durations, FLOPs and sizes of a trace have physical limits", "[trace]") {
  auto compute = [](const std::string& keys) { return R"(      {"kind": "compute", "name": "c", )" + keys + "}"; };
  CHECK(error_of(two_ranks(compute(R"("duration_ms": 1e300)"), "")) ==
        "t.json:9: field 'ranks[0].ops[0].duration_ms': expected a non-negative number of at most 3.15576e+10, got "
        "\"1e300\"");
  CHECK(error_of(two_ranks(compute(R"("flops": 1.1e24)"), "")) ==
        "t.json:9: field 'ranks[0].ops[0].flops': expected a non-negative number of at most 1e+24, got \"1.1e24\"");
  CHECK(error_of(two_ranks(compute(R"("flops": 1, "bytes": 1e300)"), "")) ==
        "t.json:9: field 'ranks[0].ops[0].bytes': expected an integer from 0 to 1125899906842624, got \"1e300\"");
  CHECK(error_of(two_ranks(compute(R"("duration_ms": -1)"), "")) ==
        "t.json:9: field 'ranks[0].ops[0].duration_ms': expected a non-negative number of at most 3.15576e+10, got "
        "\"-1\"");
  // The limits themselves are accepted: a year, 1e24 FLOPs, 1 PiB.
  CHECK(error_of(two_ranks(compute(R"("duration_ms": 31557600000, "flops": 1e24, "bytes": 1125899906842624)"), "")) ==
        "no error");
  const std::string big = R"(      {"kind": "all_reduce", "group": "tp0", "bytes": 1125899906842628, "dtype": "fp32"})";
  CHECK(error_of(two_ranks(big, big)) ==
        "t.json:9: field 'ranks[0].ops[0].bytes': expected an integer from 0 to 1125899906842624, got "
        "\"1125899906842628\"");
  const std::string send = R"(      {"kind": "send", "peer": 1, "bytes": 18446744073709551615})";
  CHECK(error_of(two_ranks(send, "")) ==
        "t.json:9: field 'ranks[0].ops[0].bytes': expected an integer from 0 to 1125899906842624, got "
        "\"18446744073709551615\"");
}

TEST_CASE("names in a trace must be UTF-8", "[trace][utf8]") {
  CHECK(error_of(two_ranks("      {\"kind\": \"compute\", \"name\": \"lin\xe9"
                           "ar\", \"duration_ms\": 1}",
                           "")) ==
        "t.json:9: field 'ranks[0].ops[0].name': expected UTF-8 text, got the byte 0xE9 at byte 3 (after \"lin\")");
}

TEST_CASE("a compute operator's matrix-product shape is read, shared and written back", "[trace]") {
  const std::string qkv =
      R"(      {"kind": "compute", "name": "linear", "gemm": {"m": 2048, "n": 4608, "k": 12288, "dtype": "bf16"}},)";
  const std::string bwd =
      R"(      {"kind": "compute", "name": "bmm", "flops": 1, "gemm": {"m": 64, "n": 64, "k": 128, "batch": 12, "dtype": "bf16", "pass": "backward"}})";
  Trace t = parse_native(two_ranks(qkv + "\n" + bwd, qkv + "\n" + bwd), "t.json");
  REQUIRE(t.gemms.size() == 2);  // the same shape on both ranks is stored once
  const Op& first = t.programs[0].ops[0];
  REQUIRE(t.gemm_of(first) != nullptr);
  CHECK(t.gemm_of(first)->k == 12288);
  CHECK(t.gemm_of(first)->batch == 1);
  CHECK(first.flops == 2.0 * 2048 * 4608 * 12288);  // the shape's FLOPs when none are given
  CHECK(t.programs[1].ops[0].gemm == first.gemm);
  const ccsim::GemmShape* g = t.gemm_of(t.programs[0].ops[1]);
  REQUIRE(g != nullptr);
  CHECK(g->backward);
  CHECK(g->batch == 12);
  CHECK(t.programs[0].ops[1].flops == 1);  // given FLOPs win
  CHECK(t.gemm_of(t.programs[0].ops[1]) != t.gemm_of(first));
  CHECK(sizeof(Op) == 72);  // the shape index lives in padding: traces of millions of operators do not grow

  std::ostringstream out;
  write_native(t, out, 1);
  Trace back = parse_native(out.str(), "back.json");
  REQUIRE(back.gemms.size() == 2);
  CHECK(back.gemms == t.gemms);
}

TEST_CASE("a bad matrix-product shape names its field", "[trace]") {
  CHECK(error_of(two_ranks(
            R"(      {"kind": "compute", "name": "linear", "gemm": {"m": 0, "n": 1, "k": 1, "dtype": "bf16"}})", "")) ==
        "t.json:9: field 'ranks[0].ops[0].gemm.m': expected an integer from 1 to 2147483647, got \"0\"");
  CHECK(error_of(two_ranks(R"(      {"kind": "compute", "name": "linear", "gemm": {"m": 1, "n": 1, "k": 1}})", "")) ==
        "t.json:9: field 'ranks[0].ops[0].gemm.dtype': missing (required)");
  CHECK(
      error_of(
          two_ranks(
              R"(      {"kind": "compute", "name": "linear", "gemm": {"m": 1, "n": 1, "k": 1, "dtype": "bf16", "pass": "both"}})",
              ""))
          .find("field 'ranks[0].ops[0].gemm.pass': expected one of forward, backward") != std::string::npos);
}
