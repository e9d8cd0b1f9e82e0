// Helpers shared by the test binaries.
#pragma once

#include <string>

namespace kb {
namespace test {

// Absolute path of a file in the source tree: KB_SOURCE_DIR "/" rel.
std::string source_path(const std::string& rel);

}  // namespace test
}  // namespace kb
