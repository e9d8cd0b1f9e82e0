// The version of this build: the project version and the git commit it was
// configured from ("0.1.0 (a1b2c3d4e5f6)", "-dirty" when the tree had
// uncommitted changes). `kernbench --version` prints it and every JSON result
// records it.
#pragma once

#include <string>

namespace kb {

std::string version_text();

}  // namespace kb
