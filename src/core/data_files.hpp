#pragma once

#include <string>
#include <vector>

namespace ccsim {

/// Resolves NAME|FILE for the data folders (platforms/, models/compressors/): a path
/// (containing '/' or ending in .json) is used as is; otherwise NAME.json is looked up in
/// `dirs` in order. An unknown name is an InputError from `option` ("--platform") that lists
/// what exists: 'unknown <what> "NAME"; <plural>: a, b, c'.
std::string find_data_file(const std::string& name_or_path, const std::vector<std::string>& dirs,
                           const std::string& option, const std::string& what, const std::string& plural);

/// Names (NAME for each NAME.json) in `dirs`, sorted, without duplicates.
std::vector<std::string> list_data_files(const std::vector<std::string>& dirs);

}  // namespace ccsim
