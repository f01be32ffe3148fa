#include <catch2/catch.hpp>

#include <stdexcept>

#include "report/cost.hpp"

using namespace ccsim;

TEST_CASE("training cost: time, node-hours, money, energy by hand", "[report][cost]") {
  report::CostInputs in;
  in.iteration_s = 2.5;   // s
  in.iterations = 10000;  // -> 25,000 s
  in.nodes = 64;          // -> 64 * 25,000 / 3600 = 444.44 node-hours
  in.price_per_node_hour = 3.0;
  in.power_kw_per_node = 6.5;
  const report::CostFigures f = report::training_cost(in);
  CHECK(f.seconds == Approx(25000.0));
  CHECK(f.node_hours == Approx(444.444444));
  CHECK(*f.money == Approx(1333.333333));
  CHECK(*f.energy_kwh == Approx(2888.888889));
  in.price_per_node_hour.reset();
  CHECK_FALSE(report::training_cost(in).money.has_value());
  in.iteration_s = -1;
  CHECK_THROWS_AS(report::training_cost(in), std::invalid_argument);
}

TEST_CASE("durations read like durations", "[report][cost]") {
  CHECK(report::format_duration(12.5) == "12.5 s");
  CHECK(report::format_duration(600) == "10.0 min");
  CHECK(report::format_duration(5 * 3600) == "5.0 h");
  CHECK(report::format_duration(3 * 86400 + 5 * 3600 + 10) == "3 d 05 h");
}
