#include "compress/model_reader.hpp"

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"

namespace ccsim::compress {
namespace {

using json::ObjectReader;

/// A source must say something: a citation, "measured: ..." or "estimate: ...".
std::string read_source(ObjectReader& r, std::string_view key) {
  std::string source = r.required(key).string();
  if (source.empty()) r.at(key).fail("expected a citation or \"estimate: ...\", got \"\"");
  return source;
}

/// A throughput: within [kMinRate_Bps, kMaxRate_Bps], so that no time is 0 or infinite.
double rate(ObjectReader& r, std::string_view key) { return r.required(key).number_in(kMinRate_Bps, kMaxRate_Bps); }

int bounded_integer(ObjectReader& r, std::string_view key, std::int64_t max) {
  std::int64_t value = r.required(key).positive_integer();
  if (value > max) r.at(key).fail(fmt::format("expected at most {}, got \"{}\"", max, value));
  return static_cast<int>(value);
}

/// The parameter of a setting and the key it is written under, for duplicate checks.
double parameter_of(const Setting& s, Kind kind) {
  switch (kind) {
    case Kind::kErrorBounded:
      return s.error_bound;
    case Kind::kQuantizer:
      return s.bits;
    case Kind::kSparsifier:
      return s.density;
  }
  return 0;
}

const char* parameter_key(Kind kind) {
  switch (kind) {
    case Kind::kErrorBounded:
      return "error_bound";
    case Kind::kQuantizer:
      return "bits";
    case Kind::kSparsifier:
      return "density";
  }
  return "?";
}

Setting read_setting(const json::Value& value, const ModelInfo& info, const std::string& file,
                     const std::string& path) {
  ObjectReader r(value, file, path);
  Setting s;
  s.line = value.line();
  switch (info.kind) {
    case Kind::kErrorBounded:
      s.error_bound = r.required("error_bound").number_in(kMinErrorBound, kMaxErrorBound);
      if (info.error_mode == ErrorMode::kRel && s.error_bound >= 1) {
        r.at("error_bound")
            .fail("expected a relative bound below 1 (error_mode is REL), " + json::got(*r.required("error_bound")));
      }
      s.ratio = r.required("ratio").number_in(kMinRatio, kMaxRatio);
      break;
    case Kind::kQuantizer:
      s.bits = bounded_integer(r, "bits", 32);
      s.block_elements = r.required("block_elements").integer_in(1, kMaxBlockElements);
      s.scale_bytes = bounded_integer(r, "scale_bytes", 8);
      break;
    case Kind::kSparsifier:
      s.density = r.required("density").number();
      if (!(s.density >= kMinDensity && s.density <= 1)) {
        r.at("density").fail(
            fmt::format("expected a fraction from {:g} to 1, {}", kMinDensity, json::got(*r.required("density"))));
      }
      break;
  }
  s.compress_Bps = rate(r, "compress_Bps");
  s.decompress_Bps = rate(r, "decompress_Bps");
  if (info.homomorphic) {
    s.add_Bps = rate(r, "add_Bps");
  } else if (r.has("add_Bps")) {
    r.at("add_Bps").fail("only a homomorphic compressor has an add rate, and homomorphic is false");
  }
  s.t0_s = r.optional("t0_s").number_in(0, kMaxT0_s).value_or(0.0);
  s.decompress_t0_s = r.optional("decompress_t0_s").number_in(0, kMaxT0_s).value_or(s.t0_s);
  if (info.homomorphic) {
    s.add_t0_s = r.optional("add_t0_s").number_in(0, kMaxT0_s).value_or(s.t0_s);
  } else if (r.has("add_t0_s")) {
    r.at("add_t0_s").fail("only a homomorphic compressor has an add cost, and homomorphic is false");
  }
  s.source = read_source(r, "source");
  r.optional("note").string();
  r.finish();
  return s;
}

ModelInfo read_info(ObjectReader& doc, const std::string& source) {
  std::string format = doc.required("format").string();
  if (format != kCompressorFormat) {
    doc.at("format").fail(fmt::format("expected \"{}\", got \"{}\"", kCompressorFormat, format));
  }
  std::int64_t version = doc.required("version").integer();
  if (version != kCompressorVersion) {
    doc.at("version").fail(fmt::format("expected {} (the only version this build reads), got \"{}\"",
                                       kCompressorVersion, doc.required("version")->text()));
  }
  ModelInfo info;
  info.file = source;
  info.name = doc.required("name").string();
  if (info.name.empty()) doc.at("name").fail("expected a name, got \"\"");
  info.description = doc.required("description").string();
  std::string kind = doc.required("kind").choice({"error-bounded", "quantizer", "sparsifier"});
  info.kind = kind == "error-bounded" ? Kind::kErrorBounded
              : kind == "quantizer"   ? Kind::kQuantizer
                                      : Kind::kSparsifier;
  info.homomorphic = doc.required("homomorphic").boolean();
  info.summable = doc.required("summable").boolean();
  info.hardware = doc.required("hardware").string();
  info.source = read_source(doc, "source");

  ObjectReader where = doc.child("where");
  info.placement =
      where.required("default").choice({"accelerator", "host"}) == "host" ? Placement::kHost : Placement::kAccelerator;
  info.staging_Bps = rate(where, "staging_Bps");
  info.staging_source = read_source(where, "source");
  where.optional("note").string();
  where.finish();

  if (doc.has("measured_on")) {
    ObjectReader on = doc.child("measured_on");
    info.measured_device = on.required("device").string();
    if (info.measured_device.empty()) on.at("device").fail("expected a CPU or accelerator model, got \"\"");
    if (on.has("cores")) info.measured_cores = bounded_integer(on, "cores", 1 << 20);
    info.measured_memory_Bps = rate(on, "memory_Bps");
    info.measured_memory_source = read_source(on, "source");
    on.finish();
  }
  if (doc.has("transfer")) {
    ObjectReader transfer = doc.child("transfer");
    info.transfer = transfer.required("kind").choice({"memory-bound", "none"}) == "memory-bound"
                        ? Transfer::kMemoryBound
                        : Transfer::kNone;
    info.transfer_source = read_source(transfer, "source");
    transfer.finish();
    if (info.transfer == Transfer::kMemoryBound && info.measured_memory_Bps == 0) {
      transfer.at("kind").fail(
          "a memory-bound transfer needs the measured memory bandwidth: add "
          "\"measured_on\": {\"device\", \"memory_Bps\", \"source\"}");
    }
  }

  switch (info.kind) {
    case Kind::kErrorBounded: {
      info.error_mode = doc.required("error_mode").choice({"REL", "ABS"}) == "REL" ? ErrorMode::kRel : ErrorMode::kAbs;
      std::string dtype = doc.required("dtype").string();
      auto parsed = parse_dtype(dtype);
      if (!parsed ||
          !(*parsed == DType::kF32 || *parsed == DType::kF16 || *parsed == DType::kBF16 || *parsed == DType::kF64)) {
        doc.at("dtype").fail(fmt::format("expected one of fp32, fp16, bf16, fp64, got \"{}\"", dtype));
      }
      info.dtype = *parsed;
      break;
    }
    case Kind::kQuantizer:
      break;
    case Kind::kSparsifier:
      info.index_bytes = doc.required("index_bytes").number_in(0, kMaxIndexBytes, true);
      break;
  }
  return info;
}

}  // namespace

CompressorModel parse_compressor_model(std::string_view text, const std::string& source) {
  json::Value root = json::parse(text, source);
  ObjectReader doc(root, source, "");
  ModelInfo info = read_info(doc, source);

  const json::Value& list = doc.required("settings").array();
  if (list.items().empty()) doc.at("settings").fail("expected at least one setting, got []");
  std::vector<Setting> settings;
  const std::string list_path = doc.member_path("settings");
  for (std::size_t i = 0; i < list.items().size(); ++i) {
    std::string path = json::item_path(list_path, i);
    Setting s = read_setting(list.items()[i], info, source, path);
    for (std::size_t j = 0; j < settings.size(); ++j) {
      if (parameter_of(settings[j], info.kind) != parameter_of(s, info.kind)) continue;
      const char* key = parameter_key(info.kind);
      const json::Value& written = *list.items()[i].find(key);
      SourceRef{source, written.line(), path + "." + key}.fail(fmt::format(
          "expected a value not listed before, {} (as in {})", json::got(written), json::item_path(list_path, j)));
    }
    settings.push_back(std::move(s));
  }
  doc.optional("notes").string();
  doc.finish();
  return CompressorModel(std::move(info), std::move(settings));
}

CompressorModel read_compressor_model(const std::string& path) {
  return parse_compressor_model(json::read_file(path), path);
}

}  // namespace ccsim::compress
