// Parameters of a PE's TCM scratchpad (models/tcm/pe_tcm.h): a memory with
// one port (models/common/knob_spec.h, visit_memory_port). The bandwidth is
// that of the DMA port and of FETCH/STORE; the latency is the DMA port's
// access latency, pipelined after the port's service.
#pragma once

#include <cstdint>

#include "models/common/knob_spec.h"

namespace kb {

struct TcmConfig {
  uint64_t size_bytes = uint64_t{1} << 20;
  double bandwidth_gbps = 512;
  double latency_ns = 1;

  template <class V>
  void visit(V& v) {
    visit_memory_port(v, size_bytes, bandwidth_gbps, latency_ns);
  }
};

}  // namespace kb
