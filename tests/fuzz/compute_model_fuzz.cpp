// The compute model reader (src/calibrate/compute_model): a model it accepts predicts finite,
// non-negative operator times up to 1e24 FLOPs and a PiB, and writes back to a text that reads
// as the same model.

#include <cmath>

#include "calibrate/compute_model.hpp"
#include "fuzz_target.hpp"

CCSIM_FUZZ_TARGET(compute_model) {
  using namespace ccsim;
  fuzz::input_errors_only([&] {
    const calibrate::ComputeModel model = calibrate::parse_compute_model(fuzz::as_text(data, size), "fuzz.json");
    for (const calibrate::KindModel& k : model.kinds) {
      for (double x : {0.0, 1.0, 1e12, 1e24}) {
        const double s = k.predict_s(x, x > 1e15 ? 1.125899906842624e15 : x);
        if (!(s >= 0) || !std::isfinite(s)) __builtin_trap();
      }
    }
    for (const calibrate::CallModel& c : model.calls) {
      const double s = c.predict_s(1.125899906842624e15);
      if (!(s >= 0) || !std::isfinite(s)) __builtin_trap();
    }
    const std::string text = calibrate::write_compute_model(model);
    const calibrate::ComputeModel again = calibrate::parse_compute_model(text, "written.json");
    if (calibrate::write_compute_model(again) != text) __builtin_trap();
  });
  return 0;
}
