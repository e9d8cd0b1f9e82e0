// PE_CPU dispatch cost (docs/ARCHITECTURE.md §2.3, models/commands/cost_model.h): what the
// firmware pays to issue a command, in PE clock cycles, as a function of the
// command's logical_bytes. Each field's default, unit and bound: visit() below
// (models/common/knob_spec.h).
#pragma once

#include <cstdint>

#include "models/common/knob_spec.h"

namespace kb {

struct CostModelConfig {
  double fixed_per_composite_cycles = 40;
  double fixed_per_single_op_cmd_cycles = 8;
  double per_byte_cycles = 0.0625;
  uint64_t max_composite_logical_bytes = 1024;

  template <class V>
  void visit(V& v) {
    // Bounded so that a command's dispatch stays a hardware time (at the
    // slowest clock, 1 MHz: at most a second fixed, 1 ms per logical byte).
    v.real(fixed_per_composite_cycles,
           KnobSpec{"fixed_per_composite_cycles", "fixed cycles per composite command",
                    Bound::kNonNegative}
               .range(0, 1e6, "cycles: a million per command at most"));
    v.real(fixed_per_single_op_cmd_cycles,
           KnobSpec{"fixed_per_single_op_cmd_cycles", "fixed cycles per single-op command",
                    Bound::kNonNegative}
               .range(0, 1e6, "cycles: a million per command at most"));
    v.real(per_byte_cycles,
           KnobSpec{"per_byte_cycles", "cycles per logical byte of a command", Bound::kNonNegative}
               .range(0, 1e3, "cycles: a thousand per logical byte at most"));
    v.size(max_composite_logical_bytes,
           {"max_composite_logical_bytes", "largest composite accepted, logical bytes",
            Bound::kAtLeastOne});
  }
};

}  // namespace kb
