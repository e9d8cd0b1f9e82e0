#include "models/topology/topology_kind.h"

namespace kb {

const char* to_string(CubeTopology t) {
  return name_of(kCubeTopologyNames, t);
}

const char* to_string(SipTopology t) {
  return name_of(kSipTopologyNames, t);
}

}  // namespace kb
