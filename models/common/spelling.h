// "Did you mean ...?" support for names typed by a user (benches, params,
// knobs, models, op kinds, recipes, kernels): the one ranking of guesses every
// suggestion uses. Files: platform/util/spelling.h (nearest_file).
#pragma once

#include <string>
#include <vector>

namespace kb {

// Levenshtein distance.
unsigned spelling_distance(const std::string& a, const std::string& b);

// Length of the longest common subsequence of `a` and `b`.
unsigned common_subsequence(const std::string& a, const std::string& b);

// How good a guess `candidate` is for `word`: fewer edits first; at the same
// number of edits, one that starts with word's first letter ("lama": 'llm',
// not 'dma'), then one that keeps more of word's letters in order
// ("llama3_7b": 'llama3_70b', not 'llama3_8b').
struct SpellingScore {
  unsigned distance = ~0u;
  bool other_initial = true;
  unsigned common = 0;
  // True when this is the better guess.
  bool operator<(const SpellingScore& o) const {
    if (distance != o.distance) return distance < o.distance;
    if (other_initial != o.other_initial) return !other_initial;
    return common > o.common;
  }
};
SpellingScore spelling_score(const std::string& word, const std::string& candidate);

// The best-scored candidate for `word` (the first of equal ones), or "" when
// none is within max(2, |word| / 2) edits.
std::string nearest_spelling(const std::string& word, const std::vector<std::string>& candidates);

// "; did you mean 'GUESS'?" for nearest_spelling's guess, or "" when there is none.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace kb
