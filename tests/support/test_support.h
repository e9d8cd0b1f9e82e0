// Helpers shared by the test binaries.
#pragma once

#include <string>

namespace kb {
class HostRuntime;
class Platform;
namespace test {

// Absolute path of a file in the source tree: KB_SOURCE_DIR "/" rel.
std::string source_path(const std::string& rel);

// Runs the platform, returning the message of the error it raises ("" if none).
std::string run_expecting_error(HostRuntime& rt);
std::string run_expecting_error(Platform& p);

}  // namespace test
}  // namespace kb
