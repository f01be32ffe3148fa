// The accelerator profile reader (src/topology/accelerator_profile): a profile it accepts
// prices any operator a trace reader accepts as a finite, non-negative time, and writes back
// to a text that reads as the same profile.

#include <cmath>

#include "fuzz_target.hpp"
#include "topology/accelerator_profile.hpp"

CCSIM_FUZZ_TARGET(accelerator_profile) {
  using namespace ccsim;
  fuzz::input_errors_only([&] {
    const topology::AcceleratorProfile p = topology::parse_accelerator_profile(fuzz::as_text(data, size), "fuzz.json");
    for (std::uint32_t d : {1u, 64u, 8192u, kMaxGemmDimension}) {
      for (bool backward : {false, true}) {
        const GemmShape g{d, d, d, 1, p.gemm.default_dtype, backward};
        const double s = p.seconds("linear", &g, g.flops(), 0);
        if (!(s >= 0) || std::isnan(s)) __builtin_trap();
      }
    }
    for (double x : {0.0, 1.0, 1e12, 1e24}) {
      const double s = p.seconds("softmax", nullptr, x, x > 1e15 ? 1.125899906842624e15 : x);
      if (!(s >= 0) || !std::isfinite(s)) __builtin_trap();
    }
    const std::string text = topology::write_accelerator_profile(p);
    const topology::AcceleratorProfile again = topology::parse_accelerator_profile(text, "written.json");
    if (topology::write_accelerator_profile(again) != text) __builtin_trap();
  });
  return 0;
}
