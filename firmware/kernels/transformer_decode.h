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
// Collectives are binomial trees (tree_allreduce, tree_broadcast) over the
// ranks in (SIP, cube, PE) order, so their low levels stay inside a cube.
// Gathering a group's QKV slices is an all-reduce of a vector that is zero
// outside each rank's own columns.
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
// and after the last layer final_norm and lm_head.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "firmware/kernels/attention_decode.h"
#include "firmware/tl.h"

namespace kb {
namespace fw {

struct TransformerShape {
  int64_t hidden = 0, heads = 0, kv_heads = 0, d_head = 0, ffn = 0;
  double norm_eps = 1e-5;
  DType dtype = DType::kFp16;  // weights, KV cache, GEMM inputs
  int64_t group() const { return heads / kv_heads; }
  int64_t qkv_width() const { return (group() + 2) * d_head; }  // one group's QKV columns
};

// [first, first + count) of a dimension.
struct Slice {
  int64_t first = 0, count = 0;
};

// One layer's shards on one rank, all in its own HBM.
struct LayerShard {
  Tensor norm_attn, norm_ffn;  // [1, hidden] fp32
  Tensor wqkv;                 // [hidden, qkv.count]
  Tensor wo;                   // [o.count, hidden]
  Tensor wgate, wup;           // [hidden, ffn.count]
  Tensor wdown;                // [ffn.count, hidden]
  // Per sequence: this rank's KV block, kt [d, kv.count] and v [kv.count, d]
  // (the new position included when this rank holds it).
  std::vector<KvSegment> kv;
};

struct DecodeStepArgs {
  TransformerShape shape;
  int64_t batch = 1;
  int64_t pos = 0;  // the new token's position (= tokens already in the cache)

  std::vector<PeAddr> ranks;  // every rank, in (SIP, cube, PE) order
  unsigned rank = 0;          // this one's index in ranks
  std::vector<PeAddr> group;  // the ranks of this one's KV head
  unsigned group_rank = 0;    // its index in group

  Slice qkv;    // of the group's qkv_width() columns
  Slice o;      // of the group's G * d attention features
  Slice ffn;    // of the ffn columns
  Slice vocab;  // of the LM head columns
  Slice kv;     // of the pos + 1 positions

  std::vector<LayerShard> layers;
  Tensor final_norm;  // [1, hidden] fp32
  Tensor lm_head;     // [hidden, vocab.count]

  // Activations, in this rank's HBM.
  Tensor x;           // [batch, hidden] fp32: the input embeddings; the residual stream
  Tensor xn;          // [batch, hidden] dtype: normalised x
  Tensor qkv_mine;    // [batch, qkv_width] fp32, zero outside this rank's columns
  Tensor partial;     // [batch, hidden] fp32: a row-parallel layer's partial sums
  Tensor rope;        // [d, d] dtype: row · rope rotates a head row to position pos
  Tensor logits;      // [batch, vocab.count] fp32
  int64_t tile = 64;  // KV positions per attention tile
  // Sequences whose attention states are reduced together (0 = the whole
  // batch): fewer keep a large batch's states inside the TCM.
  int64_t attn_chunk = 0;
  std::string variant = "opt2";
  uint64_t tcm_budget = 0;              // TCM this kernel may use for one phase's buffers
  std::function<void(int)> layer_done;  // optional: called after each layer
};

// When each phase of each layer started and ended on this rank (ns).
struct PhaseRecord {
  int layer;  // -1: after the last layer
  const char* phase;
  double start_ns, end_ns;
};

// Runs on one rank; returns when its part of the step is done. `phases`
// (optional) receives this rank's phase times.
void decode_step(Tl& tl, const DecodeStepArgs& a, std::vector<PhaseRecord>* phases);

// The op class a phase counts towards: gemm, attention, allreduce,
// norm_elementwise.
const char* phase_class(const std::string& phase);

}  // namespace fw
}  // namespace kb
