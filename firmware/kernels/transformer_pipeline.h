// Pipeline parallelism over stages (one per SIP in the llm bench's pp
// mapping): stage s holds a contiguous run of the model's layers, tensor
// parallel over its own ranks exactly as the decode and prefill steps lay a
// whole model out (transformer_decode.h, transformer_prefill.h); the batch
// is cut into micro-batches that flow through the stages in order, so stage
// s works on micro-batch k while stage s-1 works on k+1.
//
// Per micro-batch, on every rank of stage s:
//   pp_recv    (s > 0) the stage's first rank receives the residual stream
//              x of the micro-batch from the previous stage's first rank
//              (over the SIP link), then a binomial-tree broadcast gives it
//              to every rank of the stage (the tensor-parallel layers need
//              it replicated)
//   the stage's layers, as in the step
//   pp_send    (s < last) the first rank sends x on to the next stage
//   or, on the last stage, the final norm and the LM head.
// The send completes once the next stage's first rank has room for it in
// its receive ring, so a stage runs ahead of the next by what the ring holds.
#pragma once

#include <vector>

#include "firmware/kernels/transformer_step.h"

namespace kb {
namespace fw {

struct PipelineArgs {
  bool prefill = false;
  unsigned stage = 0, stages = 1;
  std::vector<PeAddr> roots;  // every stage's first rank, in stage order
  int first_layer = 0;        // the model's index of this stage's first layer
  // This rank's step arguments for each micro-batch, in order (the same
  // ranks, groups and shards; the micro-batch's rows and KV sequences).
  std::vector<TransformerStepArgs> micro;
};

// Runs on one rank of one stage; returns when its part is done. `phases`
// (optional) receives this rank's phase times, every micro-batch's.
void pipeline_step(Tl& tl, const PipelineArgs& p, std::vector<PhaseRecord>* phases);

}  // namespace fw
}  // namespace kb
