#pragma once

#include <cstddef>
#include <string>

namespace ccsim {

/// What this process is doing now ("building the platform (12,288 links, 4,096 hosts)"), with a
/// hint for when it fails for want of resources. Set for the scope of a long or memory-hungry step,
/// so that running out of memory, or being killed for it, is reported with the step and the hint
/// instead of a bare "std::bad_alloc". Phases nest: the destructor restores the enclosing one,
/// except when an exception leaves the phase: then the phase it left stays the one reported
/// (what() and hint()) until the next phase starts. One per process: set only on the main thread.
/// With CCSIM_PHASE_TIMES set in the environment, each phase that ends prints its wall time
/// and the process's peak resident memory so far to stderr ("ccsim: 12.34 s, peak 380 MiB so
/// far: reading the trace ..."): where a long run spends them (a replay runs in a child process).
class Phase {
 public:
  Phase(std::string what, std::string hint);
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

  /// The phase to report: the innermost one, or the one an exception left; empty when none.
  static const std::string& what();
  static const std::string& hint();

  /// "out of memory while WHAT; HINT" ("out of memory" outside any phase).
  static std::string out_of_memory_message();

  /// From now on the phase to report is also copied into `buffer` (`size` bytes, "WHAT\nHINT",
  /// NUL-terminated) at every change, without allocating: e.g. into memory shared with a parent
  /// process, which reads it after this one died. nullptr stops it.
  static void mirror_to(char* buffer, std::size_t size);

 private:
  std::string previous_what_;
  std::string previous_hint_;
  int uncaught_;      ///< std::uncaught_exceptions() when the phase started
  double started_s_;  ///< steady clock, for CCSIM_PHASE_TIMES
};

}  // namespace ccsim
