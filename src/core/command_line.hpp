#pragma once

#include <string>
#include <string_view>

namespace ccsim {

/// `word` as a POSIX shell reads it back: as it is when it is not empty and holds only letters,
/// digits and -_./=:,+@%; else in single quotes, a quote in it written '\''.
std::string shell_word(std::string_view word);

/// This process's command line (/proc/self/cmdline) as a user would type it again: `program`
/// for the program's path, then each argument as shell_word writes it. `fallback` when it
/// cannot be read.
std::string own_command_line(std::string_view program, std::string_view fallback);

}  // namespace ccsim
