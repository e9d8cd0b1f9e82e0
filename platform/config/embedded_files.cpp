#include "platform/config/embedded_files.h"

namespace kb {

namespace {
constexpr const char* kDir = "topologies/";
constexpr const char* kExt = ".yaml";
}  // namespace

const std::string* embedded_file(const std::string& repo_path) {
  const auto& files = embedded_files();
  const auto it = files.find(repo_path);
  return it == files.end() ? nullptr : &it->second;
}

std::vector<std::string> embedded_topology_names() {
  std::vector<std::string> names;
  const std::string dir = kDir, ext = kExt;
  for (const auto& [path, text] : embedded_files()) {
    const std::string rest = path.substr(0, dir.size()) == dir ? path.substr(dir.size()) : "";
    if (rest.size() > ext.size() && rest.find('/') == std::string::npos &&
        rest.compare(rest.size() - ext.size(), ext.size(), ext) == 0)
      names.push_back(rest.substr(0, rest.size() - ext.size()));
  }
  return names;
}

const std::string* embedded_topology(const std::string& name) {
  if (name.find('/') != std::string::npos) return nullptr;
  return embedded_file(std::string(kDir) + name + kExt);
}

}  // namespace kb
