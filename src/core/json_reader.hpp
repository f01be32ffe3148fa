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
/// and offer "did you mean X?" where a name is close to a valid one: an unknown key, a value
/// that is none of choice()'s, and a missing required key beside a not-yet-known member
/// spelt like it ("field 'node.nics': missing (required); the object has "nic": did you
/// mean nics?", at the member's line).
///
/// Its many methods are one concept, the schema of an object read key by key: each getter is
/// one member's lookup (required: absence is an error; optional_*: absent or null is nullopt)
/// followed by one check of the as_* family below, whose words the message quotes ("expected
/// a positive integer"), so that a reader reads as the schema it checks
/// (`positive_integer("nodes")`, `optional_number_in("ratio", 0, 1)`). A generic
/// `get<Check>(key)` would have as many checks behind fewer names, at longer call sites, and
/// the pieces it would be built from are already separate: has/required/optional (the
/// lookup), as_* (the checks of a bare value, also used for array items), at/here (where).
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
  /// One of `choices`; anything else is an error that lists them (and the closest).
  std::string choice(std::string_view key, std::initializer_list<std::string_view> choices);

  double number(std::string_view key);
  std::optional<double> optional_number(std::string_view key);
  double non_negative(std::string_view key);
  double positive(std::string_view key);
  std::optional<double> optional_non_negative(std::string_view key);
  std::optional<double> optional_positive(std::string_view key);

  std::int64_t integer(std::string_view key);
  std::uint64_t non_negative_integer(std::string_view key);
  std::optional<std::uint64_t> optional_non_negative_integer(std::string_view key);
  std::int64_t positive_integer(std::string_view key);
  /// Integers in [min, max]: every integer field has a range, checked before anything
  /// narrows it (a root of 4294967297 must not become rank 1).
  std::int64_t integer_in(std::string_view key, std::int64_t min, std::int64_t max);
  std::optional<std::int64_t> optional_integer_in(std::string_view key, std::int64_t min, std::int64_t max);
  std::uint64_t non_negative_integer_at_most(std::string_view key, std::uint64_t max);
  std::optional<std::uint64_t> optional_non_negative_integer_at_most(std::string_view key, std::uint64_t max);
  /// Numbers in [min, max] (min excluded when `min_exclusive`): every model parameter has
  /// finite, physically meaningful limits, and the message quotes them.
  double number_in(std::string_view key, double min, double max, bool min_exclusive = false);
  std::optional<double> optional_number_in(std::string_view key, double min, double max, bool min_exclusive = false);

  bool boolean(std::string_view key);
  std::optional<bool> optional_boolean(std::string_view key);

  const Value& array(std::string_view key);
  const Value& object(std::string_view key);

  /// A nested object reader for member `key`.
  ObjectReader child(std::string_view key);

  /// Marks keys as known without reading them (documented free-form members).
  void allow(std::initializer_list<std::string_view> keys);

  /// Rejects unknown keys (UnknownNameError). Call once all keys have been read.
  void finish() const;

  /// Field path of a member: "a.b" + "c" -> "a.b.c".
  std::string member_path(std::string_view key) const;

 private:
  const Value& value_;
  std::string file_;
  std::string path_;
  std::vector<std::string> known_;

  void note(std::string_view key);
  /// Throws the error of required key `key` being absent.
  [[noreturn]] void missing(std::string_view key) const;
};

/// Field path of an array element: "ranks" + 3 -> "ranks[3]".
std::string item_path(const std::string& array_path, std::size_t index);

/// Value-level checks, for array items and the like.
double as_number(const Value& value, const SourceRef& where);
std::int64_t as_integer(const Value& value, const SourceRef& where);
std::uint64_t as_non_negative_integer(const Value& value, const SourceRef& where);
std::int64_t as_integer_in(const Value& value, const SourceRef& where, std::int64_t min, std::int64_t max);
std::uint64_t as_non_negative_integer_at_most(const Value& value, const SourceRef& where, std::uint64_t max);
double as_number_in(const Value& value, const SourceRef& where, double min, double max, bool min_exclusive = false);

/// "a positive number of at most 1e+15", "a number from 0.1 to 1e+06": the words of the
/// range checks above, for messages about ranges checked elsewhere (command-line values).
std::string describe_range(double min, double max, bool min_exclusive);
const std::string& as_string(const Value& value, const SourceRef& where);

/// Renders "got \"x\"" the way every message quotes a value.
std::string got(const Value& value);

}  // namespace ccsim::json
