#include "models/common/spelling.h"

#include <algorithm>

namespace kb {

unsigned spelling_distance(const std::string& a, const std::string& b) {
  std::vector<unsigned> prev(b.size() + 1), cur(b.size() + 1);
  for (unsigned j = 0; j <= b.size(); ++j) prev[j] = j;
  for (unsigned i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (unsigned j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

unsigned common_subsequence(const std::string& a, const std::string& b) {
  std::vector<unsigned> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

SpellingScore spelling_score(const std::string& word, const std::string& candidate) {
  SpellingScore s;
  s.distance = spelling_distance(word, candidate);
  s.other_initial = word.empty() || candidate.empty() || word[0] != candidate[0];
  s.common = common_subsequence(word, candidate);
  return s;
}

std::string nearest_spelling(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  SpellingScore best_s;
  for (const auto& c : candidates) {
    const SpellingScore s = spelling_score(word, c);
    if (s < best_s) best_s = s, best = c;
  }
  const unsigned limit = std::max<unsigned>(2, static_cast<unsigned>(word.size()) / 2);
  return best_s.distance <= limit ? best : "";
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string guess = nearest_spelling(word, candidates);
  return guess.empty() ? "" : "; did you mean '" + guess + "'?";
}

}  // namespace kb
