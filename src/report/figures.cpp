#include "report/figures.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

extern char** environ;

namespace ccsim::report {

std::string figures_python() {
  const char* env = std::getenv("CCSIM_PYTHON");
  return env != nullptr && *env != '\0' ? env : "/usr/bin/python3";
}

Figures make_figures(const std::filesystem::path& dir, const std::string& python, const std::string& script) {
  Figures figures;
  const std::filesystem::path log = dir / ".figures.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const std::string json = (dir / "report.json").string();
  const std::string out_dir = dir.string();
  std::vector<char*> argv{const_cast<char*>(python.c_str()), const_cast<char*>(script.c_str()),
                          const_cast<char*>(json.c_str()), const_cast<char*>(out_dir.c_str()), nullptr};
  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawn_error == 0) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  in.close();
  std::error_code ignored;
  std::filesystem::remove(log, ignored);
  const std::string last = lines.empty() ? std::string() : lines.back();
  if (spawn_error != 0) {
    figures.skipped = fmt::format("figures skipped: cannot run {}: {}", python, std::strerror(spawn_error));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    figures.skipped = fmt::format("figures skipped: cannot run {} (not found)", python);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kFiguresMissingModule) {
    figures.skipped = fmt::format("figures skipped: {}", last);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    figures.skipped =
        fmt::format("figures skipped: {} {} failed ({}){}", python, script,
                    WIFEXITED(status) ? fmt::format("exit {}", WEXITSTATUS(status)) : std::string("killed by a signal"),
                    last.empty() ? std::string() : ": " + last);
  } else {
    for (const std::string& line : lines) {
      const auto tab = line.find('\t');
      if (tab != std::string::npos) figures.images.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    }
    if (figures.images.empty()) figures.skipped = "figures skipped: report_figures.py made none";
  }
  return figures;
}

}  // namespace ccsim::report
