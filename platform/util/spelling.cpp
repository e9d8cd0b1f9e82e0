#include "platform/util/spelling.h"

#include <algorithm>
#include <cctype>

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

std::string nearest_spelling(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  unsigned best_d = ~0u;
  for (const auto& c : candidates) {
    const unsigned d = spelling_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  const unsigned limit = std::max<unsigned>(2, static_cast<unsigned>(word.size()) / 2);
  return best_d <= limit ? best : "";
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

}  // namespace kb
