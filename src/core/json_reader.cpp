#include "core/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "core/parse.hpp"
#include "core/spelling.hpp"

namespace ccsim::json {
namespace {

/// Doubles below this are integers exactly (2^53 is 9.007e15), so a value written as "1e6"
/// or "16.0" converts without loss.
constexpr double kExactIntegerLimit = 9.0e15;

}  // namespace

std::string got(const Value& value) {
  if (value.is_string()) return fmt::format("got \"{}\"", value.describe());
  if (value.is_number()) return fmt::format("got \"{}\"", value.text());
  return fmt::format("got {}", value.describe());
}

std::string item_path(const std::string& array_path, std::size_t index) {
  return fmt::format("{}[{}]", array_path, index);
}

double as_number(const Value& value, const SourceRef& where) {
  if (!value.is_number()) where.fail("expected a number, " + got(value));
  auto parsed = parse_double(value.text());
  if (!parsed) where.fail("expected a finite number, " + got(value));
  return *parsed;
}

namespace {

/// The integer a number holds, also when written with an exponent or ".0" ("1e6", "16.0");
/// nullopt for a fraction or a value beyond what a double holds exactly. The range is checked
/// on the double before it is converted: a double-to-integer conversion of a value out of
/// range is undefined behaviour.
std::optional<std::int64_t> integral(const Value& value) {
  if (auto parsed = parse_int(value.text())) return *parsed;
  auto as_double = parse_double(value.text());
  if (as_double && std::abs(*as_double) < kExactIntegerLimit && *as_double == std::trunc(*as_double)) {
    return static_cast<std::int64_t>(*as_double);
  }
  return std::nullopt;
}

}  // namespace

std::int64_t as_integer(const Value& value, const SourceRef& where) {
  if (!value.is_number()) where.fail("expected an integer, " + got(value));
  if (auto result = integral(value)) return *result;
  where.fail("expected an integer, " + got(value));
}

std::int64_t as_integer_in(const Value& value, const SourceRef& where, std::int64_t min, std::int64_t max) {
  auto fail = [&] { where.fail(fmt::format("expected an integer from {} to {}, {}", min, max, got(value))); };
  if (!value.is_number()) where.fail("expected an integer, " + got(value));
  const std::optional<std::int64_t> result = integral(value);
  if (!result || *result < min || *result > max) fail();
  return *result;
}

std::string describe_range(double min, double max, bool min_exclusive) {
  if (min == 0 && min_exclusive) return fmt::format("a positive number of at most {:g}", max);
  if (min == 0) return fmt::format("a non-negative number of at most {:g}", max);
  if (min_exclusive) return fmt::format("a number above {:g} and at most {:g}", min, max);
  return fmt::format("a number from {:g} to {:g}", min, max);
}

double as_number_in(const Value& value, const SourceRef& where, double min, double max, bool min_exclusive) {
  const double x = as_number(value, where);  // the type and finiteness first, with their own words
  if (x > max || x < min || (min_exclusive && x == min)) {
    where.fail(fmt::format("expected {}, {}", describe_range(min, max, min_exclusive), got(value)));
  }
  return x;
}

std::uint64_t as_non_negative_integer(const Value& value, const SourceRef& where) {
  if (!value.is_number()) where.fail("expected a non-negative integer, " + got(value));
  if (auto parsed = parse_uint(value.text())) return *parsed;
  auto as_double = parse_double(value.text());  // range before conversion, as in as_integer
  if (as_double && *as_double >= 0 && *as_double < kExactIntegerLimit && *as_double == std::trunc(*as_double)) {
    return static_cast<std::uint64_t>(*as_double);
  }
  where.fail("expected a non-negative integer, " + got(value));
}

std::uint64_t as_non_negative_integer_at_most(const Value& value, const SourceRef& where, std::uint64_t max) {
  auto fail = [&] { where.fail(fmt::format("expected an integer from 0 to {}, {}", max, got(value))); };
  if (!value.is_number()) where.fail("expected a non-negative integer, " + got(value));
  std::uint64_t result = 0;
  if (auto parsed = parse_uint(value.text())) {
    result = *parsed;
  } else {
    auto as_double = parse_double(value.text());
    if (!as_double || !(*as_double >= 0 && *as_double < kExactIntegerLimit) || *as_double != std::trunc(*as_double))
      fail();
    result = static_cast<std::uint64_t>(*as_double);
  }
  if (result > max) fail();
  return result;
}

const std::string& as_string(const Value& value, const SourceRef& where) {
  if (!value.is_string()) where.fail("expected a string, " + got(value));
  return value.text();
}

namespace {

// The checks that only Field uses, on a bare value as the as_* family: Field::checked raises
// their errors again at the member.

double as_non_negative(const Value& value, const SourceRef& where) {
  const double x = as_number(value, where);
  if (x < 0) where.fail("expected a non-negative number, " + got(value));
  return x;
}

double as_positive(const Value& value, const SourceRef& where) {
  const double x = as_number(value, where);
  if (!(x > 0)) where.fail("expected a positive number, " + got(value));
  return x;
}

std::int64_t as_positive_integer(const Value& value, const SourceRef& where) {
  // Integral values written with an exponent or ".0" count, as for every integer (integral).
  const std::optional<std::int64_t> x = value.is_number() ? integral(value) : std::nullopt;
  if (!x || *x <= 0) where.fail("expected a positive integer, " + got(value));
  return *x;
}

bool as_boolean(const Value& value, const SourceRef& where) {
  if (!value.is_bool()) where.fail("expected true or false, " + got(value));
  return value.boolean();
}

const Value* as_array(const Value& value, const SourceRef& where) {
  if (!value.is_array()) where.fail("expected an array, " + got(value));
  return &value;
}

const Value* as_object(const Value& value, const SourceRef& where) {
  if (!value.is_object()) where.fail("expected an object, " + got(value));
  return &value;
}

/// An array or an object as Field::Node: the value of a required member, the pointer (nullptr
/// for none) of an optional one.
const Value& as_node(const Value* found) { return *found; }
const Value* as_node(const std::optional<const Value*>& found) { return found.value_or(nullptr); }

const std::string& as_choice(const Value& value, const SourceRef& where,
                             std::initializer_list<std::string_view> choices) {
  const std::string& text = as_string(value, where);
  for (std::string_view c : choices) {
    if (c == text) return text;
  }
  where.fail(fmt::format("expected one of {}, got \"{}\"{}", fmt::join(choices, ", "), text,
                         did_you_mean(text, std::vector<std::string>(choices.begin(), choices.end()))));
}

}  // namespace

template <Presence kPresence>
template <class T, class Check>
auto Field<kPresence>::checked(Check&& check) const -> Result<T> {
  if constexpr (kPresence == Presence::kOptional) {
    if (value_ == nullptr) return std::nullopt;
  }
  // The location (a copy of the file name and the field path) only on error: every field read
  // paid for it, seconds for a large trace.
  static const SourceRef kUnplaced;
  try {
    return check(*value_, kUnplaced);
  } catch (const InputError& e) {
    reader_->at(key_).fail(e.detail());
  }
}

template <Presence kPresence>
auto Field<kPresence>::string() const -> Result<std::string> {
  return checked<std::string>(as_string);
}

template <Presence kPresence>
auto Field<kPresence>::choice(std::initializer_list<std::string_view> choices) const -> Result<std::string> {
  return checked<std::string>([&](const Value& v, const SourceRef& where) { return as_choice(v, where, choices); });
}

template <Presence kPresence>
auto Field<kPresence>::number() const -> Result<double> {
  return checked<double>(as_number);
}

template <Presence kPresence>
auto Field<kPresence>::non_negative() const -> Result<double> {
  return checked<double>(as_non_negative);
}

template <Presence kPresence>
auto Field<kPresence>::positive() const -> Result<double> {
  return checked<double>(as_positive);
}

template <Presence kPresence>
auto Field<kPresence>::number_in(double min, double max, bool min_exclusive) const -> Result<double> {
  return checked<double>(
      [&](const Value& v, const SourceRef& where) { return as_number_in(v, where, min, max, min_exclusive); });
}

template <Presence kPresence>
auto Field<kPresence>::integer() const -> Result<std::int64_t> {
  return checked<std::int64_t>(as_integer);
}

template <Presence kPresence>
auto Field<kPresence>::positive_integer() const -> Result<std::int64_t> {
  return checked<std::int64_t>(as_positive_integer);
}

template <Presence kPresence>
auto Field<kPresence>::integer_in(std::int64_t min, std::int64_t max) const -> Result<std::int64_t> {
  return checked<std::int64_t>(
      [&](const Value& v, const SourceRef& where) { return as_integer_in(v, where, min, max); });
}

template <Presence kPresence>
auto Field<kPresence>::non_negative_integer() const -> Result<std::uint64_t> {
  return checked<std::uint64_t>(as_non_negative_integer);
}

template <Presence kPresence>
auto Field<kPresence>::non_negative_integer_at_most(std::uint64_t max) const -> Result<std::uint64_t> {
  return checked<std::uint64_t>(
      [&](const Value& v, const SourceRef& where) { return as_non_negative_integer_at_most(v, where, max); });
}

template <Presence kPresence>
auto Field<kPresence>::boolean() const -> Result<bool> {
  return checked<bool>(as_boolean);
}

template <Presence kPresence>
auto Field<kPresence>::array() const -> Node {
  return as_node(checked<const Value*>(as_array));
}

template <Presence kPresence>
auto Field<kPresence>::object() const -> Node {
  return as_node(checked<const Value*>(as_object));
}

template class Field<Presence::kRequired>;
template class Field<Presence::kOptional>;

ObjectReader::ObjectReader(const Value& value, std::string file, std::string path)
    : value_(value), file_(std::move(file)), path_(std::move(path)) {
  known_.reserve(8);  // one allocation for the keys of a typical object, not one per doubling
  if (!value_.is_object()) {
    SourceRef{file_, value_.line(), path_.empty() ? "(document)" : path_}.fail("expected an object, " + got(value_));
  }
}

std::string ObjectReader::member_path(std::string_view key) const {
  if (path_.empty()) return std::string(key);
  return fmt::format("{}.{}", path_, key);
}

SourceRef ObjectReader::at(std::string_view key) const {
  const Value* member = value_.find(key);
  return SourceRef{file_, member ? member->line() : value_.line(), member_path(key)};
}

SourceRef ObjectReader::here() const { return SourceRef{file_, value_.line(), path_}; }

void ObjectReader::note(std::string_view key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
}

void ObjectReader::allow(std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) note(key);
}

bool ObjectReader::has(std::string_view key) {
  note(key);
  return value_.find(key) != nullptr;
}

RequiredField ObjectReader::required(std::string_view key) {
  note(key);
  const Value* member = value_.find(key);
  if (member == nullptr) missing(key);
  return RequiredField(*this, key, member);
}

void ObjectReader::missing(std::string_view key) const {
  // A misspelt required key reads as absent here, before finish() could call it unknown: name
  // the member that is most likely it, at its line.
  std::vector<std::string> unknown;
  for (const Value::Member& member : value_.members()) {
    if (std::find(known_.begin(), known_.end(), member.first) == known_.end()) unknown.push_back(member.first);
  }
  if (const std::optional<std::string> typo = closest_spelling(key, unknown)) {
    SourceRef{file_, value_.find(*typo)->line(), member_path(key)}.fail(
        fmt::format("missing (required); the object has \"{}\": did you mean {}?", *typo, key));
  }
  SourceRef{file_, value_.line(), member_path(key)}.fail("missing (required)");
}

OptionalField ObjectReader::optional(std::string_view key) {
  note(key);
  const Value* member = value_.find(key);
  return OptionalField(*this, key, member != nullptr && member->is_null() ? nullptr : member);
}

ObjectReader ObjectReader::child(std::string_view key) {
  return ObjectReader(required(key).object(), file_, member_path(key));
}

void ObjectReader::finish() const {
  for (const Value::Member& member : value_.members()) {
    if (std::find(known_.begin(), known_.end(), member.first) != known_.end()) continue;
    std::vector<std::string> sorted = known_;
    std::sort(sorted.begin(), sorted.end());
    throw UnknownNameError(file_, member.second.line(), member_path(member.first),
                           fmt::format("unknown key; {}valid keys here: {}",
                                       did_you_mean(member.first, sorted, "", " "), fmt::join(sorted, ", ")));
  }
}

}  // namespace ccsim::json
