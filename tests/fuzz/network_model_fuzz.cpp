// The network model reader (src/topology/network_model): a model it accepts gives finite,
// non-negative message costs up to 1 TiB, and writes back to a text that reads as the same model.

#include <cmath>

#include "fuzz_target.hpp"
#include "topology/network_model.hpp"

namespace {

using namespace ccsim;

void check_tier(const topology::TierModel& tier) {
  // Finite up to a TiB; beyond, only not NaN and not negative.
  for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{65536}, std::uint64_t{1} << 40}) {
    const double s = tier.message_s(bytes);
    if (!(s >= 0) || !std::isfinite(s)) __builtin_trap();
  }
  if (!(tier.message_s(~std::uint64_t{0}) >= 0)) __builtin_trap();
}

}  // namespace

CCSIM_FUZZ_TARGET(network_model) {
  fuzz::input_errors_only([&] {
    const topology::NetworkModel model = topology::parse_network_model(fuzz::as_text(data, size), "fuzz.json");
    if (model.has_intra) check_tier(model.intra);
    if (model.has_inter) check_tier(model.inter);
    const std::string text = topology::write_network_model(model);
    const topology::NetworkModel again = topology::parse_network_model(text, "written.json");
    if (topology::write_network_model(again) != text) __builtin_trap();
  });
  return 0;
}
