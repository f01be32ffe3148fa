// Model files of `ccsim trace synth --model FILE` (format ccsim-model, src/synth/model_spec).

#include "fuzz_target.hpp"
#include "synth/model_spec.hpp"

CCSIM_FUZZ_TARGET(model_spec) {
  ccsim::fuzz::input_errors_only([&] {
    const ccsim::synth::ModelSpec m = ccsim::synth::parse_model(ccsim::fuzz::as_text(data, size), "fuzz.json");
    // What synthesis relies on: positive sizes, heads dividing hidden, kv_heads dividing heads.
    if (m.layers < 1 || m.hidden < 1 || m.heads < 1 || m.kv_heads < 1 || m.ffn < 1 || m.vocab < 1 || m.seq < 1) {
      __builtin_trap();
    }
    if (m.hidden % m.heads != 0 || m.heads % m.kv_heads != 0) __builtin_trap();
  });
  return 0;
}
