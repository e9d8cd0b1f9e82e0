// PE_CPU dispatch cost (docs/ARCHITECTURE.md §2.3, models/commands/cost_model.h): what the
// firmware pays to issue a command, in PE clock cycles, as a function of the
// command's logical_bytes.
//
// The member defaults repeat the schema's (platform/config/topology_schema.cpp)
// because tests/unit/test_commands.cpp builds the model from CostModelConfig{}.
#pragma once

#include <cstdint>

namespace kb {

struct CostModelConfig {
  double fixed_per_composite_cycles = 40;       // cycles, per composite command
  double fixed_per_single_op_cmd_cycles = 8;    // cycles, per single-op command
  double per_byte_cycles = 0.0625;              // cycles per logical byte of the descriptor
  uint64_t max_composite_logical_bytes = 1024;  // logical bytes, largest composite accepted
};

}  // namespace kb
