#include "platform/util/spelling.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace kb {

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
