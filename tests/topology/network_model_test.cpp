#include <catch2/catch.hpp>

#include <string>

#include "core/input_error.hpp"
#include "topology/network_model.hpp"
#include "support/error_of.hpp"

using namespace ccsim;
using topology::parse_network_model;

namespace {

// Line numbers below count from this text's first line.
std::string model_json(const std::string& segments, const std::string& extra = "") {
  return R"({
  "format": "ccsim-network-model",
  "version": 1,
  "name": "t",
  "description": "test",
  "hardware": "none",
  "source": "by hand",
  "tiers": {
    "intra": {
      "send_overhead_s": 1e-6,
      "recv_overhead_s": 2e-6,
      "segments": )" +
         segments + R"(
    }
  })" + extra +
         R"(
})";
}

const std::string kTwo = R"([{"min_bytes": 0, "latency_s": 1e-6, "bandwidth_Bps": 1e9},
        {"min_bytes": 65536, "latency_s": 5e-6, "bandwidth_Bps": 4e9}])";

std::string error_of(const std::string& text) {
  return ccsim::test::message_of([&] { parse_network_model(text, "m.json"); });
}

}  // namespace

TEST_CASE("a tier's message cost follows its segments", "[topology][network-model]") {
  topology::NetworkModel m = parse_network_model(model_json(kTwo), "m.json");
  REQUIRE(m.has_intra);
  CHECK_FALSE(m.has_inter);
  CHECK(m.intra.at(0).min_bytes == 0);
  CHECK(m.intra.at(65535).min_bytes == 0);
  CHECK(m.intra.at(65536).min_bytes == 65536);
  CHECK(m.intra.at(65536).latency_s == 5e-6);
  // 1 + 2 us overheads, 1 us latency, 1000 bytes at 1 GB/s = 1 us.
  CHECK(m.intra.message_s(1000) == Approx(5e-6).epsilon(1e-12));
  // 3 us overheads, 5 us latency, 1 MiB at 4 GB/s.
  CHECK(m.intra.message_s(1 << 20) == Approx(8e-6 + (1 << 20) / 4e9).epsilon(1e-12));
}

TEST_CASE("a ramp goes from one segment's values to the next along a straight line in log size",
          "[topology][network-model]") {
  // 1 KiB .. 16 KiB ramps from 1 us and 1 GB/s to 5 us and 0.5 GB/s (time per byte 1 ns -> 2 ns).
  topology::NetworkModel m =
      parse_network_model(model_json(R"([{"min_bytes": 0, "latency_s": 1e-7, "bandwidth_Bps": 2e9},
        {"min_bytes": 1024, "latency_s": 1e-6, "bandwidth_Bps": 1e9, "ramp": true},
        {"min_bytes": 16384, "latency_s": 5e-6, "bandwidth_Bps": 5e8}])"),
                          "m.json");
  CHECK(m.intra.at(1023).latency_s == 1e-7);  // a step into the ramp's start
  CHECK(m.intra.at(1024).latency_s == Approx(1e-6).epsilon(1e-12));
  CHECK(m.intra.at(2048).latency_s == Approx(2e-6).epsilon(1e-12));  // a quarter of the way in log size
  CHECK(1 / m.intra.at(2048).bandwidth_Bps == Approx(1.25e-9).epsilon(1e-12));
  CHECK(m.intra.at(4096).latency_s == Approx(3e-6).epsilon(1e-12));  // half way
  CHECK(m.intra.at(16383).latency_s == Approx(5e-6).epsilon(1e-4));
  CHECK(m.intra.at(16384).latency_s == 5e-6);
  CHECK(m.intra.at(1e9).bandwidth_Bps == 5e8);
  // 3 us overheads + 3 us + 4096 bytes at 1.5 ns.
  CHECK(m.intra.message_s(4096) == Approx(6e-6 + 4096 * 1.5e-9).epsilon(1e-12));
  CHECK(topology::ramp_weight(2048, 1024, 16384) == Approx(0.25));
  CHECK(topology::ramp_weight(10, 1024, 16384) == 0);
  CHECK(topology::ramp_weight(1e12, 1024, 16384) == 1);
  topology::NetworkModel back = parse_network_model(topology::write_network_model(m), "w.json");
  CHECK(back.intra.segments[1].ramp);
  CHECK_FALSE(back.intra.segments[0].ramp);
  CHECK(topology::write_network_model(back) == topology::write_network_model(m));
  CHECK(
      error_of(model_json(R"([{"min_bytes": 0, "latency_s": 0, "bandwidth_Bps": 1e9, "ramp": true},
        {"min_bytes": 64, "latency_s": 0, "bandwidth_Bps": 1e9}])")) ==
      "m.json:12: field 'tiers.intra.segments[0].ramp': expected false or no ramp on a segment from 0 bytes (a ramp is "
      "a straight line in log(bytes)), got true");
  CHECK(
      error_of(model_json(R"([{"min_bytes": 0, "latency_s": 0, "bandwidth_Bps": 1e9},
        {"min_bytes": 64, "latency_s": 0, "bandwidth_Bps": 1e9, "ramp": true}])")) ==
      "m.json:13: field 'tiers.intra.segments[1].ramp': expected false or no ramp on the last segment (a ramp goes to "
      "the next segment's values), got true");
  CHECK(error_of(model_json(R"([{"min_bytes": 0, "latency_s": 0, "bandwidth_Bps": 1e9, "ramp": 1}])"))
            .find("segments[0].ramp") != std::string::npos);
}

TEST_CASE("a network model survives writing and reading", "[topology][network-model]") {
  topology::NetworkModel m = parse_network_model(model_json(kTwo, R"(,
  "reduce_s_per_byte": 1e-10,
  "fitted_on": {"file": "m.json", "series": "ring/mpi", "ranks": 2, "bytes": [1024, 4096]})"),
                                                 "m.json");
  m.has_inter = true;
  m.inter = m.intra;
  m.inter.segments[1].bandwidth_Bps = 1e10 / 3.0;  // no short decimal form
  topology::NetworkModel back = parse_network_model(topology::write_network_model(m), "w.json");
  CHECK(back.name == "t");
  CHECK(back.source == "by hand");
  CHECK(back.has_inter);
  CHECK(back.inter.segments[1].bandwidth_Bps == 1e10 / 3.0);
  CHECK(back.intra.send_overhead_s == 1e-6);
  CHECK(back.reduce_s_per_byte == 1e-10);
  REQUIRE(back.fitted_on);
  CHECK(back.fitted_on->series == "ring/mpi");
  CHECK(back.fitted_on->ranks == 2);
  CHECK(back.fitted_on->bytes == std::vector<std::uint64_t>{1024, 4096});
  CHECK(topology::write_network_model(back) == topology::write_network_model(m));
}

TEST_CASE("network model reader errors name file, line and field", "[topology][network-model]") {
  CHECK(error_of(model_json(R"([{"min_bytes": 1, "latency_s": 0, "bandwidth_Bps": 1e9}])")) ==
        "m.json:12: field 'tiers.intra.segments[0].min_bytes': expected 0 (the first segment starts at 0), got \"1\"");
  CHECK(error_of(model_json(R"([{"min_bytes": 0, "latency_s": 0, "bandwidth_Bps": 1e9},
        {"min_bytes": 0, "latency_s": 0, "bandwidth_Bps": 1e9}])")) ==
        "m.json:13: field 'tiers.intra.segments[1].min_bytes': expected more than the previous segment's 0, got \"0\"");
  CHECK(
      error_of(model_json(R"([{"min_bytes": 0, "latency_s": -1e-6, "bandwidth_Bps": 1e9}])")) ==
      "m.json:12: field 'tiers.intra.segments[0].latency_s': expected a non-negative number of at most 1, got \"-1e-6\"");
  CHECK(error_of(model_json(R"([{"min_bytes": 0, "latency_s": 0, "bandwidth_Bps": 0}])")) ==
        "m.json:12: field 'tiers.intra.segments[0].bandwidth_Bps': expected a number from 1000 to 1e+15, got \"0\"");
  // Limits keep every message cost finite: found by tests/fuzz (a bandwidth of 1e-300 made a
  // message last forever).
  CHECK(
      error_of(model_json(R"([{"min_bytes": 0, "latency_s": 0, "bandwidth_Bps": 1e-300}])")) ==
      "m.json:12: field 'tiers.intra.segments[0].bandwidth_Bps': expected a number from 1000 to 1e+15, got \"1e-300\"");
  CHECK(
      error_of(model_json(R"([{"min_bytes": 0, "latency_s": 1e300, "bandwidth_Bps": 1e9}])")) ==
      "m.json:12: field 'tiers.intra.segments[0].latency_s': expected a non-negative number of at most 1, got \"1e300\"");
  CHECK(error_of(model_json(R"([{"min_bytes": 0, "latency_s": 0, "bandwidth_Bps": 1e999}])")) ==
        "m.json:12: field 'tiers.intra.segments[0].bandwidth_Bps': expected a finite number, got \"1e999\"");
  CHECK(error_of(model_json(R"([{"min_bytes": 0, "latency_s": 0, "bandwith_Bps": 1}])")) ==
        "m.json:12: field 'tiers.intra.segments[0].bandwidth_Bps': missing (required); the object has "
        "\"bandwith_Bps\": did you mean bandwidth_Bps?");
  CHECK(error_of(model_json("[]")) == "m.json:12: field 'tiers.intra.segments': expected at least one segment, got []");
  std::string bad_overhead = model_json(kTwo);
  bad_overhead.replace(bad_overhead.find("2e-6"), 4, "-2");
  CHECK(error_of(bad_overhead) ==
        "m.json:11: field 'tiers.intra.recv_overhead_s': expected a non-negative number of at most 1, got \"-2\"");
  std::string bad_format = model_json(kTwo);
  bad_format.replace(bad_format.find("ccsim-network-model"), 19, "ccsim-network");
  CHECK(error_of(bad_format) == "m.json:2: field 'format': expected \"ccsim-network-model\", got \"ccsim-network\"");
  CHECK(
      error_of(model_json(kTwo, R"(,
  "fited_on": [])")) ==
      "m.json:16: field 'fited_on': unknown key; did you mean fitted_on? valid keys here: description, fitted_on, format, "
      "hardware, name, reduce_s_per_byte, source, tiers, version");
}

TEST_CASE("below the smallest message of a bandwidth-bound fit, a message follows the segment's line",
          "[topology][network-model]") {
  // Fitted from 1 MiB up, where 1 MiB costs 262 us of bytes against 8 us of latency and
  // overheads: a 64 KiB compressed chunk costs its own bytes, not 1 MiB's.
  std::string text = model_json(kTwo);
  text.replace(text.find("\"segments\": "), 12, "\"floor_bytes\": 1048576, \"segments\": ");
  const topology::NetworkModel m = parse_network_model(text, "m.json");
  CHECK_FALSE(m.intra.floor_latency_bound());
  CHECK(m.intra.message_s(65536) == Approx(3e-6 + 5e-6 + 65536 / 4e9).epsilon(1e-12));
  CHECK(m.intra.message_s(1024) ==
        Approx(3e-6 + 5e-6 + 1024 / 4e9).epsilon(1e-12));  // the floor's segment, not the first
  CHECK(m.intra.message_s(1 << 20) == Approx(3e-6 + 5e-6 + (1 << 20) / 4e9).epsilon(1e-12));
  CHECK_THAT(m.intra.extrapolation(), Catch::Contains("by the line of the segment of 1048576 B"));
}

TEST_CASE("below the smallest message a tier was fitted on, a message costs what one of that size does",
          "[topology][network-model]") {
  std::string text = model_json(kTwo);
  text.replace(text.find("\"segments\": "), 12, "\"floor_bytes\": 512, \"segments\": ");
  const topology::NetworkModel m = parse_network_model(text, "m.json");
  CHECK(m.intra.floor_bytes == 512);
  // 3 us overheads, 1 us latency, 512 bytes at 1 GB/s, for 100 bytes as for 512.
  CHECK(m.intra.message_s(100) == Approx(4e-6 + 512e-9).epsilon(1e-12));
  CHECK(m.intra.message_s(512) == Approx(4e-6 + 512e-9).epsilon(1e-12));
  CHECK(m.intra.at(100).latency_s == Approx(1e-6 + 412e-9).epsilon(1e-12));
  CHECK(m.intra.message_s(1000) == Approx(5e-6).epsilon(1e-12));  // above it, the segment's line
  // Shared cores stretch the floor's cost like any other.
  CHECK(topology::on_shared_cores(m.intra, 2).message_s(100) == Approx(2 * (4e-6 + 512e-9)).epsilon(1e-12));
  CHECK(parse_network_model(topology::write_network_model(m), "w.json").intra.floor_bytes == 512);  // written back
  text.replace(text.find("\"floor_bytes\": 512"), 18, "\"floor_bytes\": -1");
  CHECK_THAT(error_of(text), Catch::Contains("field 'tiers.intra.floor_bytes'"));
  CHECK(m.intra.floor_latency_bound());  // 4 us of latency and overheads against 0.512 us of bytes
  CHECK(m.intra.extrapolates(100));
  CHECK_FALSE(m.intra.extrapolates(512));
  CHECK_THAT(m.intra.extrapolation(), Catch::Contains("as one of 512 B"));
}

TEST_CASE("a link each process has to itself is not time-shared with the core: the CPU's part of a byte is",
          "[topology][network-model]") {
  std::string text = model_json(kTwo);
  const topology::NetworkModel plain = parse_network_model(text, "m.json");
  text.replace(text.find("\"segments\": "), 12, "\"link_bandwidth_Bps\": 5e8, \"segments\": ");
  const topology::NetworkModel m = parse_network_model(text, "m.json");
  CHECK(m.intra.link_Bps == 5e8);
  // The intra tier's segment from 0 runs at 1 GB/s, faster than the 0.5 GB/s link (bytes within
  // its burst): kept. Without a link every bandwidth is halved at 2 processes per core.
  CHECK(topology::on_shared_cores(m.intra, 2).segments[0].bandwidth_Bps == 1e9);
  CHECK(topology::on_shared_cores(plain.intra, 2).segments[0].bandwidth_Bps == 5e8);
  // A segment slower than the link: 1 / 0.25 GB/s = 4 ns per byte, 2 of them the wire's; at 2
  // processes per core 2 + 2 x 2 = 6 ns per byte, not 8.
  topology::TierModel slow = m.intra;
  slow.segments[0].bandwidth_Bps = 2.5e8;
  CHECK(topology::on_shared_cores(slow, 2).segments[0].bandwidth_Bps == Approx(1 / 6e-9).epsilon(1e-12));
  CHECK(topology::on_shared_cores(slow, 2).segments[0].latency_s == 2 * slow.segments[0].latency_s);
  slow.link_Bps = 0;
  CHECK(topology::on_shared_cores(slow, 2).segments[0].bandwidth_Bps == 1.25e8);
  CHECK(parse_network_model(topology::write_network_model(m), "w.json").intra.link_Bps == 5e8);  // written back
  CHECK(write_network_model(plain).find("link_bandwidth_Bps") == std::string::npos);
  text.replace(text.find("\"link_bandwidth_Bps\": 5e8"), 25, "\"link_bandwidth_Bps\": 0.5");
  CHECK_THAT(error_of(text), Catch::Contains("field 'tiers.intra.link_bandwidth_Bps'"));
}
