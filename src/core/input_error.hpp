#pragma once

#include <stdexcept>
#include <string>

namespace ccsim {

/// An error in something the user gave us (a trace, a platform, a model file, a command-line value),
/// located at file, line and field. what() reads like a compiler diagnostic:
///   traces/x.json:42: field 'ranks[0].ops[3].bytes': expected a non-negative integer, got "-5"
class InputError : public std::runtime_error {
 public:
  /// `line` 0 means "no line" (a command-line value, a whole file); `field` may be empty.
  InputError(std::string file, int line, std::string field, std::string detail);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& field() const { return field_; }
  const std::string& detail() const { return detail_; }
  /// Whether it is about something given on the command line (an option's value: file() is
  /// the option, "--platform"; "command line" for a check across options), not about a file.
  bool from_command_line() const { return file_.starts_with("--") || file_ == "command line"; }

 private:
  std::string file_;
  int line_;
  std::string field_;
  std::string detail_;
};

/// An InputError about a name that is none of the valid ones (a preset, a model, a key): its
/// message lists them, with "did you mean X?" when one is close (core/spelling.hpp). Given on
/// the command line (file() is the option, "--platform"), the command line is malformed, and
/// cli/ exits as for an unknown option; read from a file, it is bad input like any other.
class UnknownNameError : public InputError {
 public:
  using InputError::InputError;
};

/// Where a value came from: the file and the line of the value, and the path of the field
/// inside the document ("ranks[0].ops[3].bytes"). Cheap to copy; used to build InputErrors.
struct SourceRef {
  std::string file;
  int line = 0;
  std::string field;

  [[noreturn]] void fail(const std::string& detail) const;
};

}  // namespace ccsim
