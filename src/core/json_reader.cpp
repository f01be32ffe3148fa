#include "core/json_reader.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/parse.hpp"

namespace ccsim::json {

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

std::int64_t as_integer(const Value& value, const SourceRef& where) {
  if (!value.is_number()) where.fail("expected an integer, " + got(value));
  if (auto parsed = parse_int(value.text())) return *parsed;
  // Accept integral values written with an exponent or ".0" ("1e6", "16.0").
  auto as_double = parse_double(value.text());
  // The range check comes first: converting a double out of int64's range is undefined.
  if (as_double && std::abs(*as_double) < 9.0e15 &&
      *as_double == static_cast<double>(static_cast<std::int64_t>(*as_double))) {
    return static_cast<std::int64_t>(*as_double);
  }
  where.fail("expected an integer, " + got(value));
}

std::uint64_t as_non_negative_integer(const Value& value, const SourceRef& where) {
  if (!value.is_number()) where.fail("expected a non-negative integer, " + got(value));
  if (auto parsed = parse_uint(value.text())) return *parsed;
  auto as_double = parse_double(value.text());
  if (as_double && *as_double >= 0 && *as_double < 9.0e15 &&
      *as_double == static_cast<double>(static_cast<std::uint64_t>(*as_double))) {
    return static_cast<std::uint64_t>(*as_double);
  }
  where.fail("expected a non-negative integer, " + got(value));
}

const std::string& as_string(const Value& value, const SourceRef& where) {
  if (!value.is_string()) where.fail("expected a string, " + got(value));
  return value.text();
}

ObjectReader::ObjectReader(const Value& value, std::string file, std::string path)
    : value_(value), file_(std::move(file)), path_(std::move(path)) {
  if (!value_.is_object()) {
    SourceRef{file_, value_.line(), path_.empty() ? "(document)" : path_}.fail("expected an object, " +
                                                                               got(value_));
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
  if (member == nullptr) {
    SourceRef{file_, value_.line(), member_path(key)}.fail("missing (required)");
  }
  return *member;
}

const Value* ObjectReader::optional(std::string_view key) {
  note(key);
  const Value* member = value_.find(key);
  if (member != nullptr && member->is_null()) return nullptr;
  return member;
}

std::string ObjectReader::string(std::string_view key) { return as_string(required(key), at(key)); }

std::optional<std::string> ObjectReader::optional_string(std::string_view key) {
  const Value* member = optional(key);
  if (member == nullptr) return std::nullopt;
  return as_string(*member, at(key));
}

std::string ObjectReader::choice(std::string_view key, std::initializer_list<std::string_view> choices) {
  const Value& member = required(key);
  const std::string& text = as_string(member, at(key));
  for (std::string_view c : choices) {
    if (c == text) return text;
  }
  at(key).fail(fmt::format("expected one of {}, got \"{}\"", fmt::join(choices, ", "), text));
}

double ObjectReader::number(std::string_view key) { return as_number(required(key), at(key)); }

std::optional<double> ObjectReader::optional_number(std::string_view key) {
  const Value* member = optional(key);
  if (member == nullptr) return std::nullopt;
  return as_number(*member, at(key));
}

double ObjectReader::non_negative(std::string_view key) {
  const Value& member = required(key);
  double value = as_number(member, at(key));
  if (value < 0) at(key).fail("expected a non-negative number, " + got(member));
  return value;
}

double ObjectReader::positive(std::string_view key) {
  const Value& member = required(key);
  double value = as_number(member, at(key));
  if (!(value > 0)) at(key).fail("expected a positive number, " + got(member));
  return value;
}

double ObjectReader::number_in(std::string_view key, double min, double max) {
  const Value& member = required(key);
  double value = as_number(member, at(key));
  if (!(value >= min && value <= max)) at(key).fail(fmt::format("expected a number from {:g} to {:g}, {}", min, max, got(member)));
  return value;
}

std::optional<double> ObjectReader::optional_number_in(std::string_view key, double min, double max) {
  if (optional(key) == nullptr) return std::nullopt;
  return number_in(key, min, max);
}

std::optional<double> ObjectReader::optional_non_negative(std::string_view key) {
  if (optional(key) == nullptr) return std::nullopt;
  return non_negative(key);
}

std::optional<double> ObjectReader::optional_positive(std::string_view key) {
  if (optional(key) == nullptr) return std::nullopt;
  return positive(key);
}

std::int64_t ObjectReader::integer(std::string_view key) { return as_integer(required(key), at(key)); }

std::uint64_t ObjectReader::non_negative_integer(std::string_view key) {
  return as_non_negative_integer(required(key), at(key));
}

std::optional<std::uint64_t> ObjectReader::optional_non_negative_integer(std::string_view key) {
  const Value* member = optional(key);
  if (member == nullptr) return std::nullopt;
  return as_non_negative_integer(*member, at(key));
}

std::int64_t ObjectReader::positive_integer(std::string_view key) {
  const Value& member = required(key);
  if (!member.is_number()) at(key).fail("expected a positive integer, " + got(member));
  auto value = parse_int(member.text());
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

ObjectReader ObjectReader::child(std::string_view key) {
  return ObjectReader(object(key), file_, member_path(key));
}

void ObjectReader::finish() const {
  for (const Value::Member& member : value_.members()) {
    if (std::find(known_.begin(), known_.end(), member.first) != known_.end()) continue;
    std::vector<std::string> sorted = known_;
    std::sort(sorted.begin(), sorted.end());
    SourceRef{file_, member.second.line(), member_path(member.first)}.fail(
        fmt::format("unknown key; valid keys here: {}", fmt::join(sorted, ", ")));
  }
}

}  // namespace ccsim::json
