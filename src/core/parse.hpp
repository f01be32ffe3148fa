#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ccsim {

// Checked number parsing: the whole text must be the number (no leading/trailing junk,
// no whitespace), and it must be finite and in range. These return nullopt on any doubt;
// callers turn that into an InputError that quotes the text. Never use std::stod & co.

std::optional<double> parse_double(std::string_view text);
std::optional<std::int64_t> parse_int(std::string_view text);
std::optional<std::uint64_t> parse_uint(std::string_view text);

/// A byte count with an optional unit: "4096", "16MiB", "1.5GB", "512 KiB", "8kB".
/// Units are B, kB/KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of 1024).
/// The result must be a whole number of bytes.
std::optional<std::uint64_t> parse_bytes(std::string_view text);

/// Parsers that throw InputError("<what>", 0, field, "expected ..., got \"text\"").
/// `what` names the source, e.g. "command line" or a file name.
double parse_double_or_throw(std::string_view text, const std::string& what, const std::string& field);
std::uint64_t parse_bytes_or_throw(std::string_view text, const std::string& what, const std::string& field);

/// The text with ASCII letters in lower case (other bytes, UTF-8 included, unchanged).
std::string ascii_lower(std::string_view text);

/// "1.5 GB/s"-style rendering helpers used in reports and messages.
std::string format_bytes(double bytes);
std::string format_rate(double bytes_per_s);

}  // namespace ccsim
