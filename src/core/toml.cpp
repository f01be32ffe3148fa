#include "core/toml.hpp"
#include "core/utf8.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <vector>

#include <cpptoml.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/text_lines.hpp"

namespace ccsim::toml {
namespace {

/// The line of every key, table header and array-of-tables element of a (valid) TOML text, by
/// field path ("grid", "grid.set.inter.bandwidth", "scenarios[1]", "scenarios[1].trace").
/// cpptoml keeps no positions: this scan finds them. It runs after cpptoml has accepted the
/// text, so it only needs to tell keys from values, strings and comments.
class LineMap {
 public:
  explicit LineMap(std::string_view text) : text_(text) { scan(); }

  /// The lines at which `path` is given, as a key or a table header, in file order (empty when
  /// never): a quoted key holding a dot and a dotted key can give the same path twice.
  const std::vector<int>& given(const std::string& path) const {
    static const std::vector<int> kNone;
    auto it = given_.find(path);
    return it == given_.end() ? kNone : it->second;
  }

  /// The line of `path`, or of its closest ancestor that has one (1 when none).
  int line(std::string path) const {
    while (true) {
      auto it = lines_.find(path);
      if (it != lines_.end()) return it->second;
      const std::size_t cut = path.find_last_of(".[");
      if (cut == std::string::npos) return 1;
      path.resize(cut);
    }
  }

 private:
  void scan() {
    std::string prefix;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '#') {
        skip_comment();
      } else if (c == '[') {
        const bool array = pos_ + 1 < text_.size() && text_[pos_ + 1] == '[';
        pos_ += array ? 2 : 1;
        const std::string name = join(read_key(']'));
        if (array) {
          note(name);
          prefix = fmt::format("{}[{}]", name, counts_[name]++);
          lines_[prefix] = line_;
        } else {
          prefix = name;
          note(name);
          given_[name].push_back(line_);
        }
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;  // the closing brackets, a comment
      } else {
        std::vector<std::string> parts = read_key('=');
        std::string path = prefix;
        for (const std::string& part : parts) {
          path += (path.empty() ? "" : ".") + part;
          lines_.emplace(path, line_);
        }
        given_[path].push_back(line_);
        ++pos_;  // '='
        skip_value();
      }
    }
  }

  /// Records `path` and its ancestors at the current line, where they have no line yet.
  void note(const std::string& path) {
    for (std::size_t i = 0; i <= path.size(); ++i) {
      if (i == path.size() || path[i] == '.') lines_.emplace(path.substr(0, i), line_);
    }
  }

  static std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& part : parts) out += (out.empty() ? "" : ".") + part;
    return out;
  }

  /// A dotted key up to `end` ('=' or ']'), its parts unquoted.
  std::vector<std::string> read_key(char end) {
    std::vector<std::string> parts;
    std::string part;
    while (pos_ < text_.size() && text_[pos_] != end && text_[pos_] != '\n') {
      const char c = text_[pos_];
      if (c == '"' || c == '\'') {
        part += read_string();
      } else if (c == '.') {
        parts.push_back(part);
        part.clear();
        ++pos_;
      } else {
        if (c != ' ' && c != '\t') part += c;
        ++pos_;
      }
    }
    parts.push_back(part);
    return parts;
  }

  /// A quoted string at pos_ (basic, literal or multi-line), decoded enough to name a key.
  std::string read_string() {
    const char quote = text_[pos_];
    const bool multi = text_.substr(pos_, 3) == std::string(3, quote);
    pos_ += multi ? 3 : 1;
    std::string out;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (multi ? text_.substr(pos_, 3) == std::string(3, quote) : c == quote) {
        pos_ += multi ? 3 : 1;
        break;
      }
      if (c == '\\' && quote == '"' && pos_ + 1 < text_.size()) {
        out += text_[pos_ + 1];
        pos_ += 2;
        continue;
      }
      if (c == '\n') ++line_;
      out += c;
      ++pos_;
    }
    return out;
  }

  void skip_comment() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  }

  /// A value: up to the end of its line, across the lines of arrays, inline tables and strings.
  void skip_value() {
    int depth = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"' || c == '\'') {
        read_string();
      } else if (c == '#') {
        skip_comment();
      } else if (c == '\n') {
        if (depth == 0) return;
        ++line_;
        ++pos_;
      } else {
        if (c == '[' || c == '{') ++depth;
        if (c == ']' || c == '}') --depth;
        ++pos_;
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::map<std::string, int> lines_;
  std::map<std::string, int> counts_;  ///< elements of each array of tables so far
  std::map<std::string, std::vector<int>> given_;
};

/// Writes JSON text whose values sit on given lines.
class Writer {
 public:
  Writer(const LineMap& lines, const std::string& file, std::initializer_list<std::string_view> flat)
      : lines_(lines), file_(file), flat_(flat) {}

  std::string take() { return std::move(out_); }

  void table(const cpptoml::table& t, const std::string& path) {
    std::vector<std::pair<std::string, std::shared_ptr<cpptoml::base>>> members;
    const std::string last = path.substr(path.find_last_of('.') == std::string::npos ? 0 : path.find_last_of('.') + 1);
    const bool flat = std::find(flat_.begin(), flat_.end(), last) != flat_.end();
    collect(t, "", flat, members);
    refuse_duplicates(members, path);
    std::stable_sort(members.begin(), members.end(), [&](const auto& a, const auto& b) {
      return lines_.line(member(path, a.first)) < lines_.line(member(path, b.first));
    });
    out_ += '{';
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i > 0) out_ += ", ";
      const std::string child = member(path, members[i].first);
      go_to(lines_.line(child));
      out_ += nlohmann::json(members[i].first).dump() + ": ";
      value(*members[i].second, child);
    }
    out_ += '}';
  }

 private:
  static std::string member(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  /// Under a flat table, a quoted key holding a dot ("intra.latency" = 1) and a nested key
  /// (intra.latency = 2, or [grid.set.intra] latency = 2) become the same member: an InputError
  /// naming both lines, where the JSON would hold the key twice.
  void refuse_duplicates(const std::vector<std::pair<std::string, std::shared_ptr<cpptoml::base>>>& members,
                         const std::string& path) const {
    std::map<std::string_view, int> seen;
    for (const auto& [name, node] : members) {
      if (seen.emplace(name, 0).second) continue;
      const std::string field = member(path, name);
      const std::vector<int>& at = lines_.given(field);
      const int first = at.empty() ? lines_.line(field) : at.front();
      const int second = at.size() > 1 ? at[1] : first;
      throw InputError(file_, second, field,
                       fmt::format("TOML: \"{}\" is given twice, on line {} and on line {} (a quoted key holding a "
                                   "dot names the same setting as the dotted key)",
                                   field, first, second));
    }
  }

  /// The members of `t`; under a flat table, nested tables become dotted keys.
  void collect(const cpptoml::table& t, const std::string& prefix, bool flat,
               std::vector<std::pair<std::string, std::shared_ptr<cpptoml::base>>>& out) {
    for (const auto& [key, node] : t) {
      const std::string name = prefix.empty() ? key : fmt::format("{}.{}", prefix, key);
      if (flat && node->is_table()) {
        collect(*node->as_table(), name, true, out);
      } else {
        out.emplace_back(name, node);
      }
    }
  }

  void value(cpptoml::base& node, const std::string& path) {
    if (node.is_table()) {
      table(*node.as_table(), path);
    } else if (node.is_table_array()) {
      const auto& items = node.as_table_array()->get();
      out_ += '[';
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out_ += ", ";
        const std::string item = fmt::format("{}[{}]", path, i);
        go_to(lines_.line(item));
        table(*items[i], item);
      }
      out_ += ']';
    } else if (node.is_array()) {
      const auto& items = node.as_array()->get();
      out_ += '[';
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out_ += ", ";
        value(*items[i], fmt::format("{}[{}]", path, i));
      }
      out_ += ']';
    } else {
      scalar(node, path);
    }
  }

  void scalar(cpptoml::base& node, const std::string& path) {
    if (auto s = node.as<std::string>()) {
      out_ += nlohmann::json(s->get()).dump();
    } else if (auto i = node.as<std::int64_t>()) {
      out_ += std::to_string(i->get());
    } else if (auto d = node.as<double>()) {
      if (!std::isfinite(d->get())) {
        throw InputError(file_, lines_.line(path), path, fmt::format("expected a finite number, got {}", d->get()));
      }
      std::string text = fmt::format("{}", d->get());
      if (text.find_first_of(".eE") == std::string::npos) text += ".0";  // a float stays a float
      out_ += text;
    } else if (auto b = node.as<bool>()) {
      out_ += b->get() ? "true" : "false";
    } else {
      throw InputError(file_, lines_.line(path), path,
                       "expected a string, a number or a boolean, got a TOML date or time");
    }
  }

  /// Moves the output to `line` (never back: members are written in line order).
  void go_to(int line) {
    while (line_ < line) {
      out_ += '\n';
      ++line_;
    }
  }

  const LineMap& lines_;
  const std::string& file_;
  std::vector<std::string_view> flat_;
  std::string out_;
  int line_ = 1;
};

}  // namespace

std::string to_json_text(std::string_view text, const std::string& file, std::initializer_list<std::string_view> flat) {
  // A TOML document is UTF-8 (TOML 0.5, "Spec"); cpptoml does not check, and a key with an
  // invalid byte made the JSON writer below throw (found by tests/fuzz/toml_fuzz.cpp).
  if (const std::optional<std::size_t> bad = invalid_utf8_at(text)) {
    throw InputError(file, line_of(text, *bad), "",
                     fmt::format("expected UTF-8 text (a TOML document is UTF-8), got the byte 0x{:02X} at offset {}",
                                 static_cast<unsigned char>(text[*bad]), *bad));
  }
  // cpptoml and LineMap end lines at LF (a CRLF ends in one); a lone CR (an old Mac file) ends
  // a line too (core/text_lines.hpp), so it becomes an LF: same offsets, same line numbers.
  std::string lf_text(text);
  for (std::size_t i = 0; i < lf_text.size(); ++i) {
    if (lf_text[i] == '\r' && line_end_at(lf_text, i) == 1) lf_text[i] = '\n';
  }
  std::shared_ptr<cpptoml::table> root;
  try {
    std::istringstream in{lf_text};
    cpptoml::parser parser(in);
    root = parser.parse();
  } catch (const cpptoml::parse_exception& e) {
    // cpptoml's messages end in " at line N".
    static const std::regex kAtLine(R"(^(.*) at line ([0-9]+)$)");
    std::smatch m;
    const std::string message = e.what();
    if (std::regex_match(message, m, kAtLine)) {
      const std::optional<std::int64_t> line = parse_int(m[2].str());
      throw InputError(file, line && *line <= INT_MAX ? static_cast<int>(*line) : 0, "", "TOML syntax: " + m[1].str());
    }
    throw InputError(file, 0, "", "TOML syntax: " + message);
  }
  LineMap lines(lf_text);
  Writer writer(lines, file, flat);
  writer.table(*root, "");
  return writer.take() + "\n";
}

bool is_toml_path(std::string_view path) { return path.size() >= 5 && path.substr(path.size() - 5) == ".toml"; }

}  // namespace ccsim::toml
