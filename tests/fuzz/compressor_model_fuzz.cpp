// The compressor model reader, then the model evaluated at each setting and between the
// first and the last, on no platform and on one, in place and on the host: what a model file
// says must give finite, non-negative costs and a whole number of wire bytes.

#include <cmath>
#include <optional>

#include "compress/model_reader.hpp"
#include "fuzz_target.hpp"

namespace {

using namespace ccsim;
using compress::Kind;

compress::Query query_at(const compress::CompressorModel& model, double parameter) {
  compress::Query q;
  switch (model.kind()) {
    case Kind::kErrorBounded:
      q.error_bound = parameter;
      break;
    case Kind::kQuantizer:
      q.bits = static_cast<int>(parameter);
      break;
    case Kind::kSparsifier:
      q.density = parameter;
      break;
  }
  return q;
}

double parameter_of(const compress::CompressorModel& model, const compress::Setting& s) {
  switch (model.kind()) {
    case Kind::kErrorBounded:
      return s.error_bound;
    case Kind::kQuantizer:
      return s.bits;
    case Kind::kSparsifier:
      return s.density;
  }
  return 0;
}

bool finite_non_negative(double x) { return std::isfinite(x) && x >= 0; }

void check(const compress::CompressorModel& model, const compress::Query& query,
           const compress::TargetHardware& target) {
  fuzz::input_errors_only([&] {
    const compress::CompressorCost c = model.evaluate(query, DType::kF32, target).cost;
    for (double raw : {0.0, 1.0, 4096.0, 1073741824.0}) {
      if (!finite_non_negative(c.compress_s(raw)) || !finite_non_negative(c.decompress_s(raw)) ||
          !finite_non_negative(c.add_s(raw))) {
        __builtin_trap();
      }
    }
    if (!(c.ratio > 0) || !std::isfinite(c.ratio)) __builtin_trap();
    (void)c.wire_bytes(std::uint64_t{1} << 40);
    (void)model.absolute_error_bound(query, 1.0);
  });
}

}  // namespace

CCSIM_FUZZ_TARGET(compressor_model) {
  fuzz::input_errors_only([&] {
    const compress::CompressorModel model = compress::parse_compressor_model(fuzz::as_text(data, size), "fuzz.json");
    const auto& settings = model.settings();
    std::vector<compress::Query> queries;
    for (const compress::Setting& s : settings) queries.push_back(query_at(model, parameter_of(model, s)));
    if (model.kind() != Kind::kQuantizer && !settings.empty()) {
      queries.push_back(
          query_at(model, std::sqrt(parameter_of(model, settings.front()) * parameter_of(model, settings.back()))));
    }
    compress::TargetHardware platform{"fuzz", "fuzz-accelerator", 2.0e12, 2.0e11};
    for (compress::Query q : queries) {
      check(model, q, {});
      check(model, q, platform);
      q.where = compress::Placement::kHost;
      q.value_range = 0.5;
      check(model, q, platform);
    }
  });
  return 0;
}
