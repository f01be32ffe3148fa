#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "core/input_error.hpp"

namespace ccsim {

/// Offset of the first byte of `text` that is not part of well-formed UTF-8 (RFC 3629: no
/// overlong forms, no surrogates, nothing above U+10FFFF), or nullopt when all of it is.
std::optional<std::size_t> invalid_utf8_at(std::string_view text);

/// Throws InputError at `where` unless `text` is well-formed UTF-8. Every string that comes
/// from a user (JSON inputs, command-line values) goes through this before anything prints
/// it into a JSON report, which must be UTF-8.
void check_utf8(std::string_view text, const SourceRef& where);

}  // namespace ccsim
