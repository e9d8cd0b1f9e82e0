#include "tests/support/test_support.h"

#include <exception>
#include <sstream>

#include "platform/config/topology_loader.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {
namespace test {

std::string source_path(const std::string& rel) {
  return std::string(KB_SOURCE_DIR) + "/" + rel;
}

TopologyConfig tiny(const std::vector<std::string>& overrides) {
  return load_topology_file(kTiny, overrides);
}

std::string run_expecting_error(HostRuntime& rt) {
  try {
    rt.run();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string run_expecting_error(Platform& p) {
  try {
    p.run();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

DescribedRegion described_region(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t at = line.find_first_not_of(' ');
    if (at == std::string::npos || line.compare(at, label.size() + 1, label + " ") != 0) continue;
    DescribedRegion r;
    std::istringstream words(line.substr(at + label.size()));
    std::string unit;
    char open = 0, comma = 0;
    words >> r.bytes >> unit >> open >> r.from >> comma >> r.to;
    r.found = words && unit == "B" && open == '[' && comma == ',';
    return r;
  }
  return {};
}

uint64_t expected_staging_slot_bytes(const TopologyConfig& c) {
  const uint64_t m = c.pe.gemm.tile_m, k = c.pe.gemm.tile_k, n = c.pe.gemm.tile_n;
  return 4 * (m * k + k * n + m * n);
}

uint64_t expected_tcm_arena(const TopologyConfig& c) {
  return c.pe.tcm.size_bytes - c.pe.scheduler.staging_buffers * expected_staging_slot_bytes(c) -
         c.pe.ipcq.ring_bytes;
}

}  // namespace test
}  // namespace kb
