#include "core/parse.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/input_error.hpp"

namespace ccsim {

std::optional<double> parse_double(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const char* first = text.data();
  const char* last = first + text.size();
  if (*first == '+') ++first;  // from_chars rejects a leading '+'
  if (first == last) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::general);
  if (ec != std::errc() || ptr != last || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const char* first = text.data();
  const char* last = first + text.size();
  if (*first == '+') ++first;
  if (first == last) return std::nullopt;
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value, 10);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_uint(std::string_view text) {
  if (text.empty() || text.front() == '-') return std::nullopt;
  const char* first = text.data();
  const char* last = first + text.size();
  if (*first == '+') ++first;
  if (first == last) return std::nullopt;
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value, 10);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_bytes(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double factor;
  };
  // Longest suffixes first so that "KiB" is not read as "B".
  static constexpr std::array<Unit, 11> kUnits = {{{"KiB", 1024.0},
                                                   {"MiB", 1024.0 * 1024},
                                                   {"GiB", 1024.0 * 1024 * 1024},
                                                   {"TiB", 1024.0 * 1024 * 1024 * 1024},
                                                   {"kB", 1e3},
                                                   {"KB", 1e3},
                                                   {"MB", 1e6},
                                                   {"GB", 1e9},
                                                   {"TB", 1e12},
                                                   {"B", 1.0},
                                                   {"", 1.0}}};
  for (const Unit& unit : kUnits) {
    if (text.size() < unit.suffix.size() || !text.ends_with(unit.suffix)) continue;
    std::string_view number = text.substr(0, text.size() - unit.suffix.size());
    while (!number.empty() && number.back() == ' ') number.remove_suffix(1);
    if (unit.suffix.empty()) {
      return parse_uint(number);
    }
    auto value = parse_double(number);
    if (!value || *value < 0) return std::nullopt;
    double bytes = *value * unit.factor;
    if (bytes > 9.0e18 || bytes != std::floor(bytes)) return std::nullopt;
    return static_cast<std::uint64_t>(bytes);
  }
  return std::nullopt;
}

double parse_double_or_throw(std::string_view text, const std::string& what, const std::string& field) {
  auto value = parse_double(text);
  if (!value) throw InputError(what, 0, field, fmt::format("expected a number, got \"{}\"", text));
  return *value;
}

std::uint64_t parse_bytes_or_throw(std::string_view text, const std::string& what, const std::string& field) {
  auto value = parse_bytes(text);
  if (!value) {
    throw InputError(what, 0, field,
                     fmt::format("expected a byte count such as 4096, 16MiB or 1.5GB, got \"{}\"", text));
  }
  return *value;
}

std::string format_bytes(double bytes) {
  static constexpr std::array<const char*, 5> kNames = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (bytes >= 1024.0 && unit + 1 < kNames.size()) {
    bytes /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f} B", bytes);
  return fmt::format("{:.4g} {}", bytes, kNames[unit]);
}

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string format_rate(double bytes_per_s) {
  if (bytes_per_s >= 1e12) return fmt::format("{:.4g} TB/s", bytes_per_s / 1e12);
  if (bytes_per_s >= 1e9) return fmt::format("{:.4g} GB/s", bytes_per_s / 1e9);
  if (bytes_per_s >= 1e6) return fmt::format("{:.4g} MB/s", bytes_per_s / 1e6);
  return fmt::format("{:.4g} kB/s", bytes_per_s / 1e3);
}

}  // namespace ccsim
