// Parameters of PE_CPU (models/cpu/pe_cpu.h) other than its dispatch cost
// (models/commands/cost_model_config.h). Each field's default, unit and bound:
// visit() below (models/common/knob_spec.h).
#pragma once

#include <cstdint>

#include "models/common/knob_spec.h"

namespace kb {

struct CpuConfig {
  uint64_t stack_bytes = uint64_t{4} << 20;
  double static_mw = 50;  // energy.static_mw

  template <class V>
  void visit(V& v) {
    v.size(
        stack_bytes,
        {"stack_bytes", "stack of the firmware thread (kernels run on it; deep kernels need more)",
         Bound::kAtLeastOne, uint64_t{256} << 20,
         "each PE reserves it; larger stacks exhaust the address space", uint64_t{256} << 10,
         "every bench's kernels run on 256 KiB; SystemC needs more than 2 pages"});
    v.section("energy", "PE_CPU energy", [&] {
      v.real(static_mw, {"static_mw",
                         "static power (its dispatch is not priced per command), mW (default 50: "
                         "an estimate for a small in-order control core)",
                         Bound::kNonNegative});
    });
  }
};

}  // namespace kb
