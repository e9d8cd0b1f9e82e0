// Parameters of PE_SCHEDULER (models/scheduler/pe_scheduler.h). Each field's
// default, unit and bound: visit() below (models/common/knob_spec.h).
#pragma once

#include "models/common/knob_spec.h"

namespace kb {

struct SchedulerConfig {
  unsigned staging_buffers = 8;

  template <class V>
  void visit(V& v) {
    v.count(staging_buffers,
            {"staging_buffers", "TCM staging buffers = tile tokens in flight per PE",
             Bound::kAtLeastOne});
  }
};

}  // namespace kb
