#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/output_file.hpp"
#include "support/error_of.hpp"

namespace fs = std::filesystem;
using ccsim::InputError;

namespace {

/// A fresh directory, removed at the end of the test.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string name = (fs::temp_directory_path() / "ccsim_output_file_test.XXXXXX").string();
    REQUIRE(::mkdtemp(name.data()) != nullptr);
    path = name;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  /// Names in the directory, sorted (temporary files left behind would show here).
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string error_of(const std::string& path, const std::string& text) {
  return ccsim::test::message_of([&] { ccsim::write_output_file(path, text); });
}

}  // namespace

TEST_CASE("write_output_file creates and replaces regular files, leaving nothing else", "[output_file]") {
  ScratchDir dir;
  ccsim::write_output_file(dir / "out.txt", "first\n");
  CHECK(contents(dir / "out.txt") == "first\n");
  ccsim::write_output_file(dir / "out.txt", "second, longer\n");
  CHECK(contents(dir / "out.txt") == "second, longer\n");
  ccsim::write_output_file(dir / "out.txt", "");
  CHECK(contents(dir / "out.txt").empty());
  CHECK(dir.entries() == std::vector<std::string>{"out.txt"});
}

TEST_CASE("write_output_file keeps the permissions of a replaced file; a new one follows the umask", "[output_file]") {
  ScratchDir dir;
  put(dir / "kept.txt", "old");
  REQUIRE(::chmod((dir / "kept.txt").c_str(), 0640) == 0);
  ccsim::write_output_file(dir / "kept.txt", "new");
  struct stat st;
  REQUIRE(::stat((dir / "kept.txt").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);

  const mode_t old_mask = ::umask(027);
  ccsim::write_output_file(dir / "new.txt", "new");
  ::umask(old_mask);
  REQUIRE(::stat((dir / "new.txt").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);  // 0666 & ~027
}

TEST_CASE("write_output_file writes through a symlink and keeps the link", "[output_file]") {
  ScratchDir dir;
  put(dir / "target.txt", "old");
  fs::create_symlink("target.txt", dir / "link.txt");
  ccsim::write_output_file(dir / "link.txt", "new");
  CHECK(fs::is_symlink(dir / "link.txt"));
  CHECK(contents(dir / "target.txt") == "new");

  // A dangling link: the file is created where it points.
  fs::create_symlink("created.txt", dir / "dangling.txt");
  ccsim::write_output_file(dir / "dangling.txt", "made");
  CHECK(fs::is_symlink(dir / "dangling.txt"));
  CHECK(contents(dir / "created.txt") == "made");
  CHECK(dir.entries() == std::vector<std::string>{"created.txt", "dangling.txt", "link.txt", "target.txt"});
}

TEST_CASE("write_output_file refuses to replace an input, by any name", "[output_file]") {
  ScratchDir dir;
  put(dir / "input.json", "{}");
  ccsim::json::read_file(dir / "input.json");  // notes it as an input
  CHECK(error_of(dir / "input.json", "report") ==
        dir / "input.json" + ": refusing to overwrite an input of this command; write the output to another file");
  fs::create_symlink("input.json", dir / "alias.json");
  fs::create_hard_link(dir / "input.json", dir / "hard.json");
  for (const std::string& other : {dir / "alias.json", dir / "hard.json", dir.path.string() + "/./input.json"}) {
    CHECK(error_of(other, "report") == other + ": refusing to overwrite an input of this command (the file read as " +
                                           (dir / "input.json") + "); write the output to another file");
  }
  CHECK(contents(dir / "input.json") == "{}");
}

TEST_CASE("an input deleted since it was read is no longer one, whatever file takes its inode", "[output_file]") {
  ScratchDir dir;
  put(dir / "input.json", "{}");
  ccsim::json::read_file(dir / "input.json");
  struct stat input;
  REQUIRE(::stat((dir / "input.json").c_str(), &input) == 0);
  ::unlink((dir / "input.json").c_str());
  // The file systems of this machine hand a freed inode to the next file: try a few names
  // until one lands on it (the check below holds whether or not one does).
  std::string reused;
  for (int i = 0; i < 16 && reused.empty(); ++i) {
    const std::string name = dir / fmt::format("output{}.txt", i);
    put(name, "old");
    struct stat st;
    REQUIRE(::stat(name.c_str(), &st) == 0);
    if (st.st_ino == input.st_ino && st.st_dev == input.st_dev) reused = name;
  }
  if (reused.empty()) WARN("no file took the deleted input's inode here: the case below checks nothing new");
  const std::string target = reused.empty() ? dir / "output0.txt" : reused;
  CAPTURE(reused);
  CHECK_NOTHROW(ccsim::write_output_file(target, "new"));
  CHECK(contents(target) == "new");
}

TEST_CASE("write_output_file writes to devices and FIFOs in place", "[output_file]") {
  ccsim::write_output_file("/dev/null", "discarded");
  struct stat st;
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));

  ScratchDir dir;
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  const int reader = ::open((dir / "fifo").c_str(), O_RDONLY | O_NONBLOCK);  // so that the writer's open succeeds
  REQUIRE(reader >= 0);
  ccsim::write_output_file(dir / "fifo", "through the pipe");
  char buffer[64] = {};
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  CHECK(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0) == "through the pipe");
  REQUIRE(::lstat((dir / "fifo").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("write_output_file reports the system's reason with the path and leaves no temporary file", "[output_file]") {
  ScratchDir dir;
  CHECK(error_of(dir / "missing/out.txt", "x") == dir / "missing/out.txt" +
                                                      ": cannot write: cannot create a file in directory " +
                                                      (dir / "missing") + ": No such file or directory");
  fs::create_directory(dir / "sub");
  CHECK(error_of(dir / "sub", "x") == dir / "sub" + ": cannot write: Is a directory");
  CHECK(error_of("/dev/full", "x") == "/dev/full: cannot write: No space left on device");
  CHECK(error_of("", "x") == "\"\": cannot write: the file name is empty");
  CHECK(dir.entries() == std::vector<std::string>{"sub"});
}

TEST_CASE("a command's output goes to its file, or to standard output for '-'; never to no name", "[output_file]") {
  ScratchDir dir;
  ccsim::write_output(dir / "out.txt", std::string("text\n"));
  CHECK(contents(dir / "out.txt") == "text\n");
  ccsim::write_output(dir / "chunks.txt", [](const ccsim::OutputSink& sink) {
    sink("a");
    sink("b");
  });
  CHECK(contents(dir / "chunks.txt") == "ab");
  CHECK_NOTHROW(ccsim::check_output_path("-"));
  CHECK_NOTHROW(ccsim::check_output_path(dir / "new.txt"));
  const std::string no_name =
      "command line: field '--output': expected a file name, or '-' for standard output, got \"\"";
  CHECK(ccsim::test::message_of([] { ccsim::check_output_path(""); }) == no_name);
  CHECK(ccsim::test::message_of([] { ccsim::write_output("", std::string("x")); }) == no_name);
  CHECK_THAT(ccsim::test::message_of([&] { ccsim::check_output_path(dir / "missing/out.txt"); }),
             Catch::StartsWith(dir / "missing/out.txt"));
  CHECK(dir.entries() == std::vector<std::string>{"chunks.txt", "out.txt"});
}

TEST_CASE("an output directory is checked, then made with its parents, and its files checked", "[output_file]") {
  ScratchDir dir;
  auto error = [](auto&& work) { return ccsim::test::message_of(work); };
  CHECK(error([] { ccsim::check_output_directory("-"); }) ==
        "command line: field '--output': expected a directory, got \"-\"");
  put(dir / "file", "x");
  CHECK(error([&] { ccsim::check_output_directory(dir / "file"); }) ==
        "command line: field '--output': expected a directory, got \"" + dir / "file" + "\" (a file)");
  CHECK_NOTHROW(ccsim::check_output_directory(dir / "new"));  // made later
  ccsim::create_output_directory(dir / "new/sub", {"a.md", "b.json"});
  CHECK(fs::is_directory(dir / "new/sub"));
  CHECK_THAT(error([&] { ccsim::create_output_directory(dir / "file/sub", {}); }),
             Catch::StartsWith(dir / "file/sub" + ": field '--output': cannot create the directory: "));
}

TEST_CASE("an output made chunk by chunk is written as it comes and replaces the file only when whole",
          "[output_file]") {
  ScratchDir dir;
  // Through SinkStream: 3 MiB and a bit, handed over in chunks of at most 1 MiB.
  std::vector<std::size_t> chunks;
  const std::string line(1000, 'x');
  ccsim::write_output_file(dir / "out.txt", [&](const ccsim::OutputSink& sink) {
    ccsim::SinkStream out([&](std::string_view chunk) {
      chunks.push_back(chunk.size());
      sink(chunk);
    });
    for (int i = 0; i < 3200; ++i) out << line << '\n';
    out.flush();
  });
  CHECK(contents(dir / "out.txt").size() == 3200 * 1001);
  REQUIRE(chunks.size() == 4);
  CHECK(chunks[0] == std::size_t{1} << 20);
  CHECK(chunks[3] == 3200 * 1001 - 3 * (std::size_t{1} << 20));

  // A producer that fails half-way leaves the file as it was, and no temporary file.
  CHECK_THROWS_WITH(ccsim::write_output_file(dir / "out.txt",
                                             [](const ccsim::OutputSink& sink) {
                                               sink("half of it");
                                               throw InputError("trace.json", 3, "ops", "bad");
                                             }),
                    "trace.json:3: field 'ops': bad");
  CHECK(contents(dir / "out.txt").size() == 3200 * 1001);
  CHECK(dir.entries() == std::vector<std::string>{"out.txt"});

  // A write error met by the stream leaves it by the output call or flush() that met it.
  const std::string message = ccsim::test::message_of([&] {
    ccsim::write_output_file("/dev/full", [&](const ccsim::OutputSink& sink) {
      ccsim::SinkStream out(sink);
      out << "x";
      out.flush();
    });
  });
  CHECK(message == "/dev/full: cannot write: No space left on device");
}
