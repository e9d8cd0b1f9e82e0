#include "platform/runtime/dp_policy.h"

#include <string>

namespace kb {

std::vector<PeId> DpPolicy::place(const LaunchGrid& grid, const TopologyConfig& cfg) const {
  const unsigned per_cube = pes_per_cube ? pes_per_cube : cfg.cube.pes;
  if (per_cube > cfg.cube.pes)
    throw std::invalid_argument("DPPolicy: pes_per_cube " + std::to_string(per_cube) +
                                " exceeds the cube's " + std::to_string(cfg.cube.pes) + " PEs");
  if (sip >= cfg.system.n_sips)
    throw std::invalid_argument("DPPolicy: sip " + std::to_string(sip) + " does not exist");
  std::vector<PeId> out;
  for (unsigned p = 0; p < grid.size(); ++p) {
    const unsigned cube = cube_start + p / per_cube;
    if (cube >= cfg.cubes_per_sip())
      throw std::invalid_argument("DPPolicy: a grid of " + std::to_string(grid.size()) +
                                  " programs from cube " + std::to_string(cube_start) + " at " +
                                  std::to_string(per_cube) + " PEs per cube needs cube " +
                                  std::to_string(cube) + ", but a SIP has " +
                                  std::to_string(cfg.cubes_per_sip()));
    out.push_back({sip, cube, p % per_cube});
  }
  return out;
}

}  // namespace kb
