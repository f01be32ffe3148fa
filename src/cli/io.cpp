#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"

namespace ccsim::cli {

std::vector<std::string> platform_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("CCSIM_PLATFORMS")) {
    std::stringstream list(env);
    for (std::string dir; std::getline(list, dir, ':');) {
      if (!dir.empty()) dirs.push_back(dir);
    }
  }
  dirs.emplace_back(CCSIM_SOURCE_DIR "/platforms");
  return dirs;
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, 0, "", fmt::format("cannot write: {}", std::strerror(errno)));
    out << text;
    out.flush();
    if (!out) throw InputError(path, 0, "", "write failed");
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) throw InputError(path, 0, "", fmt::format("cannot write: {}", ec.message()));
}

}  // namespace ccsim::cli
