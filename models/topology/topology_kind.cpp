#include "models/topology/topology_kind.h"

namespace kb {

const char* to_string(CubeTopology t) {
  switch (t) {
    case CubeTopology::kMesh:
      return "mesh";
    case CubeTopology::kRing:
      return "ring";
    case CubeTopology::kTorus2d:
      return "torus2d";
  }
  return "?";
}

const char* to_string(SipTopology t) {
  switch (t) {
    case SipTopology::kRing:
      return "ring";
    case SipTopology::kFull:
      return "full";
  }
  return "?";
}

}  // namespace kb
