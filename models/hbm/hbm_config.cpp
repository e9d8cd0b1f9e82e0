#include "models/hbm/hbm_config.h"

namespace kb {

const char* to_string(PcMapping m) {
  return name_of(kPcMappingNames, m);
}

}  // namespace kb
