#include "compress/compress_spec.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compress/model_reader.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/spelling.hpp"

namespace ccsim::compress {
namespace {

/// The keys of a --compress spec, in the order the messages list them.
const std::vector<std::string>& valid_keys() {
  static const std::vector<std::string> keys{"eb", "bits", "density", "where", "range"};
  return keys;
}

bool is_path(std::string_view name) { return name.ends_with(".json") || name.find('/') != std::string_view::npos; }

bool is_model_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
}

double positive_number(std::string_view text, const std::string& key) {
  double value = parse_double_or_throw(text, kCompressOption, key);
  if (!(value > 0))
    throw InputError(kCompressOption, 0, key, fmt::format("expected a positive number, got \"{}\"", text));
  return value;
}

void apply(Query& query, const std::string& key, std::string_view value) {
  if (key == "eb") {
    query.error_bound = positive_number(value, key);
  } else if (key == "bits") {
    auto bits = parse_int(value);
    if (!bits || *bits <= 0 || *bits > 32) {
      throw InputError(kCompressOption, 0, key, fmt::format("expected an integer from 1 to 32, got \"{}\"", value));
    }
    query.bits = static_cast<int>(*bits);
  } else if (key == "density") {
    double density = parse_double_or_throw(value, kCompressOption, key);
    if (!(density >= kMinDensity && density <= 1)) {
      throw InputError(kCompressOption, 0, key,
                       fmt::format("expected a fraction from {:g} to 1, got \"{}\"", kMinDensity, value));
    }
    query.density = density;
  } else if (key == "where") {
    if (value == "accelerator") {
      query.where = Placement::kAccelerator;
    } else if (value == "host") {
      query.where = Placement::kHost;
    } else {
      throw InputError(kCompressOption, 0, key, fmt::format("expected one of accelerator, host, got \"{}\"", value));
    }
  } else if (key == "range") {
    query.value_range = positive_number(value, key);
  } else {
    throw UnknownNameError(kCompressOption, 0, key,
                           fmt::format("unknown key; {}valid keys: {}", did_you_mean(key, valid_keys(), "", " "),
                                       fmt::join(valid_keys(), ", ")));
  }
}

}  // namespace

SpecItems split_spec(std::string_view text, const std::string& what) {
  SpecItems spec;
  std::size_t colon = text.find(':');
  spec.name = std::string(text.substr(0, colon));
  if (colon == std::string_view::npos) return spec;

  std::string_view rest = text.substr(colon + 1);
  std::set<std::string> seen;
  while (true) {
    std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw InputError(what, 0, "", fmt::format("expected key=value after '{}:', got \"{}\"", spec.name, item));
    }
    std::string key(item.substr(0, eq));
    if (!seen.insert(key).second) {
      throw InputError(what, 0, key, fmt::format("given twice in \"{}\"", text));
    }
    spec.items.emplace_back(std::move(key), std::string(item.substr(eq + 1)));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return spec;
}

CompressSpec parse_compress_spec(std::string_view text) {
  CompressSpec spec;
  spec.name = std::string(text.substr(0, text.find(':')));
  if (!is_path(spec.name) && !is_model_name(spec.name)) {
    throw InputError(
        kCompressOption, 0, "",
        fmt::format("expected NAME[:key=value,...] with a NAME of letters, digits, '_', '-' or '.', got \"{}\"", text));
  }
  for (const auto& [key, value] : split_spec(text, kCompressOption).items) apply(spec.query, key, value);
  return spec;
}

std::vector<std::string> list_compressors(const std::vector<std::string>& dirs) { return list_data_files(dirs); }

std::string find_compressor(const std::string& name_or_path, const std::vector<std::string>& dirs) {
  return find_data_file(name_or_path, dirs, kCompressOption, "compressor", "models");
}

CompressorModel load_compressor(const CompressSpec& spec, const std::vector<std::string>& dirs) {
  return read_compressor_model(find_compressor(spec.name, dirs));
}

}  // namespace ccsim::compress
