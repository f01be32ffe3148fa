#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace ccsim {

/// Progress of a long step on a terminal: "PHASE: 42 % (ETA 12 s)" on one line of stderr,
/// rewritten in place. Silent unless enabled (the caller passes whether stderr is a terminal:
/// progress_wanted()), during the first two seconds of the step, and between updates less than
/// half a second apart; the destructor clears the line if it wrote one. Fractions are clamped
/// to [0, 1]; the ETA assumes the rest goes at the pace so far.
class Progress {
 public:
  Progress(std::string phase, bool enabled, std::FILE* out = stderr);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void update(double fraction);
  /// The line an update at `fraction` after `elapsed_s` shows (for tests).
  static std::string line(const std::string& phase, double fraction, double elapsed_s);

 private:
  std::string phase_;
  bool enabled_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  bool shown_ = false;
};

/// Whether progress lines may be shown: stderr is a terminal and CCSIM_PROGRESS is not "0".
bool progress_wanted();

}  // namespace ccsim
