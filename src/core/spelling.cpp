#include "core/spelling.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ccsim {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // d[i][j]: the distance of a's first i and b's first j characters, three rows at a time.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> closest_spelling(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    if (candidate == word) return std::nullopt;
    const std::size_t distance = edit_distance(word, candidate);
    const std::size_t allowed = std::max<std::size_t>(1, std::max(word.size(), candidate.size()) / 3);
    // A word of one letter replaced is no misspelling of another ("x" is not "n" mistyped).
    const bool replaced = distance >= std::max(word.size(), candidate.size());
    if (distance <= allowed && !replaced && (!best || distance < best_distance)) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates, std::string_view before,
                         std::string_view after) {
  const std::optional<std::string> close = closest_spelling(word, candidates);
  return close ? fmt::format("{}did you mean {}?{}", before, *close, after) : std::string();
}

}  // namespace ccsim
