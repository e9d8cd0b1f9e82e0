#include "platform/util/spelling.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

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

std::string nearest_file(const std::string& path, const std::vector<std::string>& also) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string ext = p.extension().string();
  std::vector<std::string> paths, stems;
  auto add = [&](const std::string& candidate) {
    const fs::path c(candidate);
    if (c.extension().string() != ext || c.stem().empty()) return;
    if (std::find(paths.begin(), paths.end(), candidate) != paths.end()) return;
    paths.push_back(candidate);
    stems.push_back(c.stem().string());
  };
  std::error_code ec;
  const fs::path dir = p.parent_path();
  fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec), end;
  std::vector<std::string> in_dir;
  for (int n = 0; !ec && it != end && n < 4096; it.increment(ec), ++n)
    if (it->is_regular_file(ec)) in_dir.push_back((dir / it->path().filename()).string());
  std::sort(in_dir.begin(), in_dir.end());  // the guess must not follow the listing order
  for (const std::string& c : in_dir) add(c);
  for (const std::string& c : also) add(c);
  const std::string near = nearest_spelling(p.stem().string(), stems);
  if (near.empty()) return "";
  return paths[static_cast<size_t>(std::find(stems.begin(), stems.end(), near) - stems.begin())];
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

}  // namespace kb
