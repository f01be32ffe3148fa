// How long building the platform of 10,240 accelerators takes, and how much memory it uses:
// the Boost.Graph network (topology::Network) and the SimGrid platform the engine builds
// from it (every accelerator a host, every link a SimGrid link). Each memory figure is the
// peak resident size of a fresh child process that builds one platform, minus that of a
// child that builds nothing.
//
//   build/bench/ccsim_bench --benchmark_counters_tabular=true

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "engine/graph_zone.hpp"
#include "engine/sg_engine.hpp"
#include "topology/platform.hpp"

namespace {

using namespace ccsim;

/// 10,240 accelerators in four shapes.
std::string platform_json(const std::string& shape) {
  const char* node = R"("node": {"accelerators": %d,
    "accelerator": {"model": "b", "flops": 1e14, "reduce_Bps": 1e12, "source": "bench"},
    "intra_link": {"bandwidth_Bps": 4.5e11, "latency_s": 1e-6, "source": "bench"}, "nics": %d,
    "nic_link": {"bandwidth_Bps": 5e10, "latency_s": 1e-6, "source": "bench"}})";
  auto doc = [&](int nodes, int per_node, int nics, const std::string& network) {
    char buffer[1024];
    std::snprintf(buffer, sizeof buffer, node, per_node, nics);
    return fmt::format(R"({{"format": "ccsim-platform", "version": 1, "name": "{}", "nodes": {}, {},
      "network": {}}})",
                       shape, nodes, buffer, network);
  };
  if (shape == "supernodes-1x10240") {
    return doc(10240, 1, 1, R"({"topology": "supernodes", "source": "b", "nodes_per_supernode": 256,
      "upper": {"bandwidth_Bps": 2.5e10, "latency_s": 1e-6, "oversubscription": "16:3", "source": "b"}})");
  }
  if (shape == "rail-fat-tree-1280x8") {
    return doc(1280, 8, 8, R"({"topology": "fat-tree", "rails": true, "source": "b", "levels": [
      {"down": 32, "source": "b"},
      {"down": 16, "bandwidth_Bps": 5e10, "latency_s": 5e-7, "oversubscription": 1, "source": "b"},
      {"down": 20, "bandwidth_Bps": 5e10, "latency_s": 5e-7, "oversubscription": 2, "source": "b"}]})");
  }
  if (shape == "torus-16x16x10x4") {
    return doc(2560, 4, 1, R"({"topology": "torus", "source": "b", "dims": [16, 16, 10],
      "link": {"bandwidth_Bps": 2.5e10, "latency_s": 1e-7, "source": "b"}})");
  }
  return doc(2560, 4, 1, R"({"topology": "dragonfly", "source": "b", "groups": 40, "routers_per_group": 16,
    "nodes_per_router": 4, "global_ports": 3,
    "local_link": {"bandwidth_Bps": 2.5e10, "latency_s": 1e-7, "source": "b"},
    "global_link": {"bandwidth_Bps": 2.5e10, "latency_s": 5e-7, "source": "b"}})");
}

const std::vector<std::string> kShapes = {"supernodes-1x10240", "rail-fat-tree-1280x8", "torus-16x16x10x4",
                                          "dragonfly-40x16x4x4"};

struct ChildReport {
  double seconds = 0;
  double peak_rss_mb = 0;
};

/// Runs `work` in a fresh child and reports its time and peak resident size.
ChildReport in_child(const std::function<void()>& work) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    auto start = std::chrono::steady_clock::now();
    work();
    ChildReport report;
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    report.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
    ssize_t written = write(fds[1], &report, sizeof report);
    (void)written;
    _exit(0);
  }
  close(fds[1]);
  ChildReport report;
  ssize_t got = read(fds[0], &report, sizeof report);
  (void)got;
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  return report;
}

void BM_BuildNetwork(benchmark::State& state) {
  const std::string json = platform_json(kShapes[static_cast<std::size_t>(state.range(0))]);
  state.SetLabel(kShapes[static_cast<std::size_t>(state.range(0))]);
  for (auto _ : state) {
    topology::Platform p = topology::parse_platform(json, "bench");
    benchmark::DoNotOptimize(p.network.vertex_count());
  }
  topology::Platform p = topology::parse_platform(json, "bench");
  ChildReport baseline = in_child([] {});
  ChildReport built = in_child([&] { topology::Platform q = topology::parse_platform(json, "bench"); });
  state.counters["accelerators"] = p.network.accelerator_count();
  state.counters["vertices"] = static_cast<double>(p.network.vertex_count());
  state.counters["links"] = static_cast<double>(p.network.link_count());
  state.counters["graph_MB"] = built.peak_rss_mb - baseline.peak_rss_mb;
}

void BM_BuildSimGridPlatform(benchmark::State& state) {
  const std::string json = platform_json(kShapes[static_cast<std::size_t>(state.range(0))]);
  state.SetLabel(kShapes[static_cast<std::size_t>(state.range(0))]);
  topology::Platform p = topology::parse_platform(json, "bench");
  std::vector<int> all(static_cast<std::size_t>(p.network.accelerator_count()));
  for (int a = 0; a < p.network.accelerator_count(); ++a) all[static_cast<std::size_t>(a)] = a;
  ChildReport baseline = in_child([] {});
  ChildReport report;
  for (auto _ : state) {
    report = in_child([&] {
      auto engine = engine::make_engine(256, false);
      new engine::GraphZone(p.network, all, engine::GraphZoneOptions{});  // owned by SimGrid's engine
    });
    state.SetIterationTime(report.seconds);
  }
  state.counters["simgrid_MB"] = report.peak_rss_mb - baseline.peak_rss_mb;
}

}  // namespace

BENCHMARK(BM_BuildNetwork)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BuildSimGridPlatform)->DenseRange(0, 3)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
