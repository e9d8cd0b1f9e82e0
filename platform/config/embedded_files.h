// Files of the repository compiled into the binary (CMake generates the
// table from KB_EMBEDDED_FILES), so kernbench runs from any directory: the
// shipped model specs and the topologies benches default to.
#pragma once

#include <string>

namespace kb {

// The text of `repo_path` (e.g. "topologies/llm/llama3_70b.yaml"), or null
// when that file is not embedded.
const std::string* embedded_file(const std::string& repo_path);

}  // namespace kb
