#include "models/hbm/hbm_config.h"

namespace kb {

const char* to_string(PcMapping m) {
  switch (m) {
    case PcMapping::kInterleave:
      return "interleave";
    case PcMapping::kXor:
      return "xor";
  }
  return "?";
}

}  // namespace kb
