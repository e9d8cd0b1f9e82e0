// Parameters of PE_DMA (models/dma/pe_dma.h). Each field's default, unit and
// bound: visit() below (models/common/knob_spec.h).
#pragma once

#include <cstdint>

#include "models/common/knob_spec.h"

namespace kb {

struct DmaConfig {
  uint64_t burst_bytes = 1024;
  unsigned max_outstanding = 64;
  double setup_ns = 2;

  template <class V>
  void visit(V& v) {
    v.size(burst_bytes,
           {"burst_bytes", "a transfer is split into bursts of this size", Bound::kAtLeastOne});
    v.count(max_outstanding,
            {"max_outstanding", "bursts in flight per channel", Bound::kAtLeastOne});
    v.real(setup_ns,
           {"setup_ns", "setup per transfer, before its first burst, ns", Bound::kNonNegative});
  }
};

}  // namespace kb
