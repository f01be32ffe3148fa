#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "report/timeline.hpp"
#include "support/op_record.hpp"

using namespace ccsim;

namespace {

// Rank 0: linear 0-10 ms, all_reduce 15-40 ms; rank 1: linear 5-20 ms, all_reduce 20-40 ms.
engine::Result result() {
  engine::Result r;
  r.trace_name = "t";
  r.world_size = 2;
  r.stage = {0, 1};
  r.names = {"", "linear", "all_reduce", "compute", "qkv", "ring"};
  r.ops = {{test::record(1, 4, 3, 0, 0.0, 0.010), test::record(2, 0, 2, 64, 0.015, 0.040, 5)},
           {test::record(1, 0, 3, 0, 0.005, 0.020), test::record(2, 0, 2, 64, 0.020, 0.040, 5)}};
  r.makespan_s = 0.040;
  return r;
}

}  // namespace

// The trace-event format (Chrome's "Trace Event Format" document): an object with a
// traceEvents array; complete events have ph "X", pid, tid, name, ts and dur in microseconds;
// metadata events ph "M" name processes.
TEST_CASE("a timeline is valid Chrome trace-event JSON with one process per rank and run", "[report][timeline]") {
  const engine::Result plain = result();
  engine::Result compressed = result();
  std::ostringstream out;
  report::write_timeline({{"plain", &plain}, {"compressed", &compressed}}, out);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  REQUIRE(doc.is_object());
  REQUIRE(doc.contains("traceEvents"));
  const nlohmann::json& events = doc["traceEvents"];
  REQUIRE(events.is_array());
  int complete = 0, names = 0;
  double last_end_rank3 = 0;
  for (const nlohmann::json& e : events) {
    REQUIRE(e.is_object());
    const std::string ph = e.at("ph").get<std::string>();
    const int pid = e.at("pid").get<int>();
    CHECK(pid >= 0);
    CHECK(pid < 4);
    if (ph == "M") {
      if (e.at("name") == "process_name") ++names;
      continue;
    }
    REQUIRE(ph == "X");
    ++complete;
    CHECK(e.contains("tid"));
    CHECK(e.at("name").is_string());
    const double ts = e.at("ts").get<double>();
    const double dur = e.at("dur").get<double>();
    CHECK(ts >= 0);
    CHECK(dur > 0);
    CHECK(e.at("cat") != "idle");  // a gap is no event
    if (pid == 3) last_end_rank3 = std::max(last_end_rank3, ts + dur);
  }
  CHECK(names == 4);                         // 2 ranks x 2 runs
  CHECK(complete == 4 * 2);                  // per rank: 2 operators
  CHECK(last_end_rank3 == Approx(40000.0));  // microseconds
  CHECK_THAT(out.str(), Catch::Contains("\"name\":\"compressed: rank 1 (stage 1)\"") &&
                            Catch::Contains("\"algorithm\":\"ring\"") && Catch::Contains("\"name\":\"linear qkv\""));
}

TEST_CASE("a wait is an event of category wait nested in its operator's event", "[report][timeline][wait]") {
  // Rank 1's all_reduce (20-40 ms) waits 20-25 ms and 30-32 ms.
  engine::Result r = result();
  r.waits = {{}, {{1, 0.020, 0.025}, {1, 0.030, 0.032}}};
  std::ostringstream out;
  report::write_timeline({{"", &r}}, out);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  std::vector<nlohmann::json> waits;
  double op_start = -1, op_end = -1;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    if (e["cat"] == "wait") waits.push_back(e);
    if (e["pid"] == 1 && e["cat"] == "all_reduce") {
      op_start = e["ts"].get<double>();
      op_end = op_start + e["dur"].get<double>();
    }
  }
  REQUIRE(waits.size() == 2);
  CHECK(waits[0]["pid"] == 1);
  CHECK(waits[0]["tid"] == 0);
  CHECK(waits[0]["name"] == "wait");
  CHECK_FALSE(waits[0].contains("args"));  // its operator is the event it nests in
  CHECK(waits[0]["ts"].get<double>() == Approx(20000.0));
  CHECK(waits[0]["dur"].get<double>() == Approx(5000.0));
  CHECK(waits[1]["dur"].get<double>() == Approx(2000.0));
  for (const nlohmann::json& w : waits) {
    CHECK(w["ts"].get<double>() >= op_start);
    CHECK(w["ts"].get<double>() + w["dur"].get<double>() <= op_end + 1e-9);
  }
  // Ordered by process, then time: the waits follow their operator's event.
  const std::string text = out.str();
  CHECK(text.find("\"ts\":20000.000,\"dur\":20000.000,\"name\":\"all_reduce\"") < text.find("\"cat\":\"wait\""));
}

namespace {

/// `world` ranks in `stages` pipeline stages, in Megatron's order (tp and dp inside a stage:
/// stage = rank / (world / stages)), each with one compute operator of 1 ms.
engine::Result staged(int world, int stages) {
  engine::Result r = test::hand_made_result(world, {"", "linear", "compute"});
  r.ops.resize(static_cast<std::size_t>(world));
  for (int rank = 0; rank < world; ++rank) {
    r.stage[static_cast<std::size_t>(rank)] = rank / (world / stages);
    r.ops.writable(static_cast<std::size_t>(rank)).push_back(test::record(1, 0, 2, 0, 0.0, 0.001));
  }
  r.stage_count = stages;
  r.makespan_s = 0.001;
  return r;
}

std::string rank_error(const std::string& text) {
  try {
    report::check_timeline_ranks(report::parse_timeline_ranks(text), 256);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// The pids of the processes a timeline names, in file order.
std::vector<int> processes(const nlohmann::json& doc) {
  std::vector<int> pids;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") pids.push_back(e["pid"].get<int>());
  }
  return pids;
}

}  // namespace

TEST_CASE("the ranks of a timeline are auto, all, or ranks and ranges", "[report][timeline][ranks]") {
  using Kind = report::TimelineRankChoice::Kind;
  CHECK(report::parse_timeline_ranks("auto").kind == Kind::kAuto);
  CHECK(report::parse_timeline_ranks("all").kind == Kind::kAll);
  const report::TimelineRankChoice list = report::parse_timeline_ranks("0,64, 128-135 ,7");
  CHECK(list.kind == Kind::kList);
  CHECK(list.ranges == std::vector<std::pair<int, int>>{{0, 0}, {64, 64}, {128, 135}, {7, 7}});
  CHECK(rank_error("255") == "");
  CHECK(rank_error("0-255") == "");
}

TEST_CASE("a bad choice of timeline ranks says what is wrong with it", "[report][timeline][ranks]") {
  const std::string field = "command line: field '--timeline-ranks': ";
  const std::string expected = field + "expected auto, all, or ranks and ranges such as 0-7,64, got ";
  CHECK(rank_error("al") == field + "unknown value \"al\"; did you mean all?");
  CHECK(rank_error("Auto") == field + "unknown value \"Auto\"; did you mean auto?");
  CHECK(rank_error("everything") == expected + "\"everything\"");
  CHECK(rank_error("0,,4") == expected + "\"0,,4\" (an empty item)");
  CHECK(rank_error("0,") == expected + "\"0,\" (an empty item)");
  CHECK(rank_error("") == expected + "\"\" (an empty item)");
  CHECK(rank_error("0,-3") == expected + "\"0,-3\" (\"-3\" is not a rank)");
  CHECK(rank_error("0,1.5") == expected + "\"0,1.5\" (\"1.5\" is not a rank)");
  CHECK(rank_error("0,4-") == expected + "\"0,4-\" (\"4-\" is not a range of ranks)");
  CHECK(rank_error("0,4-x") == expected + "\"0,4-x\" (\"4-x\" is not a range of ranks)");
  CHECK(rank_error("99999999999") == expected + "\"99999999999\"");
  CHECK(rank_error("8-3") == field + "expected a range from a rank to a higher one, got \"8-3\"");
  CHECK(rank_error("0,256") == field + "rank 256 is not in the job: expected ranks from 0 to 255, got \"0,256\"");
  CHECK(rank_error("250-300") == field + "rank 256 is not in the job: expected ranks from 0 to 255, got \"250-300\"");
  CHECK(rank_error("1000-1001") ==
        field + "rank 1000 is not in the job: expected ranks from 0 to 255, got \"1000-1001\"");
}

TEST_CASE("ranks are listed as runs", "[report][timeline][ranks]") {
  CHECK(report::format_rank_list({}) == "");
  CHECK(report::format_rank_list({5}) == "5");
  CHECK(report::format_rank_list({0, 1, 2, 3, 7, 9, 10, 64}) == "0-3,7,9-10,64");
}

TEST_CASE("auto writes every rank of a small job and the first rank of each stage of a large one",
          "[report][timeline][ranks]") {
  const report::TimelineRankChoice automatic = report::parse_timeline_ranks("auto");
  SECTION("at the limit: every rank") {
    const report::TimelineRanks ranks = report::select_timeline_ranks(automatic, staged(64, 4));
    CHECK(ranks.ranks.size() == 64);
    CHECK_FALSE(ranks.limited);
    CHECK(ranks.rule == "every rank");
  }
  SECTION("above it: the first rank of each stage, one pipeline of one replica") {
    const report::TimelineRanks ranks = report::select_timeline_ranks(automatic, staged(256, 4));
    CHECK(ranks.ranks == std::vector<int>{0, 64, 128, 192});
    CHECK(ranks.world_size == 256);
    CHECK(ranks.limited);
    CHECK(ranks.rule == "the first rank of each of the 4 pipeline stages, as the job has more than 64 ranks");
  }
  SECTION("one stage: rank 0") {
    const report::TimelineRanks ranks = report::select_timeline_ranks(automatic, staged(128, 1));
    CHECK(ranks.ranks == std::vector<int>{0});
    CHECK(ranks.rule == "rank 0, as the job has more than 64 ranks in one pipeline stage");
  }
  SECTION("more stages than the limit: 64 of them, evenly spaced, the first and the last among them") {
    const report::TimelineRanks ranks = report::select_timeline_ranks(automatic, staged(200, 100));
    REQUIRE(ranks.ranks.size() == 64);
    CHECK(ranks.ranks.front() == 0);
    CHECK(ranks.ranks.back() == 198);  // stage 99's first rank
    CHECK(std::is_sorted(ranks.ranks.begin(), ranks.ranks.end()));
    CHECK(std::adjacent_find(ranks.ranks.begin(), ranks.ranks.end()) == ranks.ranks.end());
  }
  SECTION("all and lists") {
    CHECK(report::select_timeline_ranks(report::parse_timeline_ranks("all"), staged(256, 4)).ranks.size() == 256);
    const report::TimelineRanks listed =
        report::select_timeline_ranks(report::parse_timeline_ranks("9,3-5,4,200"), staged(256, 4));
    CHECK(listed.ranks == std::vector<int>{3, 4, 5, 9, 200});
    CHECK_FALSE(listed.limited);
    CHECK(listed.rule == "the ranks asked for (--timeline-ranks 9,3-5,4,200)");
  }
}

TEST_CASE("a timeline holds the selected ranks only, under their own numbers, and says so",
          "[report][timeline][ranks]") {
  const engine::Result plain = staged(256, 4);
  const engine::Result compressed = staged(256, 4);
  const report::TimelineRanks ranks = report::select_timeline_ranks(report::parse_timeline_ranks("auto"), plain);
  std::ostringstream out;
  report::write_timeline({{"plain", &plain}, {"compressed", &compressed}}, ranks, out);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  CHECK(processes(doc) == std::vector<int>{0, 64, 128, 192, 256, 320, 384, 448});
  const nlohmann::json& other = doc["otherData"];
  CHECK(other["ranks_in_job"] == 256);
  CHECK(other["ranks_written"] == "0,64,128,192");
  CHECK(other["rank_selection"] == ranks.rule);
  CHECK(other["other_ranks"] == std::string(report::kOtherRanksHint));
  CHECK(doc["displayTimeUnit"] == "ms");
  int complete = 0;
  for (const nlohmann::json& e : doc["traceEvents"]) complete += e["ph"] == "X";
  CHECK(complete == 8);
}

// Chrome's trace-event format takes "ts" and "dur" in microseconds; a nanosecond is the
// finest a replay needs, and a fixed 3 decimals keep every event short.
TEST_CASE("timestamps are microseconds with 3 decimals, rounded so that nested events still nest",
          "[report][timeline]") {
  engine::Result r = test::hand_made_result(1, {"", "all_reduce", "ring"});
  r.ops = {{test::record(1, 0, 1, 64, 0.0123456789012, 0.0234567890123, 2)}};
  r.waits = {{{0, 0.0123456789012, 0.0150000004999}, {0, 0.0200000006, 0.0234567890123}}};
  std::ostringstream out;
  report::write_timeline({{"", &r}}, out);
  const std::string text = out.str();
  CHECK_THAT(text, Catch::Contains(R"("ph":"X","pid":0,"tid":0,"ts":12345.679,"dur":11111.110,"name":"all_reduce",)"
                                   R"("cat":"all_reduce","args":{"bytes":64,"algorithm":"ring"}})"));
  CHECK_THAT(text, Catch::Contains(R"("ts":12345.679,"dur":2654.321,"name":"wait","cat":"wait"})"));
  CHECK_THAT(text, Catch::Contains(R"("ts":20000.001,"dur":3456.788,"name":"wait","cat":"wait"})"));
  const std::regex number(R"x("(ts|dur)":(-?[0-9.e+]+))x");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it) {
    CHECK(std::regex_match((*it)[2].str(), std::regex(R"([0-9]+\.[0-9]{3})")));
  }
}

TEST_CASE("names from a trace are escaped in the timeline", "[report][timeline]") {
  engine::Result r = test::hand_made_result(1, {"", "a \"quoted\"\\name\n", "compute"});
  r.ops = {{test::record(1, 0, 2, 0, 0.0, 0.001)}};
  r.trace_name = "trace \"x\"";
  std::ostringstream out;
  report::write_timeline({{"run \"1\"", &r}}, out);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  bool found = false;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "compute") found = e["name"] == "a \"quoted\"\\name\n";
    if (e["ph"] == "M" && e["name"] == "process_name") CHECK(e["args"]["name"] == "run \"1\": rank 0 (stage 0)");
  }
  CHECK(found);
  CHECK(doc["otherData"]["trace"] == "trace \"x\"");
}

TEST_CASE("the --timeline file is written as asked, and says what it holds", "[report][timeline]") {
  const engine::Result plain = result();
  const engine::Result compressed = result();
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "ccsim_timeline_file_test.json";
  const std::string told =
      report::write_timeline_file(file.string(), "auto", {{"plain", &plain}, {"compressed", &compressed}});
  CHECK_THAT(told, Catch::Matches("wrote " + file.string() + R"( \(2 ranks of 2 in each of 2 runs, [0-9.]+ kB\)\n)"));
  std::ifstream in(file);
  CHECK(nlohmann::json::parse(in).contains("traceEvents"));
  std::filesystem::remove(file);
  CHECK(report::write_timeline_file("", "auto", {{"", &plain}}).empty());
}
