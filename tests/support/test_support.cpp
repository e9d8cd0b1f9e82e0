#include "tests/support/test_support.h"

namespace kb {
namespace test {

std::string source_path(const std::string& rel) {
  return std::string(KB_SOURCE_DIR) + "/" + rel;
}

}  // namespace test
}  // namespace kb
