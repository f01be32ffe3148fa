// The measurement file reader (src/calibrate/measurement_file).

#include "calibrate/measurement_file.hpp"
#include "fuzz_target.hpp"

CCSIM_FUZZ_TARGET(measurement) {
  ccsim::fuzz::input_errors_only(
      [&] { ccsim::calibrate::parse_measurements(ccsim::fuzz::as_text(data, size), "fuzz.json"); });
  return 0;
}
