// Parameters of PE_SCHEDULER (models/scheduler/pe_scheduler.h). Defaults and
// bounds: platform/config/topology_schema.cpp.
#pragma once

namespace kb {

struct SchedulerConfig {
  unsigned staging_buffers = 0;  // TCM staging slots = tile tokens in flight per PE
};

}  // namespace kb
