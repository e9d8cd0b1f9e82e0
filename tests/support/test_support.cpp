#include "tests/support/test_support.h"

#include <exception>

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

}  // namespace test
}  // namespace kb
