#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "core/output_file.hpp"
#include "core/phase.hpp"

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

topology::Platform read_named_platform(const std::string& name, const topology::PlatformOverrides& overrides) {
  const std::string path = topology::find_platform(name, platform_dirs());
  Phase phase(fmt::format("building the platform {}", path),
              "reduce the platform's size (nodes, levels, groups, routers)");
  return topology::read_platform(path, overrides);
}

void check_output_path(const std::string& path) {
  if (path.empty()) {
    throw InputError("command line", 0, "--output", "expected a file name, or '-' for standard output, got \"\"");
  }
  if (path != "-") check_output_file(path);
}

void write_output(const std::string& path, const std::string& text) {
  write_output(path, [&text](const OutputSink& sink) { sink(text); });
}

void write_output(const std::string& path, const OutputProducer& produce) {
  check_output_path(path);
  if (path == "-") {
    write_stdout(produce);
  } else {
    write_output_file(path, produce);
  }
}

}  // namespace ccsim::cli
