#include "engine/child_process.hpp"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/phase.hpp"
#include "engine/replay.hpp"

namespace ccsim::engine {
namespace {

// First byte of the child's answer.
enum class Outcome : char {
  kValue = 'V',
  kSimulationError = 'S',
  kInputError = 'I',
  kOutOfMemory = 'M',
  kResourceError = 'R',  ///< a ResourceError of the work itself (a system limit it checked)
  kOtherError = 'E',
};

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent went away; nothing left to do
    done += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string data;
  std::vector<char> buffer(1 << 16);
  while (true) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buffer.data(), static_cast<std::size_t>(n));
  }
  return data;
}

std::string encode_input_error(const InputError& e) {
  std::string out(1, static_cast<char>(Outcome::kInputError));
  for (const std::string& part : {e.file(), std::to_string(e.line()), e.field(), e.detail()}) {
    out += std::to_string(part.size()) + ":" + part;
  }
  return out;
}

[[noreturn]] void throw_input_error(std::string_view payload) {
  std::vector<std::string> parts;
  while (!payload.empty() && parts.size() < 4) {
    std::size_t colon = payload.find(':');
    auto size = colon == std::string_view::npos ? std::nullopt : parse_uint(payload.substr(0, colon));
    if (!size || colon + 1 + *size > payload.size())
      throw std::runtime_error("garbled error from the simulation process");
    parts.emplace_back(payload.substr(colon + 1, *size));
    payload.remove_prefix(colon + 1 + *size);
  }
  parts.resize(4);
  throw InputError(parts[0], static_cast<int>(parse_int(parts[1]).value_or(0)), parts[2], parts[3]);
}

std::string run_and_encode(const std::function<std::string()>& work) {
  try {
    std::string value = work();
    value.insert(value.begin(), static_cast<char>(Outcome::kValue));  // in place where it has room (serialize)
    return value;
  } catch (const SimulationError& e) {
    return static_cast<char>(Outcome::kSimulationError) + std::string(e.what());
  } catch (const InputError& e) {
    return encode_input_error(e);
  } catch (const ResourceError& e) {
    return static_cast<char>(Outcome::kResourceError) + std::string(e.what());
  } catch (const std::bad_alloc&) {
    // What failed is freed by now: there is memory again for the message.
    return static_cast<char>(Outcome::kOutOfMemory) + Phase::out_of_memory_message();
  } catch (const std::exception& e) {
    return static_cast<char>(Outcome::kOtherError) + std::string(e.what());
  }
}

std::string decode(std::string&& answer) {
  if (answer.empty()) throw std::runtime_error("the simulation process returned nothing");
  if (static_cast<Outcome>(answer[0]) == Outcome::kValue) {
    answer.erase(0, 1);  // in place: a job's result is hundreds of MB
    return std::move(answer);
  }
  std::string_view payload(answer);
  payload.remove_prefix(1);
  switch (static_cast<Outcome>(answer[0])) {
    case Outcome::kValue:
      break;
    case Outcome::kSimulationError:
      throw SimulationError(std::string(payload));
    case Outcome::kInputError:
      throw_input_error(payload);
    case Outcome::kOutOfMemory:
      throw ResourceError(fmt::format("the simulation process ran {}", payload));
    case Outcome::kResourceError:
      throw ResourceError(std::string(payload));
    case Outcome::kOtherError:
      break;
  }
  throw std::runtime_error(std::string(payload));
}

/// "SIGKILL (Killed)".
std::string signal_name(int signal) {
  const char* abbreviation = ::sigabbrev_np(signal);
  const char* description = ::strsignal(signal);
  return fmt::format("{}{} ({})", abbreviation != nullptr ? "SIG" : "signal ",
                     abbreviation != nullptr ? std::string(abbreviation) : std::to_string(signal),
                     description != nullptr ? description : "unknown signal");
}

/// The error for a child that died of `signal` in `phase` ("WHAT\nHINT", from Phase::mirror_to).
[[noreturn]] void throw_died(int signal, const std::string& phase) {
  const std::size_t newline = phase.find('\n');
  const std::string what = phase.substr(0, newline);
  const std::string hint = newline == std::string::npos ? std::string() : phase.substr(newline + 1);
  const std::string where = what.empty() ? std::string() : fmt::format(" while {}", what);
  if (signal == SIGKILL) {
    // What the kernel's out-of-memory killer sends (so does `kill -9`).
    throw ResourceError(fmt::format(
        "the simulation process was killed by {}{}; the system's out-of-memory killer does this when memory runs "
        "out{}",
        signal_name(signal), where, hint.empty() ? std::string() : ": " + hint));
  }
  // SimGrid dies by abort() (SIGABRT) also when memory runs out, e.g. "Failed to allocate stack"
  // for a rank; its log, which says so, is off without --simgrid-log.
  throw std::runtime_error(fmt::format(
      "the simulation process died of {}{}; SimGrid's message, if any, is above (--simgrid-log shows it and more){}",
      signal_name(signal), where,
      hint.empty() ? std::string()
                   : fmt::format("; if it says memory ran out (\"Failed to allocate stack\"): {}", hint)));
}

/// A page shared with the child, where it mirrors its phase; nullptr if none could be mapped
/// (then failures are reported without the phase).
class SharedPhase {
 public:
  static constexpr std::size_t kBytes = 4096;
  SharedPhase() {
    void* p = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    buffer_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
    if (buffer_ != nullptr) buffer_[0] = '\0';
  }
  ~SharedPhase() {
    if (buffer_ != nullptr) ::munmap(buffer_, kBytes);
  }
  SharedPhase(const SharedPhase&) = delete;
  SharedPhase& operator=(const SharedPhase&) = delete;

  char* buffer() const { return buffer_; }
  std::string text() const {
    if (buffer_ == nullptr) return {};
    return std::string(buffer_, ::strnlen(buffer_, kBytes));
  }

 private:
  char* buffer_ = nullptr;
};

}  // namespace

std::string run_in_child(const std::function<std::string()>& work) {
  const char* in_process = std::getenv("CCSIM_IN_PROCESS");
  if (in_process != nullptr && std::string_view(in_process) == "1") {
    // SimGrid's engine is a process-wide singleton: a second one aborts the process.
    static int simulations = 0;
    if (++simulations > 1) {
      throw InputError("CCSIM_IN_PROCESS=1", 0, "",
                       "in-process mode runs one simulation per process (SimGrid's engine cannot be started twice), "
                       "and this command runs more than one (compare runs two); unset CCSIM_IN_PROCESS, or debug a "
                       "single `ccsim replay`");
    }
    return decode(run_and_encode(work));
  }

  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  SharedPhase phase;
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("cannot start the simulation process: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    // Die with the parent: a killed ccsim must not leave its simulation running. The parent
    // may have died before prctl: then this process already belongs to another one.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::close(fds[0]);
    Phase::mirror_to(phase.buffer(), SharedPhase::kBytes);
    write_all(fds[1], run_and_encode(work));
    ::close(fds[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(0);  // the child must not run the parent's atexit handlers or destructors
  }
  ::close(fds[1]);
  std::string answer = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) throw_died(WTERMSIG(status), phase.text());
  return decode(std::move(answer));
}

}  // namespace ccsim::engine

namespace ccsim::engine {

std::string encode_outcome(const std::function<std::string()>& work) { return run_and_encode(work); }
std::string decode_outcome(const std::string& answer) { return decode(std::string(answer)); }
bool is_value_outcome(const std::string& answer) {
  return !answer.empty() && answer[0] == static_cast<char>(Outcome::kValue);
}

}  // namespace ccsim::engine
