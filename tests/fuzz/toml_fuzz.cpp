// The TOML front end of sweep specs (src/core/toml): cpptoml's parse, then the translation to
// JSON text with each value on its TOML line, then the sweep spec reader on that text, as
// `ccsim sweep SPEC.toml` does.

#include <string>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/toml.hpp"
#include "study/sweep.hpp"
#include "fuzz_target.hpp"

CCSIM_FUZZ_TARGET(toml) {
  using namespace ccsim;
  fuzz::input_errors_only([&] {
    const std::string text = toml::to_json_text(fuzz::as_text(data, size), "fuzz.toml", {"set"});
    // Whatever TOML the translation accepts, it writes as JSON the JSON reader accepts: a
    // syntax error there is a bug of the translation, not of the input.
    try {
      json::parse(text, "fuzz.toml (as JSON)");
    } catch (const InputError&) {
      __builtin_trap();
    }
    study::parse_sweep_spec(text, "fuzz.toml");
  });
  return 0;
}
