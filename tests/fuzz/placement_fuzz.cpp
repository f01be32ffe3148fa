// --placement parsing and rank placement: the input's first byte picks a platform, whether
// accelerators may be shared, and whether the policy is given on the command line or as
// the trace's own "placement" (then --placement auto); the rest is the policy text.

#include <array>
#include <string>
#include <vector>

#include "engine/placement.hpp"
#include "fuzz_target.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"

namespace {

using namespace ccsim;

/// Eight ranks: tensor-parallel pairs, two pipeline stages, two data-parallel replicas.
constexpr std::string_view kTrace = R"({
  "format": "ccsim-trace", "version": 1, "name": "fuzz-placement", "world_size": 8,
  "groups": [
    {"name": "tp0", "kind": "tensor", "ranks": [0, 1]}, {"name": "tp1", "kind": "tensor", "ranks": [2, 3]},
    {"name": "tp2", "kind": "tensor", "ranks": [4, 5]}, {"name": "tp3", "kind": "tensor", "ranks": [6, 7]},
    {"name": "pp0", "kind": "pipeline", "ranks": [0, 2]}, {"name": "pp1", "kind": "pipeline", "ranks": [1, 3]},
    {"name": "pp2", "kind": "pipeline", "ranks": [4, 6]}, {"name": "pp3", "kind": "pipeline", "ranks": [5, 7]},
    {"name": "dp0", "kind": "data", "ranks": [0, 4]}, {"name": "dp1", "kind": "data", "ranks": [1, 5]},
    {"name": "dp2", "kind": "data", "ranks": [2, 6]}, {"name": "dp3", "kind": "data", "ranks": [3, 7]}
  ],
  "ranks": [
    {"rank": 0, "ops": []}, {"rank": 1, "ops": []}, {"rank": 2, "ops": []}, {"rank": 3, "ops": []},
    {"rank": 4, "ops": []}, {"rank": 5, "ops": []}, {"rank": 6, "ops": []}, {"rank": 7, "ops": []}
  ]
})";

std::string platform_text(int nodes, int accelerators) {
  return R"({"format": "ccsim-platform", "version": 1, "name": "fuzz", "nodes": )" + std::to_string(nodes) +
         R"(, "node": {"accelerators": )" + std::to_string(accelerators) +
         R"(, "accelerator": {"model": "m", "flops": 1e12, "reduce_Bps": 1e10, "source": "s"},
             "intra_link": {"bandwidth_Bps": 1e10, "latency_s": 1e-6, "source": "s"}, "nics": 1,
             "nic_link": {"bandwidth_Bps": 1e9, "latency_s": 5e-6, "source": "s"}},
           "network": {"topology": "switch", "source": "s"}})";
}

struct Fixture {
  trace::Trace trace = trace::parse_native(kTrace, "fuzz-trace.json");
  // 4 x 2 fits exactly, 2 x 8 leaves room, 3 x 1 is too small (oversubscription only).
  std::array<topology::Platform, 3> platforms = {topology::parse_platform(platform_text(4, 2), "a.json"),
                                                 topology::parse_platform(platform_text(2, 8), "b.json"),
                                                 topology::parse_platform(platform_text(3, 1), "c.json")};
};

}  // namespace

CCSIM_FUZZ_TARGET(placement) {
  static const Fixture fixture;
  if (size < 1) return 0;
  const std::string policy(fuzz::as_text(data + 1, size - 1));
  const topology::Platform& platform = fixture.platforms[data[0] % fixture.platforms.size()];
  const bool oversubscribe = (data[0] & 0x10) != 0;
  trace::Trace trace = fixture.trace;
  std::string requested = policy;
  if ((data[0] & 0x20) != 0) {
    trace.placement = policy;
    requested = "auto";
  }
  fuzz::input_errors_only([&] {
    std::vector<int> accelerators = engine::place_ranks(trace, platform.network, requested, oversubscribe);
    (void)engine::resolve_placement(trace, requested);
    // Every rank is on an accelerator of the platform, and without oversubscription on its own.
    if (accelerators.size() != static_cast<std::size_t>(trace.world_size)) __builtin_trap();
    std::vector<int> used(static_cast<std::size_t>(platform.network.accelerator_count()), 0);
    for (int a : accelerators) {
      if (a < 0 || a >= platform.network.accelerator_count()) __builtin_trap();
      if (++used[static_cast<std::size_t>(a)] > 1 && !oversubscribe) __builtin_trap();
    }
  });
  return 0;
}
