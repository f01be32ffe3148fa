// --compress parsing, then the parsed query on the shipped compressor models (by name only:
// a path in the spec is not opened, it could name a device or a FIFO).

#include <string>
#include <vector>

#include "compress/compress_spec.hpp"
#include "compress/model_reader.hpp"
#include "fuzz_target.hpp"

CCSIM_FUZZ_TARGET(compress_spec) {
  using namespace ccsim;
  static const std::vector<std::string> dirs = {std::string(CCSIM_SOURCE_DIR) + "/models/compressors"};
  fuzz::input_errors_only([&] {
    compress::CompressSpec spec = compress::parse_compress_spec(fuzz::as_text(data, size));
    if (spec.name.find('/') != std::string::npos || spec.name.ends_with(".json")) return;
    compress::CompressorModel model = compress::load_compressor(spec, dirs);
    compress::Evaluation e = model.evaluate(spec.query, DType::kF32);
    (void)e.cost.wire_bytes(std::uint64_t{1} << 30);
    (void)model.absolute_error_bound(spec.query, 1.0);
  });
  return 0;
}
