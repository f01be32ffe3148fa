#include "core/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

namespace ccsim {
namespace {
constexpr double kQuiet_s = 2.0;  // nothing during a step's first seconds
constexpr double kEvery_s = 0.5;  // at most two lines a second
}  // namespace

Progress::Progress(std::string phase, bool enabled, std::FILE* out)
    : phase_(std::move(phase)), enabled_(enabled), out_(out), start_(std::chrono::steady_clock::now()), last_(start_) {}

Progress::~Progress() {
  if (shown_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
  }
}

std::string Progress::line(const std::string& phase, double fraction, double elapsed_s) {
  const double f = std::clamp(fraction, 0.0, 1.0);
  std::string eta = "ETA unknown";
  if (f > 0) eta = fmt::format("ETA {:.0f} s", elapsed_s * (1 - f) / f);
  return fmt::format("{}: {:.0f} % ({}, {:.0f} s so far)", phase, f * 100, eta, elapsed_s);
}

void Progress::update(double fraction) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  if (elapsed_s < kQuiet_s || (shown_ && std::chrono::duration<double>(now - last_).count() < kEvery_s)) return;
  last_ = now;
  shown_ = true;
  fmt::print(out_, "\r\033[K{}", line(phase_, fraction, elapsed_s));
  std::fflush(out_);
}

bool progress_wanted() {
  const char* env = std::getenv("CCSIM_PROGRESS");
  if (env != nullptr && std::string_view(env) == "0") return false;
  return isatty(STDERR_FILENO) == 1;
}

}  // namespace ccsim
