// The cost study (study/cost_study.hpp): iterations, nodes and price and power turned into time,
// node-hours, money and energy, with the assumptions said; on the tiny platform (4 nodes of 2
// accelerators) and hand-made results, every figure derived by hand.
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "study/cost_study.hpp"
#include "support/error_of.hpp"
#include "support/op_record.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

using namespace ccsim;

namespace {

const std::string kTiny = CCSIM_SOURCE_DIR "/tests/data/tiny.json";

/// A result of 4 ranks, each computing for the whole makespan, which covers `iterations` iterations.
engine::Result result_of(double makespan_s, int iterations, int nodes_used) {
  engine::Result r = test::hand_made_result(4, {"", "linear", "compute"});
  r.ops = {{test::record(1, 0, 2, 0, 0, makespan_s)},
           {test::record(1, 0, 2, 0, 0, makespan_s)},
           {test::record(1, 0, 2, 0, 0, makespan_s)},
           {test::record(1, 0, 2, 0, 0, makespan_s)}};
  r.makespan_s = makespan_s;
  r.iterations = iterations;
  r.nodes_used = nodes_used;
  r.placement = "tp,pp,dp";
  return r;
}

trace::Trace four_ranks() {
  trace::Trace t;
  t.name = "t";
  t.world_size = 4;
  return t;
}

bool has(const std::vector<std::string>& lines, const std::string& line) {
  for (const std::string& l : lines) {
    if (l == line) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a cost study: 1000 iterations of 250 ms on 2 nodes at 3 per node-hour and 0.5 kW", "[study][cost]") {
  const topology::Platform tiny = topology::read_platform(kTiny);
  const engine::Result plain = result_of(0.5, 2, 0);       // 250 ms an iteration; nodes not said: packed
  const engine::Result compressed = result_of(0.4, 2, 0);  // 200 ms: 20 % less
  study::CostOptions options;
  options.iterations = 1000;
  options.price = 3;
  options.power = 0.5;
  const study::CostStudy s =
      study::study_cost(options, four_ranks(), tiny, {{"plain", &plain}, {"compressed", &compressed}});
  CHECK(s.nodes == 2);  // ceil(4 ranks / 2 per node)
  CHECK(s.iterations == 1000);
  REQUIRE(s.figures.size() == 2);
  CHECK(s.iteration_s[0] == Approx(0.25));
  CHECK(s.figures[0].seconds == Approx(250));
  CHECK(s.figures[0].node_hours == Approx(2 * 250 / 3600.0));
  CHECK(*s.figures[0].money == Approx(3 * 2 * 250 / 3600.0));
  CHECK(*s.figures[0].energy_kwh == Approx(0.5 * 2 * 250 / 3600.0));
  CHECK(s.figures[1].seconds == Approx(200));
  CHECK(s.currency.empty());
  CHECK(has(s.assumptions,
            "nodes: ceil(4 ranks / 2 per node), at most the platform's 4; the job holds them for the "
            "whole run"));
  CHECK(has(s.assumptions, "price: 3 per node-hour (--price)"));
  CHECK(has(s.assumptions, "power: 0.5 kW per node, average over the run (--power)"));
  const std::vector<std::vector<std::string>> rows = study::cost_rows(s);
  REQUIRE(rows.size() == 5);  // iteration, time to train, node-hours, money, energy
  CHECK(rows[0] == std::vector<std::string>{"iteration", "250.000 ms", "200.000 ms", "20.0%"});
  CHECK(rows[3] == std::vector<std::string>{"money", "0.42", "0.33", "20.0%"});
}

TEST_CASE("a cost study by tokens: ceil(tokens / tokens per iteration) iterations on the nodes used", "[study][cost]") {
  const topology::Platform tiny = topology::read_platform(kTiny);
  const engine::Result spread = result_of(1.0, 0, 4);  // one iteration (the trace does not say), on 4 nodes
  study::CostOptions options;
  options.tokens = 1e6;
  options.tokens_per_iteration = 3e3;
  const study::CostStudy s = study::study_cost(options, four_ranks(), tiny, {{"plain", &spread}});
  CHECK(s.iterations == 334);  // 333.3 rounded up
  CHECK(s.nodes == 4);
  CHECK(s.figures[0].node_hours == Approx(4 * 334 / 3600.0));
  CHECK_FALSE(s.has_price);
  CHECK_FALSE(s.figures[0].money.has_value());
  CHECK(has(s.assumptions, "iterations: ceil(1e+06 tokens / 3000 tokens per iteration)"));
  CHECK(has(s.assumptions,
            "nodes: the 4 nodes that placement tp,pp,dp put the 4 ranks on (packed 2 to a node, they "
            "would fill 2); the job holds them for the whole run"));
  CHECK(has(s.assumptions,
            "iteration time: the simulated makespan (the trace does not say how many iterations it holds: taken as "
            "one)"));
  CHECK(study::cost_rows(s).size() == 3);  // no money, no energy
}

TEST_CASE("a cost study takes price and power from the platform file unless given", "[study][cost]") {
  topology::Platform tiny = topology::read_platform(kTiny);
  tiny.cost = topology::PlatformCost{2.5, "USD", 1.2, "a quote"};
  const engine::Result r = result_of(0.36, 1, 0);
  study::CostOptions options;
  options.iterations = 10000;  // 3600 s on 2 nodes: 2 node-hours
  options.power = 0.7;
  const study::CostStudy s = study::study_cost(options, four_ranks(), tiny, {{"plain", &r}});
  CHECK(*s.figures[0].money == Approx(5.0));
  CHECK(*s.figures[0].energy_kwh == Approx(1.4));
  CHECK(s.currency == "USD");
  CHECK(has(s.assumptions, "price: 2.5 USD per node-hour (platform tiny, its \"cost\"; --price overrides)"));
  CHECK(has(s.assumptions,
            "power: 0.7 kW per node, average over the run (--power; overrides the platform file's 1.2 "
            "kW)"));
  CHECK(has(s.assumptions, "cost source: a quote"));
  CHECK(study::format_money(42630.126, s.currency) == "42,630.13 USD");
  CHECK(s.energy_basis == "estimate: the average power per node of --power");
  CHECK_FALSE(s.energy_upper_bound);
}

TEST_CASE("a platform's power is its maximum unless it says it is a measured average: energy an upper bound",
          "[study][cost]") {
  topology::Platform tiny = topology::read_platform(kTiny);
  tiny.cost = topology::PlatformCost{std::nullopt, "", 1.2, "a datasheet's maximum"};
  const engine::Result r = result_of(0.36, 1, 0);
  study::CostOptions options;
  options.iterations = 10000;  // 2 node-hours
  const study::CostStudy maximum = study::study_cost(options, four_ranks(), tiny, {{"plain", &r}});
  CHECK(*maximum.figures[0].energy_kwh == Approx(2.4));
  CHECK(maximum.energy_upper_bound);
  CHECK(has(maximum.assumptions,
            "power: 1.2 kW per node, the platform's maximum (full-load) figure, not an average over the run "
            "(platform tiny, its \"cost\"; --power overrides): the energy is an upper bound"));
  CHECK(study::cost_rows(maximum).back().front() == "energy, at most");
  CHECK(study::cost_json(maximum).find("\"energy_basis\": \"upper bound: the platform's maximum (full-load) power "
                                       "per node, not an average over the run\"") != std::string::npos);
  CHECK(study::cost_csv(maximum).find("cost,energy_kwh,\"upper bound: the platform's maximum (full-load) power per "
                                      "node, not an average over the run\",2.400000\n") != std::string::npos);
  tiny.cost->power_kind = topology::PlatformCost::PowerKind::kAverage;
  const study::CostStudy average = study::study_cost(options, four_ranks(), tiny, {{"plain", &r}});
  CHECK_FALSE(average.energy_upper_bound);
  CHECK(has(average.assumptions,
            "power: 1.2 kW per node, an average measured over training (platform tiny, its \"cost\"; --power "
            "overrides)"));
  CHECK(study::cost_rows(average).back().front() == "energy");
  CHECK(average.energy_basis == "estimate: the platform's average power per node, measured over training");
}

TEST_CASE("cost options: either iterations or tokens, each in range, named as the flag", "[study][cost]") {
  auto error = [](study::CostOptions o) { return test::message_of([&] { study::check_cost_options(o); }); };
  study::CostOptions none;
  CHECK(error(none) ==
        "command line: field '--iterations/--tokens': give either --iterations N or --tokens N (with "
        "--tokens-per-iteration), N positive");
  study::CostOptions both;
  both.iterations = 1;
  both.tokens = 1;
  CHECK(error(both) ==
        "command line: field '--iterations': give either --iterations N or --tokens N (with "
        "--tokens-per-iteration), N positive");
  study::CostOptions tokens;
  tokens.tokens = 100;
  CHECK(error(tokens) ==
        "command line: field '--tokens-per-iteration': --tokens needs the tokens one iteration "
        "trains (global batch x sequence length)");
  study::CostOptions negative;
  negative.iterations = -2;
  CHECK(error(negative) == "command line: field '--iterations': expected a number in [0, 1e18], got \"-2\"");
  study::CostOptions price;
  price.iterations = 1;
  price.price = -1;
  CHECK(error(price) == "command line: field '--price': expected a number in [0, 1e9], got \"-1\"");
}
