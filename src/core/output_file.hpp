#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ccsim {

/// Records that this process reads the file `path` (json::read_file and the other readers call
/// it), so that write_output_file refuses to replace an input. One command per process: the
/// record is the command's inputs. A path that cannot be stat'ed is not recorded.
void note_input_file(const std::string& path);

/// Writes `text` to the file `path`, never half-way and never over an input:
/// - a path that is, after symlinks, the same file (device and inode) as an input noted by
///   note_input_file: InputError, nothing written;
/// - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to that descriptor;
/// - a regular file, or a new one: written to a unique temporary file beside it, then renamed
///   onto it (a symlink is followed: its target is replaced and the link stays); a replaced
///   file keeps its permission bits, a new one gets 0666 less the umask;
/// - anything else (a FIFO, a character device such as /dev/null): opened and written in place.
/// A failure is an InputError naming `path` and the system's reason; no temporary file remains.
void write_output_file(const std::string& path, std::string_view text);

/// Takes each chunk of an output in turn.
using OutputSink = std::function<void(std::string_view)>;
/// Makes an output chunk by chunk into the sink it is given, so that a large output (a report
/// of every rank) is never whole in memory.
using OutputProducer = std::function<void(const OutputSink&)>;

/// An ostream whose text goes to an OutputSink in chunks of 1 MiB, for the writers of reports
/// that take a std::ostream. flush() hands over the rest: call it at the end (the destructor
/// does not, since it could not report a write error). An exception of the sink (a write
/// error) leaves the stream by the output call or flush() that met it.
class SinkStream : public std::ostream {
 public:
  explicit SinkStream(OutputSink sink);
  ~SinkStream() override;
  SinkStream(const SinkStream&) = delete;
  SinkStream& operator=(const SinkStream&) = delete;

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(OutputSink sink);
    void drain();  ///< hands what is buffered to the sink

   protected:
    int_type overflow(int_type c) override;
    int sync() override;

   private:
    OutputSink sink_;  // a copy: the caller's may be a temporary
    std::string space_;
  };
  Buffer buffer_;
};

/// write_output_file of what `produce` makes, written as it comes: into the temporary file (so
/// that `path` is replaced only when all of it was made and written: an exception of `produce`
/// leaves `path` as it was, and no temporary file), or to the descriptor or special file.
void write_output_file(const std::string& path, const OutputProducer& produce);

/// Throws the InputError of write_output_file for an output that is an input noted so far, a
/// directory, or a new file in a directory that does not exist: for a check before long work.
void check_output_file(const std::string& path);

/// Throws an InputError when two of a command's outputs, (option, path) pairs, are one file
/// (after symlinks; "-" and "" are not files): the second would replace the first. For a check
/// before any work.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

/// A command's output: written to `path` by write_output_file, or to standard output for "-";
/// "" is an InputError (of the command line's --output).
void write_output(const std::string& path, const std::string& text);
/// write_output of an output made chunk by chunk (OutputProducer): never whole in memory, and
/// `path` is replaced only when all of it was made.
void write_output(const std::string& path, const OutputProducer& produce);
/// Throws the InputError write_output would throw for `path` ("", or an input read so far):
/// called once the inputs are read, before long work.
void check_output_path(const std::string& path);

/// Throws the InputError of an output directory (--output) that cannot be one: "", "-", or a
/// file that is not a directory.
void check_output_directory(const std::string& path);
/// Creates the output directory `path` (--output) and its parents where missing (an InputError
/// when it cannot), then checks each of `files` in it as write_output would (check_output_path):
/// a file that is an input lies in a directory that existed.
void create_output_directory(const std::string& path, const std::vector<std::string>& files);

/// Writes `text` to standard output now (after what stdio and std::cout hold). A write error
/// (a full disk, a closed pipe) is an InputError for "standard output" with the reason.
void write_stdout(std::string_view text);
/// write_stdout of what `produce` makes, chunk by chunk.
void write_stdout(const OutputProducer& produce);

/// Flushes stdio's and std::cout's standard output; the message of a write error, if any
/// ("standard output: cannot write: No space left on device"). Call before exiting.
std::optional<std::string> flush_stdout();

}  // namespace ccsim
