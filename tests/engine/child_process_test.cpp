#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "core/phase.hpp"
#include "engine/child_process.hpp"
#include "engine/replay.hpp"
#include "support/error_of.hpp"

using namespace ccsim;

namespace {

template <typename Error>
std::string error_of(const std::function<std::string()>& work) {
  return ccsim::test::message_of<Error>([&] { engine::run_in_child(work); }, "no error of the expected type");
}

/// True once process `pid` is gone or a zombie (its parent died: nobody here can reap it).
bool dead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const std::size_t close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] == 'Z' || line[close + 2] == 'X';
}

}  // namespace

TEST_CASE("run_in_child returns the child's answer and rethrows its errors", "[engine][child]") {
  CHECK(engine::run_in_child([] { return std::string("answer"); }) == "answer");
  CHECK(error_of<InputError>([]() -> std::string { throw InputError("t.json", 3, "ranks", "expected 1"); }) ==
        "t.json:3: field 'ranks': expected 1");
  CHECK(error_of<engine::SimulationError>([]() -> std::string { throw engine::SimulationError("stalled"); }) ==
        "stalled");
}

TEST_CASE("the child running out of memory names its phase and a hint", "[engine][child]") {
  CHECK(error_of<engine::ResourceError>([]() -> std::string {
          Phase phase("building the platform (12 links, 2 nodes, 4 accelerators)", "reduce the platform's size");
          throw std::bad_alloc();
        }) ==
        "the simulation process ran out of memory while building the platform (12 links, 2 nodes, 4 accelerators); "
        "reduce the platform's size");
}

TEST_CASE("a child killed by a signal is reported with the signal's name and its phase", "[engine][child]") {
  CHECK(error_of<engine::ResourceError>([]() -> std::string {
          Phase phase("building the platform (9 links, 1 nodes, 8 accelerators)", "reduce the platform's size");
          ::raise(SIGKILL);
          return "not reached";
        }) ==
        "the simulation process was killed by SIGKILL (Killed) while building the platform (9 links, 1 nodes, 8 "
        "accelerators); the system's out-of-memory killer does this when memory runs out: reduce the platform's size");
  CHECK(error_of<std::runtime_error>([]() -> std::string {
          Phase phase("simulating 3 ranks", "fewer ranks");
          std::signal(SIGABRT, SIG_DFL);  // not Catch's handler, which reports from the child
          ::raise(SIGABRT);
          return "not reached";
        }) ==
        "the simulation process died of SIGABRT (Aborted) while simulating 3 ranks; SimGrid's message, if any, is "
        "above (--simgrid-log shows it and more); if it says memory ran out (\"Failed to allocate stack\"): fewer "
        "ranks");
}

TEST_CASE("the simulation process dies with its parent", "[engine][child]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t parent = ::fork();
  REQUIRE(parent >= 0);
  if (parent == 0) {
    // Stands for ccsim: its child (the simulation) sends its pid, then works for a minute.
    ::close(fds[0]);
    try {
      engine::run_in_child([&] {
        const pid_t self = ::getpid();
        (void)!::write(fds[1], &self, sizeof self);
        ::close(fds[1]);
        ::sleep(60);
        return std::string();
      });
    } catch (...) {
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  pid_t simulation = 0;
  const bool got = ::read(fds[0], &simulation, sizeof simulation) == static_cast<ssize_t>(sizeof simulation);
  ::close(fds[0]);
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  REQUIRE(got);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!dead(simulation) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const bool gone = dead(simulation);
  if (!gone) ::kill(simulation, SIGKILL);  // do not leave it behind when the test fails
  CHECK(gone);
}

TEST_CASE("CCSIM_IN_PROCESS=1 runs one simulation, and refuses a second one clearly", "[engine][child]") {
  ::setenv("CCSIM_IN_PROCESS", "1", 1);
  const pid_t self = ::getpid();
  std::string first = engine::run_in_child([&] { return std::to_string(::getpid() == self); });
  std::string second = error_of<InputError>([] { return std::string("ran"); });
  ::unsetenv("CCSIM_IN_PROCESS");
  CHECK(first == "1");  // in this process
  CHECK(second ==
        "CCSIM_IN_PROCESS=1: in-process mode runs one simulation per process (SimGrid's engine cannot be started "
        "twice), and this command runs more than one (compare runs two); unset CCSIM_IN_PROCESS, or debug a single "
        "`ccsim replay`");
  CHECK(engine::run_in_child([] { return std::string("child"); }) == "child");  // unaffected without it
}
