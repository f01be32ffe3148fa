#include "core/data_files.hpp"

#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/input_error.hpp"
#include "core/spelling.hpp"

namespace ccsim {
namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

/// `path` as a message shows it: relative to the working directory when inside it, so that
/// messages read the same wherever the source tree lies.
std::string shown(const fs::path& path) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec || !path.is_absolute()) return path.string();
  const std::string prefix = cwd.string() + "/";
  const std::string text = path.lexically_normal().string();
  return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
}

}  // namespace

std::string find_data_file(const std::string& name_or_path, const std::vector<std::string>& dirs,
                           const std::string& option, const std::string& what, const std::string& plural) {
  if (is_file(name_or_path)) return name_or_path;
  if (name_or_path.find('/') != std::string::npos) return name_or_path;
  const std::string name =
      name_or_path.ends_with(".json") ? name_or_path.substr(0, name_or_path.size() - 5) : name_or_path;
  std::vector<std::string> tried{name_or_path};
  if (!name.empty()) {
    for (const std::string& dir : dirs) {
      const fs::path candidate = fs::path(dir) / (name + ".json");
      if (is_file(candidate)) return candidate.string();
      tried.push_back(shown(candidate));
    }
  }
  std::vector<std::string> names = list_data_files(dirs);
  throw UnknownNameError(
      option, 0, "",
      fmt::format("unknown {} \"{}\" (tried {}); {}{}: {}", what, name_or_path, fmt::join(tried, ", "),
                  did_you_mean(name, names, "", " "), plural,
                  names.empty() ? std::string("none found") : fmt::format("{}", fmt::join(names, ", "))));
}

std::vector<std::string> list_data_files(const std::vector<std::string>& dirs) {
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
