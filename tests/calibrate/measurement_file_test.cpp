#include <catch2/catch.hpp>

#include <string>

#include "calibrate/measurement_file.hpp"
#include "core/input_error.hpp"
#include "support/error_of.hpp"

using namespace ccsim;

namespace {

// Line numbers below count from this text's first line.
std::string file_json(const std::string& series, const std::string& top = "") {
  return R"({
  "format": "ccsim-measurements",
  "version": 1,
  "machine": {"processes": 2, "nodes": 1, "cpu": "test", "hosts": ["a", "a"]},
  "series": [
    )" + series +
         R"(
  ],
  "p2p": [
    {"pattern": "ping-pong", "transport": "mpi", "pairs": 1, "bytes": 8, "reps": 3,
     "time_s": {"median": 1e-6}, "samples_s": [1e-6, 1e-6, 1e-6]}
  ])" + top +
         R"(
})";
}

const std::string kSeries = R"({"op": "all_reduce", "implementation": "ccsim-schedule", "algorithm": "ring",
     "transport": "mpi", "codec": null, "group": "world", "group_size": 2, "bytes": 1024,
     "time_s": {"median": 2e-6, "p90": 3e-6}})";

std::string error_of(const std::string& text) {
  return ccsim::test::message_of([&] { calibrate::parse_measurements(text, "m.json"); });
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("a measurement file gives its series and p2p points", "[calibrate][measurements]") {
  calibrate::MeasurementFile m = calibrate::parse_measurements(file_json(kSeries), "m.json");
  CHECK(m.processes == 2);
  REQUIRE(m.series.size() == 1);
  CHECK(m.series[0].algorithm == "ring");
  CHECK_FALSE(m.series[0].codec);
  CHECK(m.series[0].bytes == 1024);
  CHECK(m.series[0].median_s == 2e-6);
  CHECK(m.series[0].line == 6);
  CHECK(m.series[0].field == "series[0]");
  REQUIRE(m.p2p.size() == 1);
  CHECK(m.p2p[0].pattern == "ping-pong");
  CHECK(m.p2p[0].median_s == 1e-6);
}

TEST_CASE("measurement reader errors name file, line and field", "[calibrate][measurements]") {
  CHECK(error_of(with(file_json(kSeries), "ccsim-measurements", "ccsim-measurement")) ==
        "m.json:2: field 'format': expected \"ccsim-measurements\", got \"ccsim-measurement\"");
  CHECK(error_of(with(file_json(kSeries), "\"version\": 1", "\"version\": 2")) ==
        "m.json:3: field 'version': expected 1 (the only version this build reads), got \"2\"");
  CHECK(error_of(with(file_json(kSeries), "\"median\": 2e-6", "\"median\": -2e-6")) ==
        "m.json:8: field 'series[0].time_s.median': expected a positive number, got \"-2e-6\"");
  CHECK(error_of(with(file_json(kSeries), "\"group_size\": 2", "\"group_size\": 4")) ==
        "m.json:6: field 'series[0].group_size': expected at most the 2 processes of machine.processes, got \"4\"");
  CHECK(error_of(with(file_json(kSeries), "\"transport\": \"mpi\", \"codec\"", "\"transport\": \"tcp\", \"codec\"")) ==
        "m.json:7: field 'series[0].transport': expected one of mpi, ucx, got \"tcp\"");
  CHECK(error_of(with(file_json(kSeries), "\"bytes\": 1024", "\"bytes\": 0")) ==
        "m.json:7: field 'series[0].bytes': expected a positive integer, got \"0\"");
  CHECK(
      error_of(with(file_json(kSeries), "\"group\": \"world\"", "\"grup\": \"world\"")) ==
      "m.json:7: field 'series[0].grup': unknown key; did you mean group? valid keys here: algorithm, bytes, check, codec, count, dtype, "
      "error_feedback, group, group_size, groups, implementation, messages_per_rank, op, ratio, reps, rounds, samples_s, "
      "time_s, transport, warmup, wire_bytes_per_rank");
  CHECK(error_of(with(file_json(kSeries), "\"pattern\": \"ping-pong\"", "\"pattern\": \"ping\"")) ==
        "m.json:11: field 'p2p[0].pattern': expected one of ping-pong, pairs, got \"ping\"");
  CHECK(error_of(file_json(kSeries, ",\n  \"extra\": 1")) ==
        "m.json:14: field 'extra': unknown key; valid keys here: command, data, failed_checks, format, groups, layout, "
        "machine, p2p, series, version");
}

TEST_CASE("a measurement file gives its cores, protocol limits and the spread of each point",
          "[calibrate][measurements]") {
  const std::string machine = R"("machine": {"processes": 2, "nodes": 1, "cpu": "test", "hosts": ["a", "a"]})";
  const std::string recorded = R"("machine": {"processes": 4, "nodes": 1, "cpu": "test", "hosts": ["a", "a", "a", "a"],
    "cores_per_node": 2, "protocol_limits": {"btl_tcp_eager_limit": 65536, "btl_vader_eager_limit": 4096}})";
  const std::string series = with(kSeries, "\"median\": 2e-6", "\"p10\": 1.5e-6, \"median\": 2e-6");
  calibrate::MeasurementFile m = calibrate::parse_measurements(with(file_json(series), machine, recorded), "m.json");
  CHECK(m.cores_per_node == 2);
  REQUIRE(m.protocol_limits.size() == 2);
  CHECK(m.protocol_limits[0] == std::make_pair(std::string("btl_tcp_eager_limit"), std::uint64_t{65536}));
  CHECK(m.protocol_limits[1].second == 4096);
  REQUIRE(m.series[0].p10_s);
  CHECK(*m.series[0].p10_s == 1.5e-6);
  CHECK(*m.series[0].p90_s == 3e-6);
  CHECK(calibrate::core_sharing(m) == 2);
  m.processes = 2;
  CHECK(calibrate::core_sharing(m) == 1);
  m.cores_per_node = 0;  // not recorded
  m.processes = 64;
  CHECK(calibrate::core_sharing(m) == 1);

  const std::string file = with(file_json(kSeries), machine, recorded);
  CHECK(error_of(with(file, "\"btl_vader_eager_limit\": 4096", "\"btl_vader_eager_limit\": 0")) ==
        "m.json:5: field 'machine.protocol_limits.btl_vader_eager_limit': expected an integer from 1 to 1099511627776, "
        "got \"0\"");
  CHECK(error_of(with(file, "\"btl_vader_eager_limit\": 4096", "\"btl_vader_eager_limit\": 4.5")) ==
        "m.json:5: field 'machine.protocol_limits.btl_vader_eager_limit': expected an integer from 1 to 1099511627776, "
        "got \"4.5\"");
  CHECK(error_of(with(file, "{\"btl_tcp_eager_limit\": 65536, \"btl_vader_eager_limit\": 4096}", "[4096]")) ==
        "m.json:5: field 'machine.protocol_limits': expected an object, got [...]");
  CHECK(error_of(with(file, "\"cores_per_node\": 2", "\"cores_per_node\": 0")).find("'machine.cores_per_node'") !=
        std::string::npos);
  CHECK(error_of(with(file_json(series), "\"p10\": 1.5e-6", "\"p10\": 2.5e-6")) ==
        "m.json:8: field 'series[0].time_s': expected p10 <= median <= p90, got 2.5e-06 <= 2e-06 <= 3e-06");
}

TEST_CASE("a measurement through a per-port emulated link gives each process's link rate",
          "[calibrate][measurements]") {
  const std::string machine = R"("machine": {"processes": 2, "nodes": 1, "cpu": "test", "hosts": ["a", "a"]})";
  const auto link = [&](const std::string& settings) {
    return with(file_json(kSeries), machine,
                R"("machine": {"processes": 2, "nodes": 1, "cpu": "test", "hosts": ["a", "a"], "emulated_link": {)" +
                    settings + "}}");
  };
  CHECK(calibrate::parse_measurements(link(R"("rate": "1gbit", "links": "per-port", "mtu": "9000")"), "m.json")
            .link_Bps == 1.25e8);
  CHECK(calibrate::parse_measurements(link(R"("rate": "100mbps", "links": "per-port")"), "m.json").link_Bps == 1e8);
  // Shared classes: processes share the link, no rate of their own.
  CHECK(calibrate::parse_measurements(link(R"("rate": "1gbit", "links": "shared")"), "m.json").link_Bps == 0);
  CHECK(calibrate::parse_measurements(file_json(kSeries), "m.json").link_Bps == 0);
  CHECK_THAT(
      error_of(link(R"("rate": "fast", "links": "per-port")")),
      Catch::Contains(
          "field 'machine.emulated_link.rate': expected a rate in tc's units (e.g. 1gbit, 125mbps), got \"fast\""));
  CHECK(calibrate::tc_rate_Bps("2.5gbit") == 3.125e8);
  CHECK(calibrate::tc_rate_Bps("800kbit") == 1e5);
  CHECK(calibrate::tc_rate_Bps("1tbps") == 1e12);
  CHECK(calibrate::tc_rate_Bps("1 gbit") == 0);
  CHECK(calibrate::tc_rate_Bps("gbit") == 0);
}
