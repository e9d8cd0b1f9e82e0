// One decode step of a Llama-style transformer, tensor parallel over a list
// of PEs: every rank runs decode_step() on its own shards, and the ranks meet
// in PE_IPCQ collectives.
//
// The mapping (built by the host, platform/llm/llm_mapping.h):
//   - the ranks are split into kv_heads groups of R consecutive ranks; group
//     h serves KV head h and its G = heads / kv_heads query heads;
//   - QKV is column parallel inside a group: the group's (G + 2) * d columns
//     (its G query heads, then its K head, then its V head) are cut into R
//     contiguous slices, one per rank;
//   - the attention is sequence parallel inside a group: the context's
//     positions lie in R contiguous blocks, block r in rank r's HBM; every
//     rank sweeps its block (attention_sweep, the online softmax) for every
//     sequence of the batch, and the partial states meet at the group's first
//     rank with the log-sum-exp merge (softmax_state_reduce.h);
//   - O is row parallel: each rank multiplies its slice of the group's
//     G * d attention features by its rows of W_o, and an all-reduce over
//     every rank sums the partial outputs;
//   - FFN gate and up are column parallel over every rank, SiLU(gate) * up
//     stays local, down is row parallel on the same slice, then the second
//     all-reduce;
//   - the LM head is vocabulary parallel: each rank computes its slice of the
//     logits, which stay where they are (sampling is not modelled).
// Collectives run over the ranks in (SIP, cube, PE) order, so their low
// levels stay inside a cube: the all-reduces over every rank as
// TransformerStepArgs says, the attention's reduce and broadcast in the
// group as binomial trees (tree_broadcast, reduce_level). Gathering a
// group's QKV slices is an all-reduce (list_allreduce: halving and doubling
// over a power of two of ranks) of a vector that is zero outside each
// rank's own columns.
//
// Per layer, on every rank (a phase waits for what it issued before the
// next starts; the residual stream is fp32, GEMMs accumulate in fp32):
//   attn_norm   xn = RMSNorm(x) * g_attn
//   qkv         this rank's QKV columns = xn * W_qkv slice
//   qkv_gather  the group's whole QKV row, on every rank of the group
//   rope        every head row rotated to the step's position (a GEMM with
//               the position's rotation matrix)
//   kv_append   the rank holding the new position writes its K column and V row
//   attention   sweep of the rank's KV block per sequence, the log-sum-exp
//               reduce to the group's first rank (attn_chunk sequences at a
//               time), O / l there, broadcast
//   o_proj      partial = attention slice * W_o rows
//   o_allreduce partial summed over every rank
//   o_residual  x += partial
//   ffn_norm    xn = RMSNorm(x) * g_ffn
//   gate_up     gate, up = xn * W_gate, W_up slices
//   silu_mul    h = SiLU(gate) * up
//   down        partial = h * W_down rows
//   ffn_allreduce, ffn_residual
// and after the last layer final_norm and lm_head. With a sharded residual
// stream (TransformerStepArgs::sharded_residual) each norm works on the
// rank's shard and is followed by its all-gather (attn_norm_gather,
// ffn_norm_gather, final_norm_gather), the two all-reduces are
// reduce-scatters (o_reduce_scatter, ffn_reduce_scatter), and the residual
// adds cover the shard only.
#pragma once

#include <vector>

#include "firmware/kernels/transformer_step.h"

namespace kb {
namespace fw {

// Runs on one rank; returns when its part of the step is done. `phases`
// (optional) receives this rank's phase times.
void decode_step(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases);

// The parts of decode_step for a driver that sequences them itself (the
// pipeline, transformer_pipeline.h): the layers of `a` (their records and
// layer_done numbered from first_layer), and the final norm and LM head.
// Neither opens IPCQ rings; each releases its TCM when it returns.
void decode_layers(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases,
                   int first_layer);
void decode_tail(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases);

}  // namespace fw
}  // namespace kb
