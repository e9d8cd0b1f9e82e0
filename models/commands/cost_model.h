// PE_CPU dispatch cost (docs/ARCHITECTURE.md §2.3), charged on the PE_CPU thread in SystemC time:
//   dispatch_cycles = FIXED(cmd) + logical_bytes(cmd) * per_byte_cycles
//   FIXED = fixed_per_composite_cycles for a CompositeCmd,
//           fixed_per_single_op_cmd_cycles for every single-op command
//   ns    = cycles / clock_ghz
// PeCpuOverheadCmd bypasses the formula: it costs exactly its cycles.
#pragma once

#include <cstdint>
#include <string>

#include "models/commands/commands.h"
#include "models/commands/cost_model_config.h"

namespace kb {

class CostModel {
 public:
  CostModel(const CostModelConfig& cfg, double clock_ghz) : cfg_(cfg), clock_ghz_(clock_ghz) {}

  double dispatch_cycles(const Command& cmd) const;
  double dispatch_ns(const Command& cmd) const { return dispatch_cycles(cmd) / clock_ghz_; }
  // "" when the command may be issued; otherwise why not (the composite cap).
  std::string check(const Command& cmd) const;
  const CostModelConfig& config() const { return cfg_; }
  double clock_ghz() const { return clock_ghz_; }

 private:
  CostModelConfig cfg_;
  double clock_ghz_;
};

}  // namespace kb
