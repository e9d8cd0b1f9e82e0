// How cubes are linked inside a SIP and SIPs inside a system. The routing
// over them is models/topology/cube_grid.h; the knobs are sip.topology and
// system.sip_topology (platform/config/topology_config.h).
#pragma once

#include "models/common/knob_spec.h"

namespace kb {

enum class CubeTopology { kMesh, kRing, kTorus2d };
enum class SipTopology { kRing, kFull };
constexpr EnumName<CubeTopology> kCubeTopologyNames[] = {{CubeTopology::kMesh, "mesh"},
                                                         {CubeTopology::kRing, "ring"},
                                                         {CubeTopology::kTorus2d, "torus2d"}};
constexpr EnumName<SipTopology> kSipTopologyNames[] = {{SipTopology::kRing, "ring"},
                                                       {SipTopology::kFull, "full"}};

const char* to_string(CubeTopology t);
const char* to_string(SipTopology t);

// What code below platform/ needs to know of a SIP's shape: its cube grid,
// how the cubes are linked and how many PEs each cube has.
struct SipShape {
  unsigned cubes_x = 0;     // cubes along X (grid width)
  unsigned cubes_y = 0;     // cubes along Y (grid height)
  CubeTopology topology{};  // cube links inside the SIP
  unsigned cube_pes = 0;    // PEs per cube
};

}  // namespace kb
