// Helpers shared by the test binaries.
#pragma once

#include <cstdint>
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

// A region's row in what a kernel gets of each PE's memories, as
// Platform::describe and --describe-topology print it
// ("  TCM arena    622592 B    [0, 622592) the kernel arena: ..."): its bytes
// and range; `found` false when no row has that label.
struct DescribedRegion {
  bool found = false;
  uint64_t bytes = 0, from = 0, to = 0;
};
DescribedRegion described_region(const std::string& text, const std::string& label);

// The bytes of a staging slot and the kernel arena (the TCM less PE_IPCQ's
// rings and the staging slots), from a configuration's knobs, computed here
// rather than by the platform (ARCHITECTURE.md §1.2).
uint64_t expected_staging_slot_bytes(const TopologyConfig& c);
uint64_t expected_tcm_arena(const TopologyConfig& c);

}  // namespace test
}  // namespace kb
