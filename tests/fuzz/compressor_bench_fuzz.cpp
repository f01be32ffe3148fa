// The compressor benchmark (`ccsim calibrate compressor BENCH.json`,
// src/calibrate/compressor_fit): the reader, then the fit of its only codec, whose model must
// read back as a compressor model.

#include "calibrate/compressor_fit.hpp"
#include "compress/model_reader.hpp"
#include "fuzz_target.hpp"

CCSIM_FUZZ_TARGET(compressor_bench) {
  ccsim::fuzz::input_errors_only([&] {
    const ccsim::calibrate::CompressorBench bench =
        ccsim::calibrate::parse_compressor_bench(ccsim::fuzz::as_text(data, size), "fuzz.json");
    ccsim::calibrate::CompressorFitOptions options;
    options.command = "fuzz";
    const ccsim::calibrate::CompressorFit fit = ccsim::calibrate::fit_compressor(bench, options);
    // What the fit writes is a model ccsim reads: an InputError here would be the fit's fault.
    try {
      (void)ccsim::compress::parse_compressor_model(fit.model_json, "fitted.json");
    } catch (const ccsim::InputError&) {
      __builtin_trap();
    }
  });
  return 0;
}
