// Parameters of PE_CPU (models/cpu/pe_cpu.h) other than its dispatch cost
// (models/commands/cost_model_config.h). Defaults and bounds:
// platform/config/topology_schema.cpp.
#pragma once

#include <cstdint>

namespace kb {

struct CpuConfig {
  uint64_t stack_bytes = 0;  // bytes, stack of each firmware (kernel) thread
};

}  // namespace kb
