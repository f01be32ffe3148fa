#include "core/command_line.hpp"

#include <fstream>
#include <vector>

namespace ccsim {

std::string shell_word(std::string_view word) {
  const bool safe = !word.empty() && word.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                         "-_./=:,+@%") == std::string_view::npos;
  if (safe) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string own_command_line(std::string_view program, std::string_view fallback) {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> words;
  for (std::string word; std::getline(in, word, '\0');) words.push_back(word);
  if (words.empty()) return std::string(fallback);
  std::string out(program);
  for (std::size_t i = 1; i < words.size(); ++i) out += " " + shell_word(words[i]);
  return out;
}

}  // namespace ccsim
