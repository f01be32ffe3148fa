#pragma once

#include <string>
#include <string_view>

#include "compress/compressor_model.hpp"

namespace ccsim::compress {

inline constexpr std::string_view kCompressorFormat = "ccsim-compressor";
inline constexpr int kCompressorVersion = 1;

/// Reads a compressor model file (models/compressors/NAME.json, schema in models/README.md)
/// strictly: unknown keys, wrong types, impossible values, a setting without its source and
/// duplicate settings are InputErrors naming file, line and field, e.g.
///   models/compressors/x.json:14: field 'settings[1].ratio': expected a positive number, got "-2"
CompressorModel read_compressor_model(const std::string& path);
CompressorModel parse_compressor_model(std::string_view text, const std::string& source);

}  // namespace ccsim::compress
