// Parameters of one PE's HBM slice (models/hbm/hbm_ctrl.h) and how its
// offsets map to pseudo-channels (models/hbm/pc_mapping.h). Each field's
// default, unit and bound: visit() below (models/common/knob_spec.h).
#pragma once

#include <cstdint>

#include "models/common/energy.h"
#include "models/common/knob_spec.h"
#include "models/hbm/dram_timing.h"

namespace kb {

// How HBM addresses map to pseudo-channels (see models/hbm/pc_mapping.h).
enum class PcMapping { kInterleave, kXor };
constexpr EnumName<PcMapping> kPcMappingNames[] = {{PcMapping::kInterleave, "interleave"},
                                                   {PcMapping::kXor, "xor"}};
const char* to_string(PcMapping m);

struct HbmConfig {
  uint64_t size_bytes = uint64_t{1} << 30;
  unsigned num_pcs = 2;
  double pc_bandwidth_gbps = 128;
  uint64_t interleave_bytes = 1024;
  double access_latency_ns = 5;
  unsigned queue_depth = 64;
  PcMapping pc_mapping = PcMapping::kXor;
  HbmModel model = HbmModel::kQueue;
  DramTimingConfig banked;
  MemoryEnergyConfig energy{31.2, 31.2, 150};

  template <class V>
  void visit(V& v) {
    v.size(size_bytes, {"size_bytes", "capacity per PE (a multiple of interleave_bytes * num_pcs)",
                        Bound::kAtLeastOne, addr_bits::kMaxRegionBytes, kRegionNote});
    v.count(num_pcs, {"num_pcs", "pseudo-channels", Bound::kAtLeastOne});
    v.real(pc_bandwidth_gbps,
           {"pc_bandwidth_gbps", "bandwidth per pseudo-channel, GB/s", Bound::kPositive});
    v.size(interleave_bytes,
           {"interleave_bytes", "address interleave across pseudo-channels", Bound::kPowerOfTwo});
    v.real(access_latency_ns,
           {"access_latency_ns", "pipelined latency after a pseudo-channel's service, ns",
            Bound::kNonNegative});
    v.count(queue_depth,
            {"queue_depth", "request-queue entries per pseudo-channel (0 = unbounded)"});
    v.choice(pc_mapping, kPcMappingNames,
             {"pc_mapping",
              "address -> pseudo-channel: interleave (chunk mod PCs) or xor (chunk bits folded, "
              "so strided rows spread over the PCs)"});
    v.choice(model, kHbmModelNames,
             {"model",
              "pseudo-channel timing: queue (a bandwidth queue: bytes / pc_bandwidth_gbps) or "
              "banked (bank groups, banks and row buffers with JEDEC timings and FR-FCFS "
              "scheduling, from the banked section)"});
    v.section("banked", "banked HBM device", [&] { banked.visit(v); });
    v.section("energy", "HBM slice energy", [&] {
      energy.visit(v,
                   "per byte read, pJ/B (default 31.2 = 3.9 pJ/bit: HBM2 activation, data "
                   "movement and I/O, O'Connor et al., Fine-Grained DRAM, MICRO 2017)",
                   "per byte written, pJ/B (default 31.2: as a read, same source)",
                   "static power (background and refresh), mW (default 150: an estimate, about "
                   "1.2 W per 16-pseudo-channel HBM2 stack from JEDEC IDD2N/IDD5-class currents "
                   "at 1.2 V, for this slice's 2 PCs)");
    });
  }
};

}  // namespace kb
