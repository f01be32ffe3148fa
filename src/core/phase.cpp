#include "core/phase.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include <fmt/format.h>

namespace ccsim {
namespace {

struct State {
  std::string what;  ///< the innermost phase
  std::string hint;
  bool failed = false;  ///< an exception left a phase: report that one
  std::string failed_what;
  std::string failed_hint;
  char* mirror = nullptr;
  std::size_t mirror_size = 0;
};

State& state() {
  static State s;
  return s;
}

void publish() {
  State& s = state();
  if (s.mirror == nullptr || s.mirror_size == 0) return;
  const std::string& what = Phase::what();
  const std::string& hint = Phase::hint();
  std::size_t n = std::min(what.size(), s.mirror_size - 1);
  std::memcpy(s.mirror, what.data(), n);
  if (!hint.empty() && n + 1 < s.mirror_size) {
    s.mirror[n++] = '\n';
    const std::size_t h = std::min(hint.size(), s.mirror_size - 1 - n);
    std::memcpy(s.mirror + n, hint.data(), h);
    n += h;
  }
  s.mirror[n] = '\0';
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// This process's peak resident memory so far (VmHWM), MiB; 0 where /proc does not say.
long peak_mib() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return 0;
  char line[256];
  long kib = 0;
  while (std::fgets(line, sizeof line, status) != nullptr) {
    if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
  }
  std::fclose(status);
  return kib / 1024;
}

bool print_times() {
  static const bool on = std::getenv("CCSIM_PHASE_TIMES") != nullptr;
  return on;
}

}  // namespace

Phase::Phase(std::string what, std::string hint)
    : previous_what_(std::move(state().what)),
      previous_hint_(std::move(state().hint)),
      uncaught_(std::uncaught_exceptions()),
      started_s_(print_times() ? now_s() : 0) {
  State& s = state();
  s.what = std::move(what);
  s.hint = std::move(hint);
  s.failed = false;
  publish();
}

Phase::~Phase() {
  State& s = state();
  if (print_times())
    fmt::print(stderr, "ccsim: {:.2f} s, peak {} MiB so far: {}\n", now_s() - started_s_, peak_mib(), s.what);
  if (std::uncaught_exceptions() > uncaught_ && !s.failed) {
    // Swapped, not copied: no allocation while an exception (perhaps bad_alloc) unwinds.
    s.failed_what.swap(s.what);
    s.failed_hint.swap(s.hint);
    s.failed = true;
  }
  s.what = std::move(previous_what_);
  s.hint = std::move(previous_hint_);
  publish();
}

const std::string& Phase::what() { return state().failed ? state().failed_what : state().what; }
const std::string& Phase::hint() { return state().failed ? state().failed_hint : state().hint; }

std::string Phase::out_of_memory_message() {
  if (what().empty()) return "out of memory";
  return hint().empty() ? fmt::format("out of memory while {}", what())
                        : fmt::format("out of memory while {}; {}", what(), hint());
}

void Phase::mirror_to(char* buffer, std::size_t size) {
  state().mirror = buffer;
  state().mirror_size = buffer == nullptr ? 0 : size;
  publish();
}

}  // namespace ccsim
