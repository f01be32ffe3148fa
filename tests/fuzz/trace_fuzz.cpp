// The native trace reader, validation included (parse_native() ends in trace::validate()).

#include "fuzz_target.hpp"
#include "trace/native_reader.hpp"

CCSIM_FUZZ_TARGET(trace) {
  ccsim::fuzz::input_errors_only([&] { ccsim::trace::parse_native(ccsim::fuzz::as_text(data, size), "fuzz.json"); });
  return 0;
}
