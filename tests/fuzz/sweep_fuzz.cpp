// The sweep spec reader (src/study/sweep): parse_sweep_spec checks every value's form (--set
// settings, --compress specs, algorithms, sizes, dtypes, rank counts) and expands a grid.

#include <algorithm>
#include <string>

#include "study/sweep.hpp"
#include "fuzz_target.hpp"

CCSIM_FUZZ_TARGET(sweep) {
  using namespace ccsim;
  fuzz::input_errors_only([&] {
    const study::SweepSpec spec = study::parse_sweep_spec(fuzz::as_text(data, size), "fuzz.json");
    // What the runner relies on: at least one scenario, each with the axes its mode needs,
    // and its settings in the order of set_keys (the columns of the rows), one per key at most.
    if (spec.scenarios.empty()) __builtin_trap();
    for (const study::Scenario& s : spec.scenarios) {
      if (spec.mode == study::SweepMode::kTrace && !s.trace) __builtin_trap();
      if (spec.mode == study::SweepMode::kCollective && (!s.platform || !s.ranks || !s.bytes)) __builtin_trap();
      if (s.settings.size() > spec.set_keys.size()) __builtin_trap();
      auto key_rank = [&](const study::SweepValue& v) {
        const std::string key = v.text.substr(0, v.text.find('='));
        return std::find(spec.set_keys.begin(), spec.set_keys.end(), key) - spec.set_keys.begin();
      };
      for (std::size_t i = 0; i < s.settings.size(); ++i) {
        if (key_rank(s.settings[i]) >= static_cast<std::ptrdiff_t>(spec.set_keys.size())) __builtin_trap();
        if (i > 0 && key_rank(s.settings[i - 1]) >= key_rank(s.settings[i])) __builtin_trap();
      }
    }
  });
  return 0;
}
