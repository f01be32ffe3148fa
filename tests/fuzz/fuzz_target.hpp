#pragma once

// One fuzz entry point per file, built two ways (see tests/fuzz/README.md):
// - with clang and -DCCSIM_LIBFUZZER: the file's entry becomes LLVMFuzzerTestOneInput, one
//   libFuzzer executable per target (fuzz_<name>);
// - everywhere else: the entry registers itself by name in ccsim_fuzz_replay, which replays
//   committed regression inputs and the seed files through the same code in every build.
// An entry returns 0. An input may be rejected only with the library's own error for bad
// input (InputError, CodecError for streams); any other exception, crash, sanitizer report or
// hang is a finding.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/input_error.hpp"

namespace ccsim::fuzz {

using Entry = int (*)(const std::uint8_t* data, std::size_t size);

/// Registers a target of the replay driver (a static object per target file).
struct Registration {
  Registration(std::string_view name, Entry entry);
};

/// The input as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `f`; an InputError is the expected answer to bad input, anything else escapes.
template <class F>
void input_errors_only(F&& f) {
  try {
    f();
  } catch (const InputError&) {
  }
}

}  // namespace ccsim::fuzz

#ifdef CCSIM_LIBFUZZER
#define CCSIM_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
#else
#define CCSIM_FUZZ_TARGET(name)                                                              \
  static int ccsim_fuzz_entry(const std::uint8_t* data, std::size_t size);                   \
  static const ::ccsim::fuzz::Registration ccsim_fuzz_registration(#name, ccsim_fuzz_entry); \
  static int ccsim_fuzz_entry(const std::uint8_t* data, std::size_t size)
#endif
