#include "core/json.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/output_file.hpp"
#include "core/text_lines.hpp"
#include "core/utf8.hpp"

namespace ccsim::json {

const Value* Value::find(std::string_view key) const {
  for (const Member& member : members_) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

const char* Value::type_name(Type type) {
  switch (type) {
    case Type::kNull:
      return "null";
    case Type::kBool:
      return "a boolean";
    case Type::kNumber:
      return "a number";
    case Type::kString:
      return "a string";
    case Type::kArray:
      return "an array";
    case Type::kObject:
      return "an object";
  }
  return "?";
}

std::string Value::describe() const {
  switch (type_) {
    case Type::kNull:
      return "null";
    case Type::kBool:
      return bool_ ? "true" : "false";
    case Type::kNumber:
      return text_;
    case Type::kString:
      return text_.size() > 60 ? text_.substr(0, 57) + "..." : text_;
    case Type::kArray:
      return "[...]";
    case Type::kObject:
      return "{...}";
  }
  return "?";
}

/// Recursive-descent parser over a string_view, counting lines as it goes.
class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  Value document() {
    skip_space();
    Value root = value(0);
    skip_space();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}' after the end of the document", peek_char()));
    return root;
  }

 private:
  static constexpr int kMaxDepth = 256;

  [[noreturn]] void fail(const std::string& detail) const { throw InputError(file_, line_, "", detail); }

  std::string peek_char() const {
    if (pos_ >= text_.size()) return "end of file";
    return std::string(1, text_[pos_]);
  }

  void skip_space() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (const std::size_t end = line_end_at(text_, pos_)) {
        ++line_;
        pos_ += end;
      } else if (c == ' ' || c == '\t') {
        ++pos_;
      } else {
        return;
      }
    }
  }

  void expect(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) {
      fail(fmt::format("JSON syntax: expected '{}', got {}", c,
                       pos_ >= text_.size() ? std::string("end of file") : "'" + peek_char() + "'"));
    }
    ++pos_;
  }

  bool consume_literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("JSON nesting deeper than 256 levels");
    if (pos_ >= text_.size()) fail("JSON syntax: unexpected end of file, expected a value");
    Value out;
    out.line_ = line_;
    char c = text_[pos_];
    if (c == '{') {
      out.type_ = Type::kObject;
      parse_object(out, depth);
    } else if (c == '[') {
      out.type_ = Type::kArray;
      parse_array(out, depth);
    } else if (c == '"') {
      out.type_ = Type::kString;
      out.text_ = parse_string();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      out.type_ = Type::kNumber;
      out.text_ = parse_number();
    } else if (consume_literal("true")) {
      out.type_ = Type::kBool;
      out.bool_ = true;
    } else if (consume_literal("false")) {
      out.type_ = Type::kBool;
    } else if (consume_literal("null")) {
      out.type_ = Type::kNull;
    } else {
      fail(fmt::format("JSON syntax: unexpected '{}', expected a value", peek_char()));
    }
    return out;
  }

  void parse_object(Value& out, int depth) {
    expect('{');
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return;
    }
    std::unordered_set<std::string> seen;
    while (true) {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("JSON syntax: expected a string key");
      int key_line = line_;
      std::string key = parse_string(true);
      if (!seen.insert(key).second) {
        const std::string parent = current_path();
        throw InputError(file_, key_line, parent.empty() ? key : fmt::format("{}.{}", parent, key),
                         "the key appears twice in the same object");
      }
      skip_space();
      expect(':');
      skip_space();
      path_.push_back({&key, 0});
      Value member = value(depth + 1);
      path_.pop_back();
      out.members_.emplace_back(std::move(key), std::move(member));
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      expect('}');
      return;
    }
  }

  void parse_array(Value& out, int depth) {
    expect('[');
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return;
    }
    while (true) {
      skip_space();
      path_.push_back({nullptr, out.items_.size()});
      out.items_.push_back(value(depth + 1));
      path_.pop_back();
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      expect(']');
      return;
    }
  }

  std::string parse_number() {
    std::size_t start = pos_;
    auto digits = [&] {
      std::size_t begin = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - begin;
    };
    if (text_[pos_] == '-') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      fail("JSON syntax: malformed number");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) fail("JSON syntax: malformed number (no digits after '.')");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) fail("JSON syntax: malformed number (no digits in the exponent)");
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::uint32_t hex4() {
    if (pos_ + 4 > text_.size()) fail("JSON syntax: truncated \\u escape");
    std::uint32_t cp = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') {
        cp |= static_cast<std::uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        cp |= static_cast<std::uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        cp |= static_cast<std::uint32_t>(c - 'A' + 10);
      } else {
        fail("JSON syntax: bad hex digit in \\u escape");
      }
    }
    return cp;
  }

  /// The field path of the value being parsed, as ObjectReader spells it ("ranks[0].ops[3].name").
  std::string current_path() const {
    std::string path;
    for (const PathPart& part : path_) {
      if (part.key == nullptr) {
        path += fmt::format("[{}]", part.index);
      } else {
        if (!path.empty()) path += '.';
        path += *part.key;
      }
    }
    return path;
  }

  /// Strings must be UTF-8 (RFC 8259), and so must what a lone "\uDC00" decodes to.
  void check_string(const std::string& text, bool is_key) const {
    if (!invalid_utf8_at(text)) return;  // the common case: no path to build
    std::string field = current_path();
    if (is_key) field = field.empty() ? "(a key)" : field + " (a key)";
    check_utf8(text, SourceRef{file_, line_, field.empty() ? "(document)" : field});
  }

  std::string parse_string(bool is_key = false) {
    expect('"');
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("JSON syntax: unterminated string");
      char c = text_[pos_++];
      if (c == '"') {
        check_string(out, is_key);
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        if (c == '\n' || c == '\r') fail("JSON syntax: unterminated string (newline inside a string)");
        fail("JSON syntax: control character inside a string");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("JSON syntax: unterminated string");
      char e = text_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (text_.substr(pos_, 2) != "\\u") fail("JSON syntax: lone high surrogate in \\u escape");
            pos_ += 2;
            std::uint32_t low = hex4();
            if (low < 0xDC00 || low >= 0xE000) fail("JSON syntax: bad low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          fail(fmt::format("JSON syntax: unknown escape '\\{}'", e));
      }
    }
  }

  /// One step of the path to the value being parsed: a member key, or an array index.
  struct PathPart {
    const std::string* key;
    std::size_t index;
  };

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::vector<PathPart> path_;
};

Value parse(std::string_view text, const std::string& file) { return Parser(text, file).document(); }

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, 0, "", "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", fmt::format("cannot open file: {}", std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "", "read error");
  note_input_file(path);  // an output must not replace it
  return buffer.str();
}

Value parse_file(const std::string& path) { return parse(read_file(path), path); }

}  // namespace ccsim::json
