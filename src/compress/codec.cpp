#include "compress/codec.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "compress/ccsz_codec.hpp"
#include "compress/compress_spec.hpp"
#include "compress/quantize_codec.hpp"
#include "compress/zfp_codec.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/spelling.hpp"

namespace ccsim::compress {

void Codec::decompress_add(std::span<const std::byte> stream, std::span<float> out) const {
  std::vector<float> values(out.size());
  decompress(stream, values);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] += values[i];
}

void Codec::add_compressed(std::span<const std::byte>, std::span<const std::byte>, std::vector<std::byte>&) const {
  throw std::logic_error(fmt::format("codec {} is not homomorphic: its streams cannot be added", spec()));
}

void compress_with_feedback(const Codec& codec, std::span<const float> in, std::span<float> residual,
                            std::vector<std::byte>& out, std::vector<float>& scratch) {
  if (residual.size() != in.size()) {
    throw std::invalid_argument(
        fmt::format("compress_with_feedback: residual has {} elements, input {}", residual.size(), in.size()));
  }
  scratch.resize(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) scratch[i] = in[i] + residual[i];
  codec.compress(scratch, out);
  codec.decompress(out, residual);
  for (std::size_t i = 0; i < in.size(); ++i) residual[i] = scratch[i] - residual[i];
}

namespace {

constexpr std::string_view kCodecNames = "ccsz, int8, onebit, zfp";

/// "abs, block" -> {"abs", "block"}.
std::vector<std::string> split_names(std::string_view list) {
  std::vector<std::string> names;
  while (!list.empty()) {
    const std::size_t comma = list.find(", ");
    names.emplace_back(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 2);
  }
  return names;
}

/// Reads the key=value items of one codec's spec, checking names and numbers.
class SpecReader {
 public:
  SpecReader(const SpecItems& items, std::string_view field, std::string_view valid_keys)
      : items_(items), field_(field) {
    for (const auto& [key, value] : items_.items) {
      if (valid_keys.empty() || (", " + std::string(valid_keys) + ",").find(", " + key + ",") == std::string::npos) {
        throw UnknownNameError(field_, 0, key,
                               valid_keys.empty()
                                   ? fmt::format("unknown key; codec {} takes no keys", items_.name)
                                   : fmt::format("unknown key for codec {}; {}valid keys: {}", items_.name,
                                                 did_you_mean(key, split_names(valid_keys), "", " "), valid_keys));
      }
    }
  }

  const std::string* find(std::string_view key) const {
    for (const auto& [k, v] : items_.items) {
      if (k == key) return &v;
    }
    return nullptr;
  }

  /// A positive finite number; required.
  double positive(std::string_view key) const {
    const std::string* text = find(key);
    if (!text)
      throw InputError(field_, 0, std::string(key), fmt::format("missing (required for codec {})", items_.name));
    std::optional<double> value = parse_double(*text);
    if (!value || !(*value > 0)) {
      throw InputError(field_, 0, std::string(key),
                       fmt::format("expected a positive finite number, got \"{}\"", *text));
    }
    return *value;
  }

  /// An integer in [min, max] that is a multiple of `multiple`; `fallback` when absent.
  std::size_t integer(std::string_view key, std::size_t fallback, std::uint64_t min, std::uint64_t max,
                      std::uint64_t multiple) const {
    const std::string* text = find(key);
    if (!text) return fallback;
    std::optional<std::uint64_t> value = parse_uint(*text);
    if (!value || *value < min || *value > max || *value % multiple != 0) {
      std::string what = multiple > 1 ? fmt::format("a multiple of {} from {} to {}", multiple, min, max)
                                      : fmt::format("an integer from {} to {}", min, max);
      throw InputError(field_, 0, std::string(key), fmt::format("expected {}, got \"{}\"", what, *text));
    }
    return static_cast<std::size_t>(*value);
  }

 private:
  const SpecItems& items_;
  std::string field_;
};

}  // namespace

std::unique_ptr<Codec> make_codec(std::string_view spec, std::string_view field) {
  const std::string what(field);
  SpecItems items = split_spec(spec, what);
  if (items.name == "ccsz") {
    SpecReader r(items, field, "abs, block");
    double abs = r.positive("abs");
    std::size_t block = r.integer("block", CcszCodec::kDefaultBlock, CcszCodec::kBlockMultiple, CcszCodec::kMaxBlock,
                                  CcszCodec::kBlockMultiple);
    return std::make_unique<CcszCodec>(abs, block);
  }
  if (items.name == "int8" || items.name == "onebit") {
    SpecReader r(items, field, "block");
    std::size_t block = r.integer("block", QuantizeCodec::kDefaultBlock, 1, QuantizeCodec::kMaxBlock, 1);
    return std::make_unique<QuantizeCodec>(
        items.name == "int8" ? QuantizeCodec::Kind::kInt8 : QuantizeCodec::Kind::kOneBit, block);
  }
  if (items.name == "zfp") {
    SpecReader r(items, field, "abs");
    return std::make_unique<ZfpCodec>(r.positive("abs"));
  }
  throw UnknownNameError(what, 0, "",
                         fmt::format("unknown codec \"{}\"; {}valid codecs: {}", items.name,
                                     did_you_mean(items.name, split_names(kCodecNames), "", " "), kCodecNames));
}

std::vector<std::string_view> codec_names() { return {"ccsz", "int8", "onebit", "zfp"}; }

}  // namespace ccsim::compress
