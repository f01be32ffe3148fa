#pragma once

#include <string>
#include <string_view>

namespace ccsim {

/// A fingerprint of a file's bytes, "fnv1a64:" and 16 hex digits (FNV-1a, 64 bits): whether
/// two files hold the same measurements, whatever their paths (not a cryptographic hash).
std::string fingerprint(std::string_view bytes);

/// fingerprint() of the file at `path` (read as an input of the command: an output may not
/// replace it); InputError when it cannot be read.
std::string file_fingerprint(const std::string& path);

}  // namespace ccsim
