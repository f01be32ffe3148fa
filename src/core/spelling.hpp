#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim {

/// The optimal-string-alignment distance of `a` and `b`: the fewest insertions, deletions,
/// substitutions and swaps of two neighbouring characters that turn one into the other
/// ("allreduce" → "all_reduce": 1, "raply" → "reply": 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate that `word` is most likely a misspelling of, for "did you mean X?": the
/// closest by edit_distance, the first of equals, when at most max(1, size / 3) edits away
/// (the size of the longer of the two) and not every character replaced ("x" is no misspelling
/// of "n"); none when no candidate is that close or `word` is one.
std::optional<std::string> closest_spelling(std::string_view word, const std::vector<std::string>& candidates);

/// The "did you mean X?" of every message about an unknown name, X from closest_spelling:
/// `before` + "did you mean X?" + `after`, or "" when no candidate is close. The usual forms:
/// 'unknown key; did you mean eb? valid keys: ...' (before "", after " ") and
/// 'expected one of ..., got "allreduce"; did you mean all_reduce?' (the defaults).
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::string_view before = "; ", std::string_view after = "");

}  // namespace ccsim
