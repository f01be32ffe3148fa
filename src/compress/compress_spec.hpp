#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compress/compressor_model.hpp"

namespace ccsim::compress {

/// The option that errors about a compressor setting name.
inline constexpr const char* kCompressOption = "--compress";

/// A --compress argument: which compressor model and at which operating point.
struct CompressSpec {
  std::string name;  ///< a model name (NAME.json in the model directories) or a path to a .json file
  Query query;
};

/// A NAME[:key=value,...] text split into its name and its items in order, each key once.
struct SpecItems {
  std::string name;
  std::vector<std::pair<std::string, std::string>> items;
};

/// Splits NAME[:key=value,...] (shared by --compress and codec specs). Errors are
/// InputError(what, 0, ...): an item without '=' or a key given twice.
SpecItems split_spec(std::string_view text, const std::string& what);

/// Parses the CLI form NAME[:key=value,...], e.g. "cuszp:eb=1e-3", "szx:eb=1e-4,where=host",
/// "int8", "onebit", "topk:density=0.01". Keys: eb (error bound), bits, density, where
/// (accelerator|host), range (value range for REL bounds). Errors are
/// InputError("--compress", 0, key, ...): an unknown key (an UnknownNameError) lists the valid
/// ones, a bad number quotes it. Whether a key suits the compressor is checked later, by the model.
CompressSpec parse_compress_spec(std::string_view text);

/// Resolves NAME|FILE: a path (containing '/' or ending in .json) is used as is; otherwise
/// NAME.json is looked up in `dirs` in order. An unknown name is an UnknownNameError listing
/// the models found (find_data_file).
std::string find_compressor(const std::string& name_or_path, const std::vector<std::string>& dirs);

/// Names of the models (NAME for each NAME.json) in `dirs`, sorted, without duplicates.
std::vector<std::string> list_compressors(const std::vector<std::string>& dirs);

/// find_compressor + read_compressor_model.
CompressorModel load_compressor(const CompressSpec& spec, const std::vector<std::string>& dirs);

}  // namespace ccsim::compress
