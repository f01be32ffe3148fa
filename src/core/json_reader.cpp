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

/// Runs `check` (one of the as_* checks below) on member `key` of `reader` without building the
/// member's location (a copy of the file name and the field path): every field read paid for it,
/// seconds for a large trace. The location is built only when the check fails, and the error is
/// raised again there, word for word.
template <class Check>
decltype(auto) located(const ObjectReader& reader, std::string_view key, Check&& check) {
  static const SourceRef kUnplaced;
  try {
    return check(kUnplaced);
  } catch (const InputError& e) {
    reader.at(key).fail(e.detail());
  }
}

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

const Value& ObjectReader::required(std::string_view key) {
  note(key);
  const Value* member = value_.find(key);
  if (member == nullptr) missing(key);
  return *member;
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

const Value* ObjectReader::optional(std::string_view key) {
  note(key);
  const Value* member = value_.find(key);
  if (member != nullptr && member->is_null()) return nullptr;
  return member;
}

std::string ObjectReader::string(std::string_view key) {
  const Value& member = required(key);
  return located(*this, key, [&](const SourceRef& where) { return as_string(member, where); });
}

std::optional<std::string> ObjectReader::optional_string(std::string_view key) {
  const Value* member = optional(key);
  if (member == nullptr) return std::nullopt;
  return located(*this, key, [&](const SourceRef& where) { return as_string(*member, where); });
}

std::string ObjectReader::choice(std::string_view key, std::initializer_list<std::string_view> choices) {
  const Value& member = required(key);
  const std::string& text = located(*this, key, [&](const SourceRef& where) { return as_string(member, where); });
  for (std::string_view c : choices) {
    if (c == text) return text;
  }
  at(key).fail(fmt::format("expected one of {}, got \"{}\"{}", fmt::join(choices, ", "), text,
                           did_you_mean(text, std::vector<std::string>(choices.begin(), choices.end()))));
}

double ObjectReader::number(std::string_view key) {
  const Value& member = required(key);
  return located(*this, key, [&](const SourceRef& where) { return as_number(member, where); });
}

std::optional<double> ObjectReader::optional_number(std::string_view key) {
  const Value* member = optional(key);
  if (member == nullptr) return std::nullopt;
  return located(*this, key, [&](const SourceRef& where) { return as_number(*member, where); });
}

double ObjectReader::non_negative(std::string_view key) {
  const Value& member = required(key);
  double value = located(*this, key, [&](const SourceRef& where) { return as_number(member, where); });
  if (value < 0) at(key).fail("expected a non-negative number, " + got(member));
  return value;
}

double ObjectReader::positive(std::string_view key) {
  const Value& member = required(key);
  double value = located(*this, key, [&](const SourceRef& where) { return as_number(member, where); });
  if (!(value > 0)) at(key).fail("expected a positive number, " + got(member));
  return value;
}

std::optional<double> ObjectReader::optional_non_negative(std::string_view key) {
  if (optional(key) == nullptr) return std::nullopt;
  return non_negative(key);
}

std::optional<double> ObjectReader::optional_positive(std::string_view key) {
  if (optional(key) == nullptr) return std::nullopt;
  return positive(key);
}

std::int64_t ObjectReader::integer(std::string_view key) {
  const Value& member = required(key);
  return located(*this, key, [&](const SourceRef& where) { return as_integer(member, where); });
}

std::int64_t ObjectReader::integer_in(std::string_view key, std::int64_t min, std::int64_t max) {
  const Value& member = required(key);
  return located(*this, key, [&](const SourceRef& where) { return as_integer_in(member, where, min, max); });
}

std::optional<std::int64_t> ObjectReader::optional_integer_in(std::string_view key, std::int64_t min,
                                                              std::int64_t max) {
  const Value* member = optional(key);
  if (member == nullptr) return std::nullopt;
  return located(*this, key, [&](const SourceRef& where) { return as_integer_in(*member, where, min, max); });
}

std::uint64_t ObjectReader::non_negative_integer_at_most(std::string_view key, std::uint64_t max) {
  const Value& member = required(key);
  return located(*this, key,
                 [&](const SourceRef& where) { return as_non_negative_integer_at_most(member, where, max); });
}

std::optional<std::uint64_t> ObjectReader::optional_non_negative_integer_at_most(std::string_view key,
                                                                                 std::uint64_t max) {
  const Value* member = optional(key);
  if (member == nullptr) return std::nullopt;
  return located(*this, key,
                 [&](const SourceRef& where) { return as_non_negative_integer_at_most(*member, where, max); });
}

double ObjectReader::number_in(std::string_view key, double min, double max, bool min_exclusive) {
  const Value& member = required(key);
  return located(*this, key,
                 [&](const SourceRef& where) { return as_number_in(member, where, min, max, min_exclusive); });
}

std::optional<double> ObjectReader::optional_number_in(std::string_view key, double min, double max,
                                                       bool min_exclusive) {
  const Value* member = optional(key);
  if (member == nullptr) return std::nullopt;
  return located(*this, key,
                 [&](const SourceRef& where) { return as_number_in(*member, where, min, max, min_exclusive); });
}

std::uint64_t ObjectReader::non_negative_integer(std::string_view key) {
  const Value& member = required(key);
  return located(*this, key, [&](const SourceRef& where) { return as_non_negative_integer(member, where); });
}

std::optional<std::uint64_t> ObjectReader::optional_non_negative_integer(std::string_view key) {
  const Value* member = optional(key);
  if (member == nullptr) return std::nullopt;
  return located(*this, key, [&](const SourceRef& where) { return as_non_negative_integer(*member, where); });
}

std::int64_t ObjectReader::positive_integer(std::string_view key) {
  const Value& member = required(key);
  // Integral values written with an exponent or ".0" count, as for every integer (integral).
  const std::optional<std::int64_t> value = member.is_number() ? integral(member) : std::nullopt;
  if (!value || *value <= 0) at(key).fail("expected a positive integer, " + got(member));
  return *value;
}

bool ObjectReader::boolean(std::string_view key) {
  const Value& member = required(key);
  if (!member.is_bool()) at(key).fail("expected true or false, " + got(member));
  return member.boolean();
}

std::optional<bool> ObjectReader::optional_boolean(std::string_view key) {
  if (optional(key) == nullptr) return std::nullopt;
  return boolean(key);
}

const Value& ObjectReader::array(std::string_view key) {
  const Value& member = required(key);
  if (!member.is_array()) at(key).fail("expected an array, " + got(member));
  return member;
}

const Value& ObjectReader::object(std::string_view key) {
  const Value& member = required(key);
  if (!member.is_object()) at(key).fail("expected an object, " + got(member));
  return member;
}

ObjectReader ObjectReader::child(std::string_view key) { return ObjectReader(object(key), file_, member_path(key)); }

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
