// ccsim_fuzz_replay TARGET PATH...: feeds every file (directories: every regular file in
// them, sorted) to the fuzz target TARGET, as libFuzzer would; a crash, a sanitizer report or
// an unexpected exception fails the run. Used by ctest (tests/fuzz/CMakeLists.txt) so that
// the regression inputs run in every build, with g++ as with clang.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fuzz_target.hpp"

namespace ccsim::fuzz {
namespace {

std::map<std::string, Entry, std::less<>>& registry() {
  static std::map<std::string, Entry, std::less<>> targets;
  return targets;
}

}  // namespace

Registration::Registration(std::string_view name, Entry entry) { registry().emplace(std::string(name), entry); }

}  // namespace ccsim::fuzz

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const auto& targets = ccsim::fuzz::registry();
  auto target = argc >= 2 ? targets.find(std::string_view(argv[1])) : targets.end();
  if (target == targets.end()) {
    std::fprintf(stderr, "usage: ccsim_fuzz_replay TARGET PATH...; targets:");
    for (const auto& [name, entry] : targets) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    fs::path path(argv[i]);
    if (fs::is_directory(path)) {
      for (const auto& entry : fs::directory_iterator(path)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else if (fs::is_regular_file(path)) {
      files.push_back(path);
    } else {
      std::fprintf(stderr, "ccsim_fuzz_replay: no such file or directory: %s\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.eof() && in.fail()) {
      std::fprintf(stderr, "ccsim_fuzz_replay: cannot read %s\n", file.c_str());
      return 2;
    }
    std::fprintf(stderr, "%s: %s (%zu bytes)\n", target->first.c_str(), file.c_str(), bytes.size());
    target->second(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%s: %zu inputs replayed without a finding\n", target->first.c_str(), files.size());
  return 0;
}
