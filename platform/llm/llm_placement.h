// Puts a model on the platform for one decode or prefill step: allocates every rank's
// shards, KV blocks and activations in its own HBM (HostRuntime) and, in data
// mode, writes the values of a ModelWeights into them; returns each rank's
// kernel arguments.
#pragma once

#include <vector>

#include "firmware/kernels/transformer_step.h"
#include "platform/llm/llm_mapping.h"
#include "platform/llm/llm_reference.h"
#include "platform/runtime/host_runtime.h"

namespace kb {

// `data`: the values to write (data mode), or null (timing only).
std::vector<fw::TransformerStepArgs> place_step(HostRuntime& rt, const TpMapping& map,
                                                const ModelSpec& model, const LlmRun& run,
                                                const ModelWeights* data);

// The arguments of a micro-batch: sequences [b0, b0 + n) of `a` (their rows
// of every activation, their KV blocks), the rest unchanged.
fw::TransformerStepArgs micro_batch(const fw::TransformerStepArgs& a, int64_t b0, int64_t n);

// The logits [batch, vocab] read back from every rank's slice.
std::vector<float> read_logits(HostRuntime& rt, const TpMapping& map,
                               const std::vector<fw::TransformerStepArgs>& args, int64_t batch,
                               int64_t vocab);

}  // namespace kb
