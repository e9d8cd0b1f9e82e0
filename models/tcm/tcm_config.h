// Parameters of a PE's TCM scratchpad (models/tcm/pe_tcm.h): a memory with
// one port (models/common/knob_spec.h, visit_memory_port). The bandwidth is
// that of the DMA port and of FETCH/STORE; the latency is the DMA port's
// access latency, pipelined after the port's service.
#pragma once

#include <cstdint>

#include "models/common/energy.h"
#include "models/common/knob_spec.h"

namespace kb {

struct TcmConfig {
  uint64_t size_bytes = uint64_t{1} << 20;
  double bandwidth_gbps = 512;
  double latency_ns = 1;
  MemoryEnergyConfig energy{2.5, 2.5, 20};

  template <class V>
  void visit(V& v) {
    visit_memory_port(v, size_bytes, bandwidth_gbps, latency_ns);
    v.section("energy", "TCM energy (DMA port, FETCH, STORE)", [&] {
      energy.visit(v,
                   "per byte read, pJ/B (default 2.5: 20 pJ per 64-bit access of a 32 KB SRAM "
                   "bank, Horowitz, ISSCC 2014, 45 nm)",
                   "per byte written, pJ/B (default 2.5: as a read, same source)",
                   "static power (leakage), mW (default 20: an estimate for 1 MiB of SRAM)");
    });
  }
};

}  // namespace kb
