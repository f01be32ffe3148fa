#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "core/output_file.hpp"

namespace ccsim::cli {

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

}  // namespace ccsim::cli
