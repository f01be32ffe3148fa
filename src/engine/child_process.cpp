#include "engine/child_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "engine/replay.hpp"

namespace ccsim::engine {
namespace {

// First byte of the child's answer.
enum class Outcome : char { kValue = 'V', kSimulationError = 'S', kInputError = 'I', kOtherError = 'E' };

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
    if (!size || colon + 1 + *size > payload.size()) throw std::runtime_error("garbled error from the simulation process");
    parts.emplace_back(payload.substr(colon + 1, *size));
    payload.remove_prefix(colon + 1 + *size);
  }
  parts.resize(4);
  throw InputError(parts[0], static_cast<int>(parse_int(parts[1]).value_or(0)), parts[2], parts[3]);
}

std::string run_and_encode(const std::function<std::string()>& work) {
  try {
    return static_cast<char>(Outcome::kValue) + work();
  } catch (const SimulationError& e) {
    return static_cast<char>(Outcome::kSimulationError) + std::string(e.what());
  } catch (const InputError& e) {
    return encode_input_error(e);
  } catch (const std::exception& e) {
    return static_cast<char>(Outcome::kOtherError) + std::string(e.what());
  }
}

std::string decode(const std::string& answer) {
  if (answer.empty()) throw std::runtime_error("the simulation process returned nothing");
  std::string_view payload(answer);
  payload.remove_prefix(1);
  switch (static_cast<Outcome>(answer[0])) {
    case Outcome::kValue: return std::string(payload);
    case Outcome::kSimulationError: throw SimulationError(std::string(payload));
    case Outcome::kInputError: throw_input_error(payload);
    case Outcome::kOtherError: break;
  }
  throw std::runtime_error(std::string(payload));
}

}  // namespace

std::string run_in_child(const std::function<std::string()>& work) {
  const char* in_process = std::getenv("CCSIM_IN_PROCESS");
  if (in_process != nullptr && std::string_view(in_process) == "1") return decode(run_and_encode(work));

  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("cannot start the simulation process: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
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
  if (WIFSIGNALED(status)) {
    throw std::runtime_error(fmt::format(
        "the simulation process died of signal {} ({}); SimGrid's message, if any, is above (--simgrid-log shows more)",
        WTERMSIG(status), strsignal(WTERMSIG(status))));
  }
  return decode(answer);
}

}  // namespace ccsim::engine
