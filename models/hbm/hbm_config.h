// Parameters of one PE's HBM slice (models/hbm/hbm_ctrl.h) and how its
// offsets map to pseudo-channels (models/hbm/pc_mapping.h). Defaults and
// bounds: platform/config/topology_schema.cpp.
#pragma once

#include <cstdint>

namespace kb {

// How HBM addresses map to pseudo-channels (see models/hbm/pc_mapping.h).
enum class PcMapping { kInterleave, kXor };

const char* to_string(PcMapping m);

struct HbmConfig {
  uint64_t size_bytes = 0;        // bytes, capacity of one PE's HBM slice
  unsigned num_pcs = 0;           // pseudo-channels
  double pc_bandwidth_gbps = 0;   // GB/s, per pseudo-channel
  uint64_t interleave_bytes = 0;  // bytes, address interleave across PCs
  double access_latency_ns = 0;   // ns, pipelined latency after a PC's service
  unsigned queue_depth = 0;       // request-queue entries per PC (0 = unbounded)
  PcMapping pc_mapping{};         // offset -> pseudo-channel
};

}  // namespace kb
