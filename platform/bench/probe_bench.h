// Bench `probe`: PE -> memory DMA distance sweep and pseudo-channel contention.
//
// Distance sweep: PE sip0.cube0.pe0 moves 32 KiB and 1 MiB, one DMA alone on
// an idle platform, for each hop class the topology has:
//   local_hbm          own HBM -> own TCM
//   same_cube_hbm      HBM of pe1 in the same cube -> own TCM
//   neighbor_cube_hbm  HBM of pe0 in the nearest other cube (fewest hops)
//   far_cube_hbm       HBM of pe0 in the farthest cube (most hops; ties: highest id)
//   other_sip_hbm      HBM of sip1.cube0.pe0 (multi-SIP topologies only)
//   h2d                host memory -> own TCM (data crosses the H2D link)
//   d2h                own TCM -> host memory (data crosses the D2H link)
// Each point reports the simulated latency, achieved bandwidth, the
// narrowest edge of the data path (bottleneck_gbps) and the link hops.
//
// Contention: N PEs of cube 0 (N in 2, 4, 8 up to the cube size) each read a
// 32 KiB of chunks that stay on one pseudo-channel: all on PC0 of
// pe0's HBM (same_pc), or each on PC0 of the next PE's HBM (different_pc).
// Reported as the makespan against one reader of the same pattern.
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class ProbeBench : public Bench {
 public:
  std::string name() const override { return "probe"; }
  std::string description() const override {
    return "PE->memory DMA distance sweep (hop classes x sizes) and HBM pseudo-channel contention";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<std::string> point_fields() const override;
  std::vector<std::string> metric_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
