// The figures of a report (report/figures.hpp): the script runs, and what becomes of its
// output, its failures and a missing interpreter. The "interpreter" is /bin/sh and the script
// a shell script written here, which prints what scripts/report_figures.py prints.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "report/figures.hpp"

using namespace ccsim;

namespace {

/// A fresh directory with a script `body` (sh) in it; returns the directory.
std::filesystem::path with_script(const std::string& name, const std::string& body) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ccsim_figures_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "figures.sh") << body;
  return dir;
}

}  // namespace

TEST_CASE("a report's figures are the files and captions its script prints", "[report]") {
  const auto dir = with_script("made", "printf 'noise\\nbreakdown.png\\tTime per kind\\ncost.png\\tCost\\n'\n");
  const report::Figures f = report::make_figures(dir, "/bin/sh", (dir / "figures.sh").string());
  REQUIRE(f.images.size() == 2);
  CHECK(f.images[0] == std::make_pair(std::string("breakdown.png"), std::string("Time per kind")));
  CHECK(f.images[1].first == "cost.png");
  CHECK(f.skipped.empty());
  CHECK_FALSE(std::filesystem::exists(dir / ".figures.log"));  // the script's output is not left behind
  std::filesystem::remove_all(dir);
}

TEST_CASE("a report without figures says why", "[report]") {
  // The reason for each script: what it printed last, and how it ended.
  auto skipped = [](const std::string& name, const std::string& body, const std::string& python = "/bin/sh") {
    const auto dir = with_script(name, body);
    const std::string script = (dir / "figures.sh").string();
    std::string why = report::make_figures(dir, python, script).skipped;
    const std::size_t at = why.find(script);
    if (at != std::string::npos) why.replace(at, script.size(), "SCRIPT");
    std::filesystem::remove_all(dir);
    return why;
  };
  CHECK(skipped("none", "echo 'nothing to draw'\n") == "figures skipped: report_figures.py made none");
  CHECK(skipped("module", "echo 'matplotlib cannot be imported'; exit 3\n") ==
        "figures skipped: matplotlib cannot be imported");
  CHECK(skipped("failed", "echo first; echo 'the last line' >&2; exit 2\n") ==
        "figures skipped: /bin/sh SCRIPT failed (exit 2): the last line");
  CHECK(skipped("signal", "kill -9 $$\n") == "figures skipped: /bin/sh SCRIPT failed (killed by a signal)");
  CHECK(skipped("no-python", "", "/nonexistent/python3") ==
        "figures skipped: cannot run /nonexistent/python3: No such file or directory");
}

TEST_CASE("the figures' interpreter is $CCSIM_PYTHON, else Debian's python3", "[report]") {
  const char* saved = std::getenv("CCSIM_PYTHON");
  const std::string before = saved != nullptr ? saved : "";
  ::setenv("CCSIM_PYTHON", "/opt/python/bin/python3", 1);
  CHECK(report::figures_python() == "/opt/python/bin/python3");
  ::setenv("CCSIM_PYTHON", "", 1);
  CHECK(report::figures_python() == "/usr/bin/python3");
  ::unsetenv("CCSIM_PYTHON");
  CHECK(report::figures_python() == "/usr/bin/python3");
  if (saved != nullptr) ::setenv("CCSIM_PYTHON", before.c_str(), 1);
}
