// What a decode step or a prefill cannot beat, and what its collectives
// should cost, computed from the configuration alone (nothing simulated):
//   - the roofline bound: every rank must stream its weights from its own
//     HBM and read (decode) or write (prefill) its KV block, and do its
//     flops, so the step takes at least max over ranks of max(bytes / PE HBM
//     bandwidth, flops / GEMM peak, native GEMM tiles x one tile's time) --
//     the last because PE_GEMM spends a whole 32 x 64 x 32 tile's time on a
//     tile a batch of 1 barely fills (a prefill's causal attention counts
//     at peak there, its tiling being the kernel's choice);
//   - the step's collectives, priced by the all-reduce model
//     (allreduce_model.h) over the mapping's PEs: the all-reduce of the
//     partial sums over every rank, and a group's QKV gather.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "platform/config/topology_config.h"
#include "platform/llm/llm_mapping.h"

namespace kb {

struct StepBound {
  uint64_t bytes = 0;  // HBM bytes of the busiest rank (weights + its KV block)
  double flops = 0;    // flops of the busiest rank
  double hbm_ns = 0, compute_ns = 0;
  double gemm_tile_ns = 0;         // native GEMM tiles of the busiest rank x tile time
  double bound_ns = 0;             // max(hbm_ns, compute_ns)
  double allreduce_model_ns = 0;   // one [rows, hidden] fp32 all-reduce over every rank
  double qkv_gather_model_ns = 0;  // one group's QKV all-reduce
  // Sharded residual: one reduce-scatter of the [rows, hidden] fp32 partial
  // sums, and one all-gather of the normalised stream in the model's dtype.
  double reduce_scatter_model_ns = 0, norm_gather_model_ns = 0;
  uint64_t total_hbm_bytes = 0;  // every rank's weights + KV block
  nlohmann::json to_json() const;
};

StepBound step_bound(const TpMapping& map, const ModelSpec& model, const LlmRun& run,
                     const TopologyConfig& cfg);

// A pipeline's bound from each stage's bound for each micro-batch
// (stage_micro[s][k]): every stage must take every micro-batch through its
// layers (streaming its weights once per micro-batch), and the first
// micro-batch must pass every stage in turn, so the step takes at least
// max(max over stages of the sum over micro-batches, the sum over stages of
// the first micro-batch). The HBM, flop and tile terms are the busiest
// stage's sums; total_hbm_bytes is every stage's; the collective models
// stage 0's first micro-batch's.
StepBound pipeline_bound(const std::vector<std::vector<StepBound>>& stage_micro);

}  // namespace kb
