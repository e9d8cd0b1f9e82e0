// The prefill of a Llama-style transformer: every sequence of the batch
// brings a prompt of `tokens` tokens at positions 0 .. tokens-1 into an
// empty KV cache; the step ends with the logits of each prompt's last token
// (the first generated token's), so its length is the time to first token.
//
// The mapping is the decode step's (transformer_decode.h): the same ranks,
// groups and weight slices; the KV positions of a group are in R contiguous
// blocks, block r on the group's rank r, and that block's tokens are also
// rank r's query rows. Per layer, on every rank, over the N = batch x
// tokens rows (every phase streams its rows through TCM in chunks that fit
// the budget; the activations live in HBM):
//   attn_norm    xn = RMSNorm(x) * g_attn
//   qkv          this rank's QKV columns of every row
//   qkv_gather   the group's whole QKV rows on every rank of the group (an
//                all-reduce of the zero-padded columns, chunk by chunk)
//   rope         every Q and K head row rotated to its token's position:
//                row * cos + (row · rotate-half) * sin, the tables per
//                (position, head) row
//   kv_append    the rank's block of K (transposed) and V into its cache
//   attention    causal attention of the rank's query rows over the
//                positions up to them, from the gathered K and V (no state
//                reduce: a query block sees every earlier position), the
//                online softmax in KV tiles, masked where a tile reaches
//                past a query's position
//   attn_gather  the group's whole attention output on every rank (zero-padded
//                rows, all-reduced)
//   o_proj, o_allreduce, o_residual, ffn_norm, gate_up, silu_mul, down,
//   ffn_allreduce, ffn_residual   as in decode, over N rows
// and after the last layer final_norm and lm_head on the last row of each
// prompt (with a sharded residual stream the norm runs on every rank's shard
// of the whole stream, then final_norm_gather; the sharded phases are
// decode's).
#pragma once

#include <vector>

#include "firmware/kernels/transformer_step.h"

namespace kb {
namespace fw {

// Runs on one rank; returns when its part of the step is done. `phases`
// (optional) receives this rank's phase times.
void prefill_step(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases);

// The parts of prefill_step for a driver that sequences them itself (the
// pipeline, transformer_pipeline.h): the layers of `a` (their records and
// layer_done numbered from first_layer), and the final norm and LM head.
// Neither opens IPCQ rings; each releases its TCM when it returns.
void prefill_layers(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases,
                    int first_layer);
void prefill_tail(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases);

}  // namespace fw
}  // namespace kb
