#include "tests/support/test_support.h"

#include <exception>

#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {
namespace test {

std::string source_path(const std::string& rel) {
  return std::string(KB_SOURCE_DIR) + "/" + rel;
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
