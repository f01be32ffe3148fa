#include "core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"

namespace ccsim {
namespace {

struct InputFile {
  dev_t device;
  ino_t inode;
  std::string path;
};

std::mutex inputs_mutex;
std::vector<InputFile>& inputs() {
  static std::vector<InputFile> files;
  return files;
}

/// The input that is the file of `st`, if any.
std::optional<std::string> input_at(const struct stat& st) {
  std::lock_guard<std::mutex> lock(inputs_mutex);
  for (const InputFile& f : inputs()) {
    if (f.device != st.st_dev || f.inode != st.st_ino) continue;
    // An input deleted since it was read frees its inode, which a new file may take: only a
    // file that its name still reaches is the input.
    struct stat now;
    if (::stat(f.path.c_str(), &now) == 0 && now.st_dev == f.device && now.st_ino == f.inode) return f.path;
  }
  return std::nullopt;
}

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw InputError(path, 0, "", fmt::format("cannot write: {}", reason));
}

/// Writes all of `text` to `fd`; false with errno set on failure.
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = EIO;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// Runs `produce` with a sink that writes to `fd`; an error of the write is an InputError
/// naming `path` (and stops `produce`, whose exception it is).
void produce_into(const std::string& path, int fd, const OutputProducer& produce) {
  produce([&](std::string_view chunk) {
    if (!write_all(fd, chunk)) fail(path, std::strerror(errno));
  });
}

/// The descriptor that `path` names by itself (/dev/stdout, /dev/fd/3, /proc/self/fd/3), if any.
std::optional<int> descriptor_path(const std::string& path) {
  if (path == "/dev/stdin") return 0;
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.starts_with(prefix)) {
      auto fd = parse_uint(std::string_view(path).substr(prefix.size()));
      if (fd && *fd <= 1u << 30) return static_cast<int>(*fd);
    }
  }
  return std::nullopt;
}

void write_descriptor(const std::string& path, int fd, const OutputProducer& produce) {
  if (fd == 1 || fd == 2) {
    std::cout.flush();
    std::fflush(fd == 1 ? stdout : stderr);
  }
  produce_into(path, fd, produce);
}

/// Where `path` leads after following symbolic links of its last component (the directories on
/// the way are followed by the system), stopping at a descriptor path; a missing final target
/// (a dangling link) is where a new file goes.
std::string follow_links(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    if (descriptor_path(current)) return current;
    struct stat st;
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    std::string target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
    const ssize_t n = ::readlink(current.c_str(), target.data(), target.size());
    if (n < 0) fail(path, std::strerror(errno));
    if (static_cast<std::size_t>(n) >= target.size()) fail(path, "a symbolic link changed while it was read");
    target.resize(static_cast<std::size_t>(n));
    if (target.starts_with('/')) {
      current = target;
    } else {
      const std::size_t slash = current.rfind('/');
      current = slash == std::string::npos ? target : current.substr(0, slash + 1).append(target);
    }
  }
  fail(path, std::strerror(ELOOP));
}

/// Writes what `produce` makes to a unique temporary file in the directory of `target` and
/// renames it onto `target`; the temporary file is removed whatever fails (`produce` too).
void replace_file(const std::string& path, const std::string& target, const OutputProducer& produce, mode_t mode) {
  const std::size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : target.substr(0, slash);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  // ".NAME.XXXXXX": hidden, and recognisably ours should a crash leave it behind.
  std::string temporary = (slash == std::string::npos ? std::string() : target.substr(0, slash + 1)) + "." +
                          base.substr(0, 200) + ".XXXXXX";
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) fail(path, fmt::format("cannot create a file in directory {}: {}", dir, std::strerror(errno)));
  int error = 0;
  if (::fchmod(fd, mode) != 0) error = errno;
  if (error == 0) {
    try {
      produce_into(path, fd, produce);
    } catch (...) {
      ::close(fd);
      ::unlink(temporary.c_str());
      throw;
    }
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), target.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    fail(path, std::strerror(error));
  }
}

void refuse_input(const std::string& path, const struct stat& st) {
  if (auto input = input_at(st)) {
    throw InputError(path, 0, "",
                     *input == path ? std::string("refusing to overwrite an input of this command; write the output to "
                                                  "another file")
                                    : fmt::format("refusing to overwrite an input of this command (the file read as "
                                                  "{}); write the output to another file",
                                                  *input));
  }
}

}  // namespace

void check_output_file(const std::string& path) {
  const std::string target = follow_links(path);
  if (descriptor_path(target)) return;
  struct stat st;
  if (::stat(target.c_str(), &st) == 0) {
    refuse_input(path, st);
    if (S_ISDIR(st.st_mode)) fail(path, std::strerror(EISDIR));
    return;
  }
  if (errno != ENOENT) fail(path, std::strerror(errno));
  // A new file: its directory must exist (the words of replace_file's failure).
  const std::size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : target.substr(0, slash);
  const int error = ::stat(dir.c_str(), &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  if (error != 0) fail(path, fmt::format("cannot create a file in directory {}: {}", dir, std::strerror(error)));
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  // A file's identity: device and inode when it exists, else its absolute path with the
  // symlinks of its existing parent directories resolved.
  auto identity = [](const std::string& path) -> std::string {
    std::string target = follow_links(path);
    if (descriptor_path(target)) return target;
    struct stat st;
    if (::stat(target.c_str(), &st) == 0) return fmt::format("inode {}:{}", st.st_dev, st.st_ino);
    std::error_code ec;
    const std::filesystem::path canonical =
        std::filesystem::weakly_canonical(std::filesystem::absolute(target, ec), ec);
    return ec ? target : canonical.string();
  };
  std::vector<std::pair<std::string, std::size_t>> seen;  // identity, index in outputs
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (path.empty() || path == "-") continue;
    const std::string id = identity(path);
    for (const auto& [other, j] : seen) {
      if (other != id) continue;
      throw InputError("command line", 0, option,
                       fmt::format("\"{}\" is also the file of {} (\"{}\"): one output would replace the other; "
                                   "give each its own file",
                                   path, outputs[j].first, outputs[j].second));
    }
    seen.emplace_back(id, i);
  }
}

void note_input_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return;
  std::lock_guard<std::mutex> lock(inputs_mutex);
  inputs().push_back(InputFile{st.st_dev, st.st_ino, path});
}

void write_output_file(const std::string& path, std::string_view text) {
  write_output_file(path, [text](const OutputSink& sink) { sink(text); });
}

void write_output_file(const std::string& path, const OutputProducer& produce) {
  if (path.empty()) throw InputError("\"\"", 0, "", "cannot write: the file name is empty");
  const std::string target = follow_links(path);
  if (auto fd = descriptor_path(target)) return write_descriptor(path, *fd, produce);

  struct stat st;
  if (::stat(target.c_str(), &st) != 0) {
    if (errno != ENOENT) fail(path, std::strerror(errno));
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return replace_file(path, target, produce, 0666 & ~mask);
  }
  refuse_input(path, st);
  if (S_ISREG(st.st_mode)) return replace_file(path, target, produce, st.st_mode & 07777);

  // A FIFO, a device, a socket: no rename (it would replace the special file by a regular one).
  const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, std::strerror(errno));
  try {
    produce_into(path, fd, produce);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail(path, std::strerror(errno));
}

void check_output_path(const std::string& path) {
  if (path.empty()) {
    throw InputError("command line", 0, "--output", "expected a file name, or '-' for standard output, got \"\"");
  }
  if (path != "-") check_output_file(path);
}

void write_output(const std::string& path, const std::string& text) {
  write_output(path, [&text](const OutputSink& sink) { sink(text); });
}

void write_output(const std::string& path, const OutputProducer& produce) {
  check_output_path(path);
  if (path == "-") {
    write_stdout(produce);
  } else {
    write_output_file(path, produce);
  }
}

void check_output_directory(const std::string& path) {
  if (path.empty() || path == "-") {
    throw InputError("command line", 0, "--output", fmt::format("expected a directory, got \"{}\"", path));
  }
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)) {
    throw InputError("command line", 0, "--output", fmt::format("expected a directory, got \"{}\" (a file)", path));
  }
}

void create_output_directory(const std::string& path, const std::vector<std::string>& files) {
  std::error_code error;
  if (!std::filesystem::create_directories(path, error) && error) {
    throw InputError(path, 0, "--output", fmt::format("cannot create the directory: {}", error.message()));
  }
  for (const std::string& file : files) check_output_path((std::filesystem::path(path) / file).string());
}

void write_stdout(std::string_view text) {
  write_descriptor("standard output", 1, [text](const OutputSink& sink) { sink(text); });
}

void write_stdout(const OutputProducer& produce) { write_descriptor("standard output", 1, produce); }

SinkStream::Buffer::Buffer(OutputSink sink) : sink_(std::move(sink)), space_(std::size_t{1} << 20, '\0') {
  setp(space_.data(), space_.data() + space_.size());
}

void SinkStream::Buffer::drain() {
  const std::size_t n = static_cast<std::size_t>(pptr() - pbase());
  setp(space_.data(), space_.data() + space_.size());  // emptied even when the sink throws
  if (n > 0) sink_(std::string_view(space_.data(), n));
}

SinkStream::Buffer::int_type SinkStream::Buffer::overflow(int_type c) {
  drain();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int SinkStream::Buffer::sync() {
  drain();
  return 0;
}

SinkStream::SinkStream(OutputSink sink) : std::ostream(nullptr), buffer_(std::move(sink)) {
  rdbuf(&buffer_);
  exceptions(std::ios::badbit);  // the sink's exception (a write error) reaches the writer's caller
}

SinkStream::~SinkStream() = default;

std::optional<std::string> flush_stdout() {
  // std::cout writes through stdio's stdout (synced, the default): one flush sends both, and
  // its errno is the reason. An earlier failed write leaves only the error flag.
  errno = 0;
  const int flushed = std::fflush(stdout);
  const int error = errno;
  std::cout.flush();
  if (flushed != 0) return fmt::format("standard output: cannot write: {}", std::strerror(error));
  if (std::ferror(stdout) != 0 || std::cout.bad()) return std::string("standard output: cannot write: a write failed");
  return std::nullopt;
}

}  // namespace ccsim
