#include "platform/util/version.h"

#ifndef KB_VERSION
#define KB_VERSION "unknown"
#endif
#ifndef KB_GIT_COMMIT
#define KB_GIT_COMMIT "unknown"
#endif

namespace kb {

std::string version_text() {
  return std::string(KB_VERSION) + " (" + KB_GIT_COMMIT + ")";
}

}  // namespace kb
