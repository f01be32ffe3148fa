#include "core/fingerprint.hpp"

#include <cstdint>

#include <fmt/format.h>

#include "core/json.hpp"

namespace ccsim {

std::string fingerprint(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a's offset basis and prime
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

std::string file_fingerprint(const std::string& path) { return fingerprint(json::read_file(path)); }

}  // namespace ccsim
