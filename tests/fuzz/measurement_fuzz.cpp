// The measurement file reader (src/calibrate/measurement_file).

#include "calibrate/measurement_file.hpp"
#include "fuzz_target.hpp"

CCSIM_FUZZ_TARGET(measurement) {
  ccsim::fuzz::input_errors_only([&] {
    const ccsim::calibrate::MeasurementFile file =
        ccsim::calibrate::parse_measurements(ccsim::fuzz::as_text(data, size), "fuzz.json");
    // What calibrate and validate derive from the machine: every file read must give them.
    (void)ccsim::calibrate::core_sharing(file);
    (void)ccsim::calibrate::affinity_summary(file);
  });
  return 0;
}
