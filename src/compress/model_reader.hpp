#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "compress/compressor_model.hpp"

namespace ccsim::compress {

inline constexpr std::string_view kCompressorFormat = "ccsim-compressor";
inline constexpr int kCompressorVersion = 1;

/// Limits on the parameters of a compressor model (models/README.md): physically meaningful
/// bounds, far outside any real codec, that keep every derived ratio, time and size finite.
inline constexpr double kMinRatio = 0.1;         ///< output at most 10x the input
inline constexpr double kMaxRatio = 1e6;         ///< at most a million to one
inline constexpr double kMinRate_Bps = 1e3;      ///< compress, decompress, add, staging, memory rates
inline constexpr double kMaxRate_Bps = 1e15;     ///< 1 PB/s, 200x the fastest HBM
inline constexpr double kMaxT0_s = 60;           ///< fixed cost of one call
inline constexpr double kMinErrorBound = 1e-30;  ///< error bounds, REL or ABS (REL also below 1)
inline constexpr double kMaxErrorBound = 1e30;
inline constexpr double kMinDensity = 1e-9;                               ///< sparsifier density (file and --compress)
inline constexpr double kMaxIndexBytes = 16;                              ///< bytes of one sparsifier index
inline constexpr std::int64_t kMaxBlockElements = std::int64_t{1} << 30;  ///< quantizer block

/// Reads a compressor model file (models/compressors/NAME.json, schema in models/README.md)
/// strictly: unknown keys, wrong types, impossible values, a setting without its source and
/// duplicate settings are InputErrors naming file, line and field, e.g.
///   models/compressors/x.json:14: field 'settings[1].ratio': expected a positive number, got "-2"
CompressorModel read_compressor_model(const std::string& path);
CompressorModel parse_compressor_model(std::string_view text, const std::string& source);

}  // namespace ccsim::compress
