// DPPolicy: which physical PE runs which program of a launch grid.
//
// Programs are numbered row-major over the grid (x fastest). Program p runs
// on SIP `sip`, cube cube_start + p / pes_per_cube, PE p % pes_per_cube,
// where pes_per_cube = 0 means every PE of a cube. `cube_start` lets disjoint
// cube groups run side by side.
#pragma once

#include <stdexcept>
#include <vector>

#include "platform/platform.h"

namespace kb {

struct LaunchGrid {
  unsigned x = 1, y = 1, z = 1;
  unsigned size() const { return x * y * z; }
};

struct DpPolicy {
  unsigned sip = 0;
  unsigned cube_start = 0;
  unsigned pes_per_cube = 0;  // 0 = all PEs of each cube

  // The PE of every program, or std::invalid_argument when the grid does not fit.
  std::vector<PeId> place(const LaunchGrid& grid, const TopologyConfig& cfg) const;
};

}  // namespace kb
