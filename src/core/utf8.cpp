#include "core/utf8.hpp"

#include <fmt/format.h>

namespace ccsim {

std::optional<std::size_t> invalid_utf8_at(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::size_t i = 0;
  while (i < size) {
    const unsigned char lead = bytes[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char low = 0x80;  // bounds of the second byte (Unicode 15, table 3-7)
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // no overlong forms
      if (lead == 0xED) high = 0x9F;  // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // no overlong forms
      if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
    } else {
      return i;
    }
    if (size - i < length) return i;
    if (bytes[i + 1] < low || bytes[i + 1] > high) return i;
    for (std::size_t k = 2; k < length; ++k) {
      if (bytes[i + k] < 0x80 || bytes[i + k] > 0xBF) return i;
    }
    i += length;
  }
  return std::nullopt;
}

void check_utf8(std::string_view text, const SourceRef& where) {
  auto bad = invalid_utf8_at(text);
  if (!bad) return;
  // Quote only the valid prefix: the message itself must stay printable.
  std::string_view prefix = text.substr(0, *bad);
  if (prefix.size() > 40) prefix = prefix.substr(prefix.size() - 40);
  while (!prefix.empty() && (static_cast<unsigned char>(prefix.front()) & 0xC0) == 0x80) prefix.remove_prefix(1);
  where.fail(fmt::format("expected UTF-8 text, got the byte 0x{:02X} at byte {} (after \"{}\")",
                         static_cast<unsigned char>(text[*bad]), *bad, prefix));
}

}  // namespace ccsim
