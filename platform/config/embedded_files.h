// Files of the repository compiled into the binary (CMake generates the
// table from KB_EMBEDDED_FILES), so kernbench runs from any directory: every
// shipped topology (selectable by name: --topology llama70b_4sip) and model spec.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kb {

// Repository path (e.g. "topologies/llm/llama3_70b.yaml") -> text.
const std::map<std::string, std::string>& embedded_files();

// The text of `repo_path`, or null when that file is not embedded.
const std::string* embedded_file(const std::string& repo_path);

// The shipped topologies by name: "llama70b_4sip" is topologies/llama70b_4sip.yaml.
std::vector<std::string> embedded_topology_names();
const std::string* embedded_topology(const std::string& name);

}  // namespace kb
