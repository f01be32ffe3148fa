#pragma once

#include <string>
#include <vector>

namespace ccsim {

/// Resolves NAME|FILE for the data folders (platforms/, models/network/, models/compressors/),
/// in this order:
///   1. `name_or_path` as given, when it names an existing file (relative to the working
///      directory, with or without .json: "m.json", "runs/m", "m");
///   2. a path (containing '/') that names no file is returned as given: its reader reports
///      the missing file and the system's reason;
///   3. NAME.json in `dirs`, in order, where NAME is `name_or_path` without a final ".json"
///      ("dgx-h100-superpod" and "dgx-h100-superpod.json" name the same preset).
/// Otherwise an UnknownNameError from `option` ("--platform") that lists what was tried and
/// what exists: 'unknown <what> "NAME" (tried NAME, DIR/NAME.json); did you mean b? <plural>:
/// a, b, c' ("did you mean" only when a name is close). Folders inside the working directory
/// are shown relative to it.
std::string find_data_file(const std::string& name_or_path, const std::vector<std::string>& dirs,
                           const std::string& option, const std::string& what, const std::string& plural);

/// Names (NAME for each NAME.json) in `dirs`, sorted, without duplicates.
std::vector<std::string> list_data_files(const std::vector<std::string>& dirs);

}  // namespace ccsim
