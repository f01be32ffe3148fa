#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ccsim::json {

enum class Type : std::uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

/// A parsed JSON value that remembers the line it started on, so that readers can report
/// "file:line: field 'x': ..." for any value. Numbers keep their source text, so integers
/// of any size are read exactly and messages can quote what the user wrote.
class Value {
 public:
  using Member = std::pair<std::string, Value>;

  Type type() const { return type_; }
  int line() const { return line_; }

  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  bool boolean() const { return bool_; }
  /// Numbers: the literal as written ("1e-3", "16777216"); strings: the decoded text.
  const std::string& text() const { return text_; }
  const std::vector<Value>& items() const { return items_; }
  const std::vector<Member>& members() const { return members_; }

  /// The member called `key`, or nullptr. Objects keep their members in file order.
  const Value* find(std::string_view key) const;

  /// A short rendering for messages: strings and numbers as written, "{...}", "[...]", true, null.
  std::string describe() const;

  /// A name for the type: "a string", "an object", ...
  static const char* type_name(Type type);

 private:
  friend class Parser;
  Type type_ = Type::kNull;
  int line_ = 0;
  bool bool_ = false;
  std::string text_;
  std::vector<Value> items_;
  std::vector<Member> members_;
};

/// Parses a whole JSON document. Syntax errors throw InputError(file, line, "", "...").
/// Duplicate keys in an object are an error (they would silently shadow each other).
Value parse(std::string_view text, const std::string& file);

/// Reads and parses a file; an unreadable file is an InputError naming it.
Value parse_file(const std::string& path);

/// Reads a whole file into a string; an unreadable file is an InputError naming it.
std::string read_file(const std::string& path);

}  // namespace ccsim::json
