// Helpers shared by the test binaries.
#pragma once

#include <string>
#include <vector>

namespace kb {
class HostRuntime;
class Platform;
struct TopologyConfig;
namespace test {

// Absolute path of a file in the source tree: KB_SOURCE_DIR "/" rel.
std::string source_path(const std::string& rel);

// The small topology most tests run on, and it loaded with `overrides`
// ("key=value", as --set takes them).
inline const std::string kTiny = KB_SOURCE_DIR "/topologies/tiny.yaml";
TopologyConfig tiny(const std::vector<std::string>& overrides = {});

// Runs the platform, returning the message of the error it raises ("" if none).
std::string run_expecting_error(HostRuntime& rt);
std::string run_expecting_error(Platform& p);

}  // namespace test
}  // namespace kb
