// The --set override layer (study/what_if.hpp) and its application by the platform reader.
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "study/what_if.hpp"
#include "topology/platform.hpp"
#include "support/error_of.hpp"

using namespace ccsim;

namespace {

const std::string kTiny = CCSIM_SOURCE_DIR "/tests/data/tiny.json";

study::WhatIf one(const std::string& setting) { return study::parse_what_if({setting}); }

std::string error_of(const std::vector<std::string>& settings) {
  return ccsim::test::message_of([&] { study::parse_what_if(settings); }, "(no error)");
}

topology::Platform tiny_with(const std::vector<std::string>& settings) {
  return topology::read_platform(kTiny, study::parse_what_if(settings).platform);
}

std::string platform_error(const std::vector<std::string>& settings) {
  try {
    tiny_with(settings);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("every key of the table parses a value of its documented form", "[what_if]") {
  const std::map<std::string, std::string> sample = {
      {"nodes", "8"},
      {"intra.bandwidth", "25GB/s"},
      {"intra.latency", "2us"},
      {"inter.bandwidth", "x2"},
      {"inter.latency", "1.5ms"},
      {"network.oversubscription", "16:3"},
      {"accelerator.flops", "3e13"},
      {"accelerator.reduce", "300GB/s"},
      {"accelerator.memory", "1TB/s"},
      {"compute.scale", "1.5"},
      {"compress", "szx:eb=1e-3"},
      {"compress.min_bytes", "1MiB"},
      {"algo", "ring"},
  };
  REQUIRE(sample.size() == study::what_if_keys().size());
  REQUIRE(study::what_if_key_names().size() == study::what_if_keys().size());
  CHECK(study::what_if_key_names().front() == study::what_if_keys().front().key);
  for (const study::WhatIfKey& key : study::what_if_keys()) {
    INFO(key.key);
    REQUIRE(sample.count(std::string(key.key)) == 1);
    const std::string setting = std::string(key.key) + "=" + sample.at(std::string(key.key));
    study::WhatIf w = one(setting);
    REQUIRE(w.settings == std::vector<std::string>{setting});
    CHECK_FALSE(key.description.empty());
    CHECK_FALSE(key.value.empty());
  }
}

TEST_CASE("values: factors, units and absolute values", "[what_if]") {
  study::WhatIf w =
      study::parse_what_if({"inter.bandwidth=x2", "intra.bandwidth=25GB/s", "intra.latency=2us", "inter.latency=500ns",
                            "nodes=4096", "compute.scale=1.5", "accelerator.reduce=1.4e10",
                            "network.oversubscription=16:3", "compress.min_bytes=1MiB", "algo=auto", "compress=none"});
  REQUIRE(w.settings.size() == 11);
  CHECK(w.platform.inter_bandwidth->factor);
  CHECK(w.platform.inter_bandwidth->value == 2.0);
  CHECK_FALSE(w.platform.intra_bandwidth->factor);
  CHECK(w.platform.intra_bandwidth->value == 25e9);
  CHECK(w.platform.intra_latency->value == Approx(2e-6).epsilon(1e-12));
  CHECK(w.platform.inter_latency->value == Approx(5e-7).epsilon(1e-12));
  CHECK(w.platform.nodes->value == 4096);
  CHECK(w.compute_scale == 1.5);
  CHECK(w.platform.compute_scale->value == 1.5);
  CHECK(w.platform.reduce->value == 1.4e10);
  CHECK(w.platform.oversubscription->value == Approx(16.0 / 3));
  CHECK(*w.compress_min_bytes == 1048576);
  CHECK(*w.algorithm == "auto");
  CHECK(*w.compress == "none");
  CHECK(one("intra.latency=1e-6").platform.intra_latency->value == 1e-6);
  CHECK(one("intra.latency=0.5s").platform.intra_latency->value == 0.5);
  CHECK(one("inter.bandwidth=1.5GiB/s").platform.inter_bandwidth->value == 1.5 * 1024 * 1024 * 1024);
  CHECK(one("compute.scale=x2").compute_scale == 2.0);
  CHECK(study::parse_what_if({}).empty());
}

TEST_CASE("errors name the key, the accepted forms and the range", "[what_if]") {
  CHECK(error_of({"bandwidth=x2"}) ==
        "--set: field 'bandwidth': unknown key \"bandwidth\"; valid keys: nodes, intra.bandwidth, intra.latency, "
        "inter.bandwidth, inter.latency, network.oversubscription, accelerator.flops, accelerator.reduce, "
        "accelerator.memory, compute.scale, compress, compress.min_bytes, algo");
  CHECK(error_of({"nodes"}).starts_with("--set: expected KEY=VALUE, got \"nodes\"; valid keys: nodes, "));
  CHECK(error_of({"inter.bandwidth=fast"}) ==
        "--set: field 'inter.bandwidth': expected a rate such as 25GB/s, or xF, got \"fast\"");
  CHECK(error_of({"inter.bandwidth=25GB"}) ==
        "--set: field 'inter.bandwidth': expected a rate such as 25GB/s, or xF, got \"25GB\"");
  CHECK(error_of({"inter.bandwidth=2000TB/s"}) ==
        "--set: field 'inter.bandwidth': expected 1000 to 1e+15 B/s, got \"2000TB/s\"");
  CHECK(error_of({"inter.bandwidth=x0"}) ==
        "--set: field 'inter.bandwidth': expected a factor x1e-06 to x1e+06 such as x2 or x0.5, got \"x0\"");
  CHECK(error_of({"inter.bandwidth=x-2"}) ==
        "--set: field 'inter.bandwidth': expected a factor x1e-06 to x1e+06 such as x2 or x0.5, got \"x-2\"");
  CHECK(error_of({"inter.bandwidth=xnan"}) ==
        "--set: field 'inter.bandwidth': expected a factor x1e-06 to x1e+06 such as x2 or x0.5, got \"xnan\"");
  CHECK(error_of({"intra.latency=2"}) == "--set: field 'intra.latency': expected 0 to 1 s, got \"2\"");
  CHECK(error_of({"intra.latency=-1us"}) == "--set: field 'intra.latency': expected 0 to 1 s, got \"-1us\"");
  CHECK(error_of({"intra.latency=2 us"}) ==
        "--set: field 'intra.latency': expected a time such as 2us (s, ms, us, ns), or xF, got \"2 us\"");
  CHECK(error_of({"nodes=0"}) == "--set: field 'nodes': expected 1 to 4.1943e+06 nodes, got \"0\"");
  CHECK(error_of({"nodes=1.5"}) == "--set: field 'nodes': expected a whole count such as 4096, or xF, got \"1.5\"");
  CHECK(error_of({"nodes=99999999999999999999"}) ==
        "--set: field 'nodes': expected a whole count such as 4096, or xF, got \"99999999999999999999\"");
  CHECK(
      error_of({"compute.scale=0"}) ==
      "--set: field 'compute.scale': expected a factor from 0.001 to 1000 such as 1.5 (compute 1.5x faster), got \"0\"");
  CHECK(error_of({"compute.scale=1e4"}) ==
        "--set: field 'compute.scale': expected a factor from 0.001 to 1000 such as 1.5 (compute 1.5x faster), got "
        "\"1e4\"");
  CHECK(error_of({"algo=fastest"})
            .starts_with("--set: field 'algo': unknown all_reduce algorithm \"fastest\"; choices: auto, ring, "));
  CHECK(error_of({"compress=cuszp:eps=3"}).starts_with("--set: field 'compress': eps: unknown key"));
  CHECK(error_of({"compress.min_bytes=lots"}) ==
        "--set: field 'compress.min_bytes': expected a byte count such as 4096, 16MiB or 1.5GB, got \"lots\"");
  CHECK(error_of({"network.oversubscription=1:2"}) ==
        "--set: field 'network.oversubscription': expected 1 to 1024 (down:up), got \"1:2\"");
  CHECK(error_of({"inter.bandwidth="}) ==
        "--set: field 'inter.bandwidth': expected a rate such as 25GB/s, or xF, got \"\"");
  CHECK(error_of({"inter.bandwidth=x2", "inter.bandwidth=x3"}) ==
        "--set: field 'inter.bandwidth': set twice (\"inter.bandwidth=x3\"); give each key once");
}

TEST_CASE("the platform reader applies the settings before it builds", "[what_if]") {
  topology::Platform base = topology::read_platform(kTiny);
  const topology::Network& b = base.network;
  const double nic = b.link(b.nic_link(0, 0)).bandwidth_Bps;
  const double intra = b.link(b.intra_link(0)).bandwidth_Bps;
  REQUIRE(nic == 1e9);
  REQUIRE(intra == 1e10);

  topology::Platform p = tiny_with({"inter.bandwidth=x2", "intra.latency=2us", "nodes=8", "compute.scale=1.5",
                                    "accelerator.reduce=20GB/s", "intra.bandwidth=x0.5"});
  const topology::Network& n = p.network;
  CHECK(n.node_count() == 8);
  CHECK(n.accelerator_count() == 16);
  CHECK(n.link(n.nic_link(7, 0)).bandwidth_Bps == 2e9);
  CHECK(n.link(n.intra_link(15)).bandwidth_Bps == 5e9);
  CHECK(n.link(n.intra_link(0)).latency_s == Approx(2e-6).epsilon(1e-12));
  CHECK(n.link(n.nic_link(0, 0)).latency_s == b.link(b.nic_link(0, 0)).latency_s);
  CHECK(n.accelerator().flops == 1.5e12);
  CHECK(n.accelerator().reduce_Bps == 2e10);
  // Between nodes: intra (2 us), NIC (5 us), NIC, intra; bottleneck the doubled NIC.
  topology::Network::PathCost path = n.path_cost(0, 2);
  CHECK(path.latency_s == Approx(14e-6).epsilon(1e-12));
  CHECK(path.bandwidth_Bps == 2e9);

  topology::Platform faster = tiny_with({"inter.latency=x0.5", "accelerator.flops=x4"});
  CHECK(faster.network.link(faster.network.nic_link(0, 0)).latency_s == Approx(2.5e-6).epsilon(1e-12));
  CHECK(faster.network.accelerator().flops == 4e12);
  CHECK(tiny_with({"accelerator.memory=1TB/s"}).network.accelerator().memory_Bps == 1e12);
}

TEST_CASE("a result beyond the reader's limits is refused, naming the setting", "[what_if]") {
  CHECK(platform_error({"intra.bandwidth=x1e6"}) ==
        "--set: field 'intra.bandwidth': expected 1000 to 1e+15 B/s (the limits of platform files, "
        "platforms/README.md), got 1e+16 B/s (1e+10 B/s of the platform x 1e+06)");
  CHECK(platform_error({"inter.latency=x1e6"}) ==
        "--set: field 'inter.latency': expected 0 to 1 s (the limits of platform files, platforms/README.md), got 5 s "
        "(5e-06 s of the platform x 1e+06)");
  CHECK(platform_error({"nodes=x0.3"}) ==
        "--set: field 'nodes': expected a whole number of nodes, got 1.2 (4 nodes of the platform x 0.3)");
  CHECK(platform_error({"nodes=x2000000"}) ==
        "--set: field 'nodes': expected a factor x1e-06 to x1e+06 such as x2 or x0.5, got \"x2000000\"");
  // A platform the settings make too large: the reader's own message, with the settings.
  CHECK_THAT(platform_error({"nodes=x1000000"}),
             Catch::StartsWith(kTiny) && Catch::EndsWith("(with --set nodes=x1000000)"));
  CHECK(platform_error({"accelerator.memory=x2"}) ==
        "--set: field 'accelerator.memory': the platform gives no memory_Bps to scale; give an absolute rate such as "
        "1TB/s");
  CHECK(platform_error({"compute.scale=1e-3", "accelerator.flops=1e6"}) ==
        "--set: field 'compute.scale': expected 1e+06 to 1e+18 FLOP/s (the limits of platform files, "
        "platforms/README.md), got 1000 FLOP/s (1e+06 FLOP/s of the platform x 0.001)");
}

TEST_CASE("a setting says when the run had nothing for it to act on", "[what_if]") {
  study::RunFacts f;  // a run with every kind of thing to act on
  f.platform = "tiny";
  f.ranks = 4;
  f.nodes_used = 2;
  f.rate_timed = 3;
  f.all_reduces = 2;
  f.reduce_scatters = 0;
  f.compressed = true;
  std::vector<std::string> all;
  for (const study::WhatIfKey& k : study::what_if_keys()) all.push_back(std::string(k.key) + "=x2");
  CHECK(study::idle_settings(all, f).empty());

  const std::vector<std::string> network = {"inter.bandwidth=x2",         "intra.latency=1us", "inter.latency=x0.5",
                                            "network.oversubscription=2", "nodes=8",           "compute.scale=2"};
  study::RunFacts one_node = f;
  one_node.nodes_used = 1;
  const std::vector<std::string> idle = study::idle_settings(network, one_node);
  REQUIRE(idle.size() == 3);
  CHECK(idle[0] ==
        "inter.bandwidth=x2: no effect: it changes the network between nodes, and all 4 ranks were on one node of "
        "tiny, so no message crossed that network");
  CHECK(idle[1].starts_with("inter.latency=x0.5: no effect: "));
  CHECK(idle[2].starts_with("network.oversubscription=2: no effect: "));
  one_node.ranks = 1;
  CHECK(study::idle_settings({"inter.bandwidth=x2"}, one_node).front().find("all 1 rank was on one node") !=
        std::string::npos);
  study::RunFacts unknown;  // nothing known: nothing said
  CHECK(study::idle_settings(all, unknown).empty());

  study::RunFacts kept = f;  // every compute operator has its own duration
  kept.rate_timed = 0;
  CHECK(study::idle_settings({"accelerator.flops=x2", "accelerator.memory=1TB/s", "compute.scale=2"}, kept) ==
        std::vector<std::string>{
            "accelerator.flops=x2: no effect: it changes the rates that time compute operators without a measured "
            "duration (or rescale one, --compute rescale), and every compute operator kept its measured duration "
            "(compute.scale=F makes them F times faster)",
            "accelerator.memory=1TB/s: no effect: it changes the rates that time compute operators without a measured "
            "duration (or rescale one, --compute rescale), and every compute operator kept its measured duration "
            "(compute.scale=F makes them F times faster)"});

  study::RunFacts p2p = f;  // no all_reduce
  p2p.all_reduces = 0;
  CHECK(study::idle_settings({"algo=ring", "compress=cuszp", "accelerator.reduce=x2"}, p2p) ==
        std::vector<std::string>{"algo=ring: no effect: the trace has no all_reduce",
                                 "compress=cuszp: no effect: the trace has no all_reduce",
                                 "accelerator.reduce=x2: no effect: the trace has no all_reduce or reduce_scatter"});
  p2p.reduce_scatters = 1;
  CHECK(study::idle_settings({"accelerator.reduce=x2"}, p2p).empty());

  study::RunFacts flat = f;  // a network of one switch: no level for network.oversubscription
  flat.upper_levels = false;
  flat.topology = "switch";
  CHECK(study::idle_settings({"network.oversubscription=2", "inter.bandwidth=x2"}, flat) ==
        std::vector<std::string>{"network.oversubscription=2: no effect: it changes the network's levels above the "
                                 "first, and the network of tiny (switch) has none"});

  study::RunFacts collective = f;  // whatif --collective: one all_reduce, every algorithm, no compute
  collective.compute_ops = collective.rate_timed = 0;
  collective.every_algorithm = true;
  CHECK(study::idle_settings({"compute.scale=2", "accelerator.memory=x2", "algo=ring", "compress=int8"}, collective) ==
        std::vector<std::string>{"compute.scale=2: no effect: the run has no compute operator",
                                 "accelerator.memory=x2: no effect: the run has no compute operator",
                                 "algo=ring: no effect: every algorithm is predicted, and auto's choice is said"});

  study::RunFacts plain = f;
  plain.compressed = false;
  CHECK(study::idle_settings({"compress.min_bytes=1MiB"}, plain) ==
        std::vector<std::string>{"compress.min_bytes=1MiB: no effect: no all_reduce was compressed (--compress NAME, "
                                 "or --set compress=NAME)"});
}

TEST_CASE("a bandwidth setting that leaves messages bound by another link says which, and by how much", "[what_if]") {
  // tiny: intra_link 10 GB/s, nic_link 1 GB/s, one switch; 4 nodes of 2 accelerators.
  const topology::Platform base = topology::read_platform(kTiny);
  auto notes = [&](const std::vector<std::string>& settings, int nodes, bool within) {
    return study::bottleneck_notes(settings, base.network, tiny_with(settings).network, nodes, within);
  };
  // x2 on the NIC: still the slowest link, so the rate doubles with it: nothing to say.
  CHECK(notes({"inter.bandwidth=x2"}, 4, true).empty());
  // x20: the NIC (20 GB/s) passes the intra link, which binds now: x10, not x20.
  CHECK(notes({"inter.bandwidth=x20"}, 4, true) ==
        std::vector<std::string>{
            "inter.bandwidth=x20: messages between nodes are now bound by the 10 GB/s intra link (accelerator to node "
            "hub: the platform's intra_link), which the setting leaves as it was: their lone rate grows x10 (1 GB/s "
            "to 10 GB/s), not x20 as the links it changes"});
  // x10: the NIC reaches the intra link's 10 GB/s, and the rate grows x10 with it: nothing to say.
  CHECK(notes({"inter.bandwidth=x10"}, 4, true).empty());
  // An absolute value names the same.
  CHECK(notes({"inter.bandwidth=40GB/s"}, 4, false).size() == 1);
  // The intra link between nodes: the NIC binds before and after.
  CHECK(notes({"intra.bandwidth=x2"}, 4, true) ==
        std::vector<std::string>{
            "intra.bandwidth=x2: messages between nodes stay bound by the 1 GB/s nic link (node hub to the network: "
            "the platform's nic_link), which the setting leaves as it was: their lone rate stays 1 GB/s"});
  // ... and on one node only, no message crosses the NIC: the intra link binds, nothing to say.
  CHECK(notes({"intra.bandwidth=x2"}, 1, true).empty());
  // Slowed below the NIC, the intra link binds messages between nodes: x0.5, not x0.05.
  CHECK(notes({"intra.bandwidth=x0.05"}, 4, true) ==
        std::vector<std::string>{
            "intra.bandwidth=x0.05: messages between nodes were bound by the 1 GB/s nic link (node hub to the "
            "network: the platform's nic_link), which the setting leaves as it was, and are now bound by the 500 MB/s "
            "intra link (accelerator to node hub: the platform's intra_link): their lone rate falls x0.5 (1 GB/s to "
            "500 MB/s), not x0.05 as the links it changes"});
  // Both links at once, by the same factor: the rate follows them.
  CHECK(notes({"intra.bandwidth=x2", "inter.bandwidth=x2"}, 4, true).empty());
  // Other settings say nothing here.
  CHECK(notes({"inter.latency=x2", "nodes=8"}, 4, true).empty());
}
