#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/input_error.hpp"
#include "core/json.hpp"

namespace ccsim::json {

/// Strict, typed access to one JSON object of a data file. Every key read (required or
/// optional) becomes a known key; finish() rejects any other key and lists the known ones,
/// so a misspelt key is never ignored. Errors name file, line and the full field path:
///   platforms/x.json:12: field 'network.latency_s': expected a non-negative number, got "-1"
class ObjectReader {
 public:
  /// Throws unless `value` is an object. `path` is the field path of the object itself
  /// ("" for the document root).
  ObjectReader(const Value& value, std::string file, std::string path);

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  int line() const { return value_.line(); }
  /// Where the member `key` is (or the object itself, when the member is absent).
  SourceRef at(std::string_view key) const;
  /// Where the object itself is.
  SourceRef here() const;

  bool has(std::string_view key);
  const Value& required(std::string_view key);
  const Value* optional(std::string_view key);

  std::string string(std::string_view key);
  std::optional<std::string> optional_string(std::string_view key);
  /// One of `choices`; anything else is an error that lists them.
  std::string choice(std::string_view key, std::initializer_list<std::string_view> choices);

  double number(std::string_view key);
  std::optional<double> optional_number(std::string_view key);
  double non_negative(std::string_view key);
  double positive(std::string_view key);
  std::optional<double> optional_non_negative(std::string_view key);
  std::optional<double> optional_positive(std::string_view key);
  /// A number in [min, max], for limits that keep what a model computes finite and
  /// meaningful: "expected a number from 1000 to 1e+15, got \"1e-300\"".
  double number_in(std::string_view key, double min, double max);
  std::optional<double> optional_number_in(std::string_view key, double min, double max);

  std::int64_t integer(std::string_view key);
  std::uint64_t non_negative_integer(std::string_view key);
  std::optional<std::uint64_t> optional_non_negative_integer(std::string_view key);
  std::int64_t positive_integer(std::string_view key);

  bool boolean(std::string_view key);
  std::optional<bool> optional_boolean(std::string_view key);

  const Value& array(std::string_view key);
  const Value& object(std::string_view key);

  /// A nested object reader for member `key`.
  ObjectReader child(std::string_view key);

  /// Marks keys as known without reading them (documented free-form members).
  void allow(std::initializer_list<std::string_view> keys);

  /// Rejects unknown keys. Call once all keys have been read.
  void finish() const;

  /// Field path of a member: "a.b" + "c" -> "a.b.c".
  std::string member_path(std::string_view key) const;

 private:
  const Value& value_;
  std::string file_;
  std::string path_;
  std::vector<std::string> known_;

  void note(std::string_view key);
};

/// Field path of an array element: "ranks" + 3 -> "ranks[3]".
std::string item_path(const std::string& array_path, std::size_t index);

/// Value-level checks, for array items and the like.
double as_number(const Value& value, const SourceRef& where);
std::int64_t as_integer(const Value& value, const SourceRef& where);
std::uint64_t as_non_negative_integer(const Value& value, const SourceRef& where);
const std::string& as_string(const Value& value, const SourceRef& where);

/// Renders "got \"x\"" the way every message quotes a value.
std::string got(const Value& value);

}  // namespace ccsim::json
