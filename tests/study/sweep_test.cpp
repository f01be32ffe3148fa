// Sweep specs (study/sweep.hpp): grid expansion order, lists, errors that name file, line and
// field path; and the worker pool: the same outcomes whatever the number of processes.
#include <csignal>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "engine/child_process.hpp"
#include "study/sweep.hpp"
#include "support/error_of.hpp"

using namespace ccsim;

namespace {

study::SweepSpec parse(const std::string& text) { return study::parse_sweep_spec(text, "s.json"); }

std::string error_of(const std::string& text) {
  return ccsim::test::message_of([&] { parse(text); }, "(no error)");
}

const std::string kHead = R"({"format": "ccsim-sweep", "version": 1, )";

/// "platform/ranks/bytes/settings" of each scenario, for comparisons.
std::vector<std::string> describe(const study::SweepSpec& spec) {
  std::vector<std::string> out;
  for (const study::Scenario& s : spec.scenarios) {
    std::string d = (s.platform ? s.platform->text : "-") + "/" + (s.ranks ? s.ranks->text : "-") + "/" +
                    (s.bytes ? s.bytes->text : "-");
    for (const study::SweepValue& v : s.settings) d += "/" + v.text;
    out.push_back(d);
  }
  return out;
}

}  // namespace

TEST_CASE("a grid expands in axis order, the last axis (bytes) fastest, --set keys after platform") {
  const study::SweepSpec spec = parse(kHead + R"("mode": "collective",
    "grid": {"bytes": ["1KiB", 4096], "ranks": [2, 8], "set": {"inter.bandwidth": ["x1", "x2"]}, "platform": "p"}})");
  CHECK(spec.mode == study::SweepMode::kCollective);
  CHECK(spec.set_keys == std::vector<std::string>{"inter.bandwidth"});
  CHECK(describe(spec) == std::vector<std::string>{"p/2/1KiB/inter.bandwidth=x1", "p/2/4096/inter.bandwidth=x1",
                                                   "p/8/1KiB/inter.bandwidth=x1", "p/8/4096/inter.bandwidth=x1",
                                                   "p/2/1KiB/inter.bandwidth=x2", "p/2/4096/inter.bandwidth=x2",
                                                   "p/8/1KiB/inter.bandwidth=x2", "p/8/4096/inter.bandwidth=x2"});
  // Each value remembers where the spec gave it.
  CHECK(spec.scenarios[1].bytes->at.field == "grid.bytes[1]");
  CHECK(spec.scenarios[1].bytes->at.line == 2);
  CHECK(spec.scenarios[4].settings[0].at.field == "grid.set.inter.bandwidth[1]");
}

TEST_CASE("a list of scenarios keeps its order and its single values") {
  const study::SweepSpec spec = parse(kHead + R"("mode": "trace", "scenarios": [
    {"trace": "a.json", "set": {"nodes": 4, "inter.latency": "2us"}},
    {"trace": "b.json", "platform": "p", "compress": "none"}]})");
  REQUIRE(spec.scenarios.size() == 2);
  CHECK(spec.scenarios[0].trace->text == "a.json");
  CHECK(spec.set_keys == std::vector<std::string>{"nodes", "inter.latency"});
  CHECK(spec.scenarios[0].settings.size() == 2);
  CHECK(spec.scenarios[1].settings.empty());
  CHECK(spec.scenarios[1].platform->text == "p");
  CHECK(!spec.engine);
}

TEST_CASE("sweep spec errors name the file, the line, the field path and what is valid") {
  CHECK(
      error_of(kHead + R"("mode": "collective", "grid": {"platform": "p", "ranks": 2, "bytes": 8, "colour": [1]}})") ==
      "s.json:1: field 'grid.colour': unknown key; valid keys here: algo, bytes, compress, dtype, platform, ranks, "
      "set, synth, "
      "trace");
  CHECK(error_of(kHead + "\"mode\": \"collective\",\n\"grid\": {\"platform\": \"p\", \"ranks\": 2, \"bytes\": 8,\n"
                         "\"set\": {\"inter.bandwidth\": [\"x2\", \"fast\"]}}}") ==
        "s.json:3: field 'grid.set.inter.bandwidth[1]': expected a rate such as 25GB/s, or xF, got \"fast\"");
  CHECK(error_of(kHead + R"("mode": "collective", "grid": {"platform": "p", "ranks": [2, 1], "bytes": 8}})") ==
        "s.json:1: field 'grid.ranks[1]': expected a group of 2 to 4096 ranks, got \"1\"");
  CHECK(error_of(kHead + R"("mode": "collective", "grid": {"platform": "p", "ranks": 2, "bytes": "8 parsecs"}})")
            .rfind("s.json:1: field 'grid.bytes': expected a byte count", 0) == 0);
  CHECK(
      error_of(kHead + R"("mode": "collective", "grid": {"platform": "p", "ranks": 2, "bytes": 8, "algo": "fastest"}})")
          .rfind("s.json:1: field 'grid.algo': expected one of auto, ring, ", 0) == 0);
  CHECK(error_of(kHead + R"("mode": "trace", "grid": {"trace": "t.json", "compress": "cuszp:eps=3"}})") ==
        "s.json:1: field 'grid.compress': eps: unknown key; valid keys: eb, bits, density, where, range");
  CHECK(error_of(kHead + R"("mode": "trace", "grid": {"platform": "p"}})") ==
        "s.json:1: field 'grid': missing 'trace': the trace mode replays a trace per scenario");
  CHECK(error_of(kHead + R"("mode": "trace", "grid": {"trace": "t.json", "ranks": 4}})") ==
        "s.json:1: field 'grid.ranks': 'ranks' is not an axis of the trace mode: a trace has its own ranks (use "
        "\"mode\": \"collective\" for one collective)");
  CHECK(error_of(kHead + R"("mode": "trace"})") ==
        "s.json:1: field 'grid': expected either \"grid\" (every combination of its axes) or \"scenarios\" (a "
        "list), not neither");
  CHECK(error_of(kHead + R"("mode": "trace", "scenarios": [{"trace": ["a", "b"]}]})") ==
        "s.json:1: field 'scenarios[0].trace': expected one value in a listed scenario (a grid takes lists), got "
        "[...]");
  CHECK(error_of(kHead + R"("mode": "trace", "grid": {"trace": []}})") ==
        "s.json:1: field 'grid.trace': expected at least one value, got []");
  CHECK(error_of(kHead + R"("mode": "trace", "engine": "fast", "grid": {"trace": "t"}})") ==
        "s.json:1: field 'engine': expected one of sim, closed-form, got \"fast\"");
  CHECK(error_of(R"({"format": "ccsim-sweep", "version": 2, "mode": "trace", "grid": {"trace": "t"}})") ==
        "s.json:1: field 'version': expected 1 (the only version this build reads), got \"2\"");
}

TEST_CASE("the worker pool returns the same outcomes in the same order whatever the number of processes") {
  std::vector<std::size_t> items;
  for (std::size_t i = 0; i < 23; ++i) items.push_back(i * 3);
  auto work = [](std::size_t i) { return std::to_string(i * i); };
  std::vector<std::vector<std::string>> runs;
  for (int jobs : {1, 2, 5, 40}) {
    std::size_t last = 0;
    runs.push_back(study::run_in_workers(items, jobs, work, [&](std::size_t n) { last = n; }));
    CHECK(last == items.size());
  }
  for (const auto& run : runs) CHECK(run == runs.front());
  CHECK(engine::decode_outcome(runs.front()[4]) == "144");
}

TEST_CASE("the worker pool: the first failing position is the same whatever the number of processes") {
  std::vector<std::size_t> items;
  for (std::size_t i = 0; i < 20; ++i) items.push_back(i);
  auto work = [](std::size_t i) -> std::string {
    if (i == 7 || i == 12) throw InputError("f.json", static_cast<int>(i), "x", "bad");
    return "ok";
  };
  for (int jobs : {1, 3, 8}) {
    const std::vector<std::string> out = study::run_in_workers(items, jobs, work, [](std::size_t) {});
    std::size_t first = out.size();
    for (std::size_t p = 0; p < out.size(); ++p) {
      if (!engine::is_value_outcome(out[p])) {
        first = p;
        break;
      }
    }
    REQUIRE(first == 7);
    CHECK_THROWS_WITH(engine::decode_outcome(out[first]), "f.json:7: field 'x': bad");
  }
}

TEST_CASE("the worker pool: a worker that dies is a failure of the item it was on") {
  std::vector<std::size_t> items{0, 1, 2, 3};
  auto work = [](std::size_t i) -> std::string {
    if (i == 2) std::raise(SIGKILL);  // what the out-of-memory killer does; Catch cannot catch it
    return "ok";
  };
  const std::vector<std::string> out = study::run_in_workers(items, 2, work, [](std::size_t) {});
  CHECK(engine::is_value_outcome(out[0]));
  CHECK(engine::is_value_outcome(out[1]));
  CHECK(engine::is_value_outcome(out[3]));
  CHECK_THROWS_WITH(engine::decode_outcome(out[2]), Catch::Matchers::StartsWith("sweep worker 0 died of signal 9"));
}

TEST_CASE("MPI ranks take every n-th scenario; one rank takes all") {
  CHECK(study::rank_items(7, 1, 3) == std::vector<std::size_t>{1, 4});
  CHECK(study::rank_items(7, 0, 3) == std::vector<std::size_t>{0, 3, 6});
  CHECK(study::rank_items(3, 0, 1) == std::vector<std::size_t>{0, 1, 2});
  CHECK(study::rank_items(2, 4, 8).empty());
}

TEST_CASE("outcomes packed on MPI ranks unpack into scenario order") {
  std::vector<std::string> by_item(5);
  study::unpack_outcomes(study::pack_outcomes({1, 3}, {"Va", "Vb"}), by_item);
  study::unpack_outcomes(study::pack_outcomes({0, 2, 4}, {"Vc", "", "Ve"}), by_item);
  CHECK(by_item == std::vector<std::string>{"Vc", "Va", "", "Vb", "Ve"});
}

TEST_CASE("the synth mode: a job per scenario from its synth keys, in spec order, flags as true or false") {
  const study::SweepSpec spec = parse(kHead + R"("mode": "synth", "grid": {"platform": "p",
    "synth": {"model": "gpt3-175b", "tp": [4, 8], "sp": [false, true]}, "compress": ["none", "cuszp:eb=1e-3"]}})");
  CHECK(spec.mode == study::SweepMode::kSynth);
  CHECK(spec.synth_keys == std::vector<std::string>{"model", "tp", "sp"});
  REQUIRE(spec.scenarios.size() == 8);
  auto job = [&](std::size_t i) {
    std::string d;
    for (const study::SweepValue& v : spec.scenarios[i].synth) d += v.text + " ";
    return d + spec.scenarios[i].compress->text;
  };
  CHECK(job(0) == "model=gpt3-175b tp=4 sp=false none");
  CHECK(job(1) == "model=gpt3-175b tp=4 sp=false cuszp:eb=1e-3");
  CHECK(job(2) == "model=gpt3-175b tp=4 sp=true none");
  CHECK(job(7) == "model=gpt3-175b tp=8 sp=true cuszp:eb=1e-3");
  CHECK(spec.scenarios[2].synth[2].at.field == "grid.synth.sp[1]");
}

TEST_CASE("the synth mode's errors name the spec's line and field") {
  CHECK(error_of(kHead + R"("mode": "synth", "grid": {"platform": "p", "synth": {"model": "m", "tp": [2, "two"]}}})") ==
        "s.json:1: field 'grid.synth.tp[1]': expected a whole number 1..1048576, got \"two\"");
  CHECK(error_of(kHead + "\"mode\": \"synth\",\n\"grid\": {\"platform\": \"p\",\n\"synth\": {\"model\": \"m\", "
                         "\"micro_batches\": 4}}}") ==
        "s.json:3: field 'grid.synth.micro_batches': unknown key; did you mean micro-batches? valid keys: model, gpus, "
        "tp, pp, dp, sp, global-batch, micro-batches, micro-batch-size, seq, schedule, virtual-stages, overlap-p2p, "
        "zero, distributed-optimizer, overlap-grad-reduce, recompute, first-stage-layers, last-stage-layers");
  CHECK(error_of(kHead + R"("mode": "synth", "grid": {"platform": "p", "synth": {"tp": 2}}})") ==
        "s.json:1: field 'grid': missing 'synth.model': the synth mode needs the model of the job (a preset or file)");
  CHECK(error_of(kHead + R"("mode": "synth", "grid": {"synth": {"model": "m"}}})") ==
        "s.json:1: field 'grid': missing 'platform': the synth mode checks and replays each job on a platform");
  CHECK(
      error_of(kHead + R"("mode": "synth", "grid": {"platform": "p", "trace": "t.json", "synth": {"model": "m"}}})") ==
      "s.json:1: field 'grid.trace': 'trace' is not an axis of the synth mode: the synth mode writes each "
      "scenario's trace from its 'synth' keys");
  CHECK(error_of(kHead + R"("mode": "trace", "grid": {"trace": "t.json", "synth": {"model": "m"}}})") ==
        "s.json:1: field 'grid.synth.model': 'synth' is an axis of the synth mode (\"mode\": \"synth\"), not of the "
        "trace mode");
  CHECK(error_of(kHead + R"("mode": "trace", "grid": {"trace": "t.json", "compress": true}})") ==
        "s.json:1: field 'grid.compress': expected a string or a number, got true");
}

TEST_CASE("a TOML spec reads as its JSON twin: the same scenarios, its own lines in errors") {
  const study::SweepSpec json = study::read_sweep_spec(CCSIM_SOURCE_DIR "/tests/data/sweep/grid_100.json");
  const study::SweepSpec toml = study::read_sweep_spec(CCSIM_SOURCE_DIR "/tests/data/sweep/grid_100.toml");
  REQUIRE(toml.scenarios.size() == 100);
  CHECK(describe(toml) == describe(json));
  CHECK(toml.set_keys == json.set_keys);
  CHECK(toml.description == json.description);
  // grid_100.toml: bytes on line 10, the set key on line 13.
  CHECK(toml.scenarios[1].bytes->at.line == 10);
  CHECK(toml.scenarios[1].bytes->at.field == "grid.bytes[1]");
  CHECK(toml.scenarios[25].settings[0].at.line == 13);
  CHECK(toml.scenarios[25].settings[0].at.field == "grid.set.inter.bandwidth[1]");
}
