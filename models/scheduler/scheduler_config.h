// Parameters of PE_SCHEDULER (models/scheduler/pe_scheduler.h). Each field's
// default, unit and bound: visit() below (models/common/knob_spec.h).
#pragma once

#include "models/common/knob_spec.h"

namespace kb {

// How a composite's GEMM is planned (docs/ARCHITECTURE.md §1.6): tiles, a
// tile token per K step of each output tile (the exact model); stream, when
// its weights b are one contiguous run per output tile, one token per output
// tile whose DMA, FETCH and GEMM stages stream its K tiles.
enum class GemmPlan { kTiles, kStream };
constexpr EnumName<GemmPlan> kGemmPlanNames[] = {{GemmPlan::kTiles, "tiles"},
                                                 {GemmPlan::kStream, "stream"}};

struct SchedulerConfig {
  unsigned staging_buffers = 8;
  GemmPlan gemm_plan = GemmPlan::kTiles;

  template <class V>
  void visit(V& v) {
    v.count(staging_buffers,
            {"staging_buffers", "TCM staging buffers = tile tokens in flight per PE",
             Bound::kAtLeastOne});
    v.choice(gemm_plan, kGemmPlanNames,
             {"gemm_plan",
              "tiles: a tile token per K step of each output tile (the exact model); stream: "
              "one token per output tile when b is tiled in HBM (column-major grid, or one block "
              "row), a in TCM, K a multiple of tile_k and no K_TILE op, its K tiles streamed "
              "through one DMA "
              "transfer, FETCH and GEMM stage (fewer events; timing mode only; its error against "
              "tiles is measured in docs/ARCHITECTURE.md)"});
  }
};

}  // namespace kb
