#include "core/data_files.hpp"

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "core/input_error.hpp"

namespace ccsim {

std::string find_data_file(const std::string& name_or_path, const std::vector<std::string>& dirs,
                           const std::string& option, const std::string& what, const std::string& plural) {
  namespace fs = std::filesystem;
  if (name_or_path.ends_with(".json") || name_or_path.find('/') != std::string::npos) return name_or_path;
  for (const std::string& dir : dirs) {
    fs::path candidate = fs::path(dir) / (name_or_path + ".json");
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  std::vector<std::string> names = list_data_files(dirs);
  throw InputError(option, 0, "",
                   fmt::format("unknown {} \"{}\"; {}: {}", what, name_or_path, plural,
                               names.empty() ? std::string("none found") : fmt::format("{}", fmt::join(names, ", "))));
}

std::vector<std::string> list_data_files(const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  std::set<std::string> names;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".json") names.insert(it->path().stem().string());
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace ccsim
