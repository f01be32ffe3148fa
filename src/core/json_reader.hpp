#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/input_error.hpp"
#include "core/json.hpp"

namespace ccsim::json {

class ObjectReader;

/// What absence of a member means: an error (a required key), or none (an optional key, for
/// which null reads as absent too).
enum class Presence : std::uint8_t { kRequired, kOptional };

/// One member of an object, as ObjectReader::required or ObjectReader::optional looked it up,
/// and the checks of its value: its type and range, in the words that its error quotes
/// ("expected a positive integer, got \"0\""). A check returns the value, or for an optional
/// member a std::optional of it, empty where the member is absent or null; a value that fails
/// is an InputError at the member's file, line and field path. array() and object() check the
/// type only and return the Value itself, to read further.
///
/// A Field refers to its reader and to its key as a string_view does: use it while both live,
/// as readers do within the statement that looks it up.
template <Presence kPresence>
class Field {
 public:
  /// What a check returns: the value, or for an optional member the value if there is one.
  template <class T>
  using Result = std::conditional_t<kPresence == Presence::kRequired, T, std::optional<T>>;

  /// An optional member: whether it is there and not null.
  explicit operator bool() const requires(kPresence == Presence::kOptional) { return value_ != nullptr; }
  /// The member's value unchecked, for a check of its own (an optional member: once tested).
  const Value& operator*() const { return *value_; }
  const Value* operator->() const { return value_; }

  Result<std::string> string() const;
  /// One of `choices`; anything else is an error that lists them (and the closest).
  Result<std::string> choice(std::initializer_list<std::string_view> choices) const;

  Result<double> number() const;
  Result<double> non_negative() const;
  Result<double> positive() const;
  /// A number in [min, max] (min excluded when `min_exclusive`): every model parameter has
  /// finite, physically meaningful limits, and the message quotes them.
  Result<double> number_in(double min, double max, bool min_exclusive = false) const;

  Result<std::int64_t> integer() const;
  Result<std::int64_t> positive_integer() const;
  /// An integer in [min, max]: every integer field has a range, checked before anything
  /// narrows it (a root of 4294967297 must not become rank 1).
  Result<std::int64_t> integer_in(std::int64_t min, std::int64_t max) const;
  Result<std::uint64_t> non_negative_integer() const;
  Result<std::uint64_t> non_negative_integer_at_most(std::uint64_t max) const;

  Result<bool> boolean() const;

  /// An array or an object, unread: the value, or for an optional member a pointer to it
  /// (nullptr where there is none).
  using Node = std::conditional_t<kPresence == Presence::kRequired, const Value&, const Value*>;
  Node array() const;
  Node object() const;

 private:
  friend class ObjectReader;
  Field(const ObjectReader& reader, std::string_view key, const Value* value)
      : reader_(&reader), key_(key), value_(value) {}

  /// Runs `check` on the value (not at all for an absent optional member) without building the
  /// member's location, and raises its error again, word for word, at the member.
  template <class T, class Check>
  Result<T> checked(Check&& check) const;

  const ObjectReader* reader_;
  std::string_view key_;
  const Value* value_;  ///< nullptr: an optional member that is absent or null
};

using RequiredField = Field<Presence::kRequired>;
using OptionalField = Field<Presence::kOptional>;

/// Strict, typed access to one JSON object of a data file. Every key read (required or
/// optional) becomes a known key; finish() rejects any other key and lists the known ones,
/// so a misspelt key is never ignored. Errors name file, line and the full field path:
///   platforms/x.json:12: field 'network.latency_s': expected a non-negative number, got "-1"
/// and offer "did you mean X?" where a name is close to a valid one: an unknown key, a value
/// that is none of choice()'s, and a missing required key beside a not-yet-known member
/// spelt like it ("field 'node.nics': missing (required); the object has "nic": did you
/// mean nics?", at the member's line).
///
/// A reader reads as the schema it checks, each member in two words: the lookup, this class's,
/// says whether the key must be there; the check, of the Field that the lookup returns, says
/// what its value must be:
///   spec.nodes = r.required("nodes").positive_integer();
///   spec.ratio = r.optional("ratio").number_in(0, 1).value_or(1);
/// The two combine freely: every check exists for both kinds of member and is written once,
/// so no reader works around a pairing that is missing. at() and here() are where a reader's
/// own checks fail; the as_* functions below check array items and other bare values.
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
  /// Field path of a member: "a.b" + "c" -> "a.b.c".
  std::string member_path(std::string_view key) const;

  /// Whether member `key` is there, null included.
  bool has(std::string_view key);
  /// Member `key`, which must be there (null included): its absence is the error.
  RequiredField required(std::string_view key);
  /// Member `key`, which may be absent; null reads as absent.
  OptionalField optional(std::string_view key);
  /// A nested object reader for member `key`, a required object.
  ObjectReader child(std::string_view key);

  /// Marks keys as known without reading them (documented free-form members).
  void allow(std::initializer_list<std::string_view> keys);

  /// Rejects unknown keys (UnknownNameError). Call once all keys have been read.
  void finish() const;

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
