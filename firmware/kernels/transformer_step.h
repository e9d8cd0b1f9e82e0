// What every rank of a tensor-parallel transformer step holds and is told:
// the model's shape, its slices of each layer's weights, its activations,
// and the phase records the bench reads back. The decode step
// (transformer_decode.h) and the prefill step (transformer_prefill.h) run
// on these; the mapping that fills them in is platform/llm/llm_mapping.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "firmware/kernels/allreduce.h"
#include "firmware/kernels/attention_decode.h"
#include "firmware/kernels/transformer_phases.h"
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

// When each phase of each layer started and ended on this rank (ns).
struct PhaseRecord {
  int layer;  // -1: after the last layer
  const char* phase;
  double start_ns, end_ns;
};

// What a norm kernel of one's own is given, in place of the step's RMSNorm:
// normalise `rows` rows of x (fp32, in HBM; a view whose rows may be strided,
// cut with rows_of) into xn (`dtype`, in HBM, rows as strided as x's), scaled
// by gamma ([1, hidden] fp32, in HBM: the layer's norm weights), keeping its
// TCM for one phase's buffers within tcm_budget bytes.
struct NormCall {
  Tl& tl;
  const Tensor& gamma;
  const Tensor& x;
  const Tensor& xn;
  int64_t rows = 0, hidden = 0;
  double eps = 0;  // the model's norm_eps
  DType dtype = DType::kFp16;
  uint64_t tcm_budget = 0;
};
// A norm kernel: returns once every row of xn is stored. The llm bench takes
// one by name (--param norm=NAME; platform/llm/norm_kernels.h registers it).
using NormKernel = std::function<void(const NormCall&)>;

struct TransformerStepArgs {
  TransformerShape shape;
  int64_t batch = 1;
  int64_t pos = 0;     // decode: the new token's position (= tokens already in the cache)
  int64_t tokens = 1;  // rows per sequence: 1 for decode, the prompt's length for prefill

  std::vector<PeAddr> ranks;  // every rank, in (SIP, cube, PE) order
  unsigned rank = 0;          // this one's index in ranks
  std::vector<PeAddr> group;  // the ranks of this one's KV head
  unsigned group_rank = 0;    // its index in group

  Slice qkv;    // of the group's qkv_width() columns
  Slice o;      // of the group's G * d attention features
  Slice ffn;    // of the ffn columns
  Slice vocab;  // of the LM head columns
  Slice kv;     // of the pos + 1 positions (prefill: of the prompt's, and its query rows)

  std::vector<LayerShard> layers;
  Tensor final_norm;  // [1, hidden] fp32
  Tensor lm_head;     // [hidden, vocab.count]

  // Activations, in this rank's HBM; N = batch * tokens rows, sequence by
  // sequence.
  Tensor x;         // [N, hidden] fp32: the input embeddings; the residual stream
  Tensor xn;        // [N, hidden] dtype: normalised x
  Tensor qkv_mine;  // [N, qkv_width] fp32, zero outside this rank's columns
  Tensor partial;   // [N, hidden] fp32: a row-parallel layer's partial sums
  // Decode: [d, d] dtype, row · rope rotates a head row to position pos.
  // Prefill: [d, d] dtype, the rotate-half matrix (row · rope = the row's
  // pairs (i, i + d/2) as (-x[i + d/2], x[i])).
  Tensor rope;
  Tensor logits;  // [batch, vocab.count] fp32 (prefill: of each prompt's last token)

  // Prefill only, all in HBM.
  Tensor rope_cos, rope_sin;  // [tokens * (G + 2), d] fp32: per (position, head) row; V rows 1, 0
  Tensor qkv_rows;            // [N * (G + 2), d] dtype: the group's gathered QKV rows
  Tensor rot_rows;            // ... rotated
  Tensor attn_mine;           // [N, G * d] fp32: this rank's query rows, zero elsewhere
  Tensor attn_rows;           // [N, G * d] dtype: the group's whole attention output
  Tensor gate, up;            // [N, ffn.count] fp32
  Tensor h;                   // [N, ffn.count] dtype: SiLU(gate) * up

  // The all-reduces over every rank: 0 = binomial tree; P = cube_allreduce
  // with P consecutive ranks per cube, summing across the cubes as
  // `allreduce_across` says (allreduce.h).
  unsigned allreduce_per_cube = 0;
  CrossCube allreduce_across = CrossCube::kTree;
  // The residual stream sequence parallel: each rank keeps only its shard
  // (cube_shard) of the flattened [N, hidden] stream up to date. A
  // row-parallel layer's partial sums are reduce-scattered (not
  // all-reduced), the residual add and the RMSNorm run on the shard (the
  // norm's per-row sums of squares all-reduced over every rank), and the
  // normalised shards are all-gathered in dtype before the next GEMM.
  // Needs the hierarchical all-reduce with the halving across the cubes.
  bool sharded_residual = false;
  Tensor row_zeros;   // [N] fp32, zeros: the sums of squares start from it
  int64_t tile = 64;  // KV positions per attention tile
  // Sequences whose attention states are reduced together (0 = the whole
  // batch): fewer keep a large batch's states inside the TCM.
  int64_t attn_chunk = 0;
  std::string variant = "opt2";
  uint64_t tcm_budget = 0;  // TCM this kernel may use for one phase's buffers
  // What the step may keep in TCM across phases, as the mapping planned it
  // (stream_residency below): the row-parallel layers' partial sums stay in
  // TCM when they take at most partial_tcm_limit bytes (else they go to
  // `partial` in HBM); the GEMM phases load xn into TCM when it, with the
  // partial sums kept there, takes at most xn_tcm_limit; else they load xn
  // in K-chunks of xn_chunk_cols columns (stream_residency), or with 0
  // stream it from HBM, a row of each native tile per DMA burst.
  uint64_t partial_tcm_limit = 0;
  uint64_t xn_tcm_limit = 0;
  int64_t xn_chunk_cols = 0;
  // Optional: runs every norm of the step (each layer's two and the final
  // one) in place of the RMSNorm; needs the replicated residual stream.
  NormKernel norm;
  std::function<void(int)> layer_done;  // optional: called after each layer
  // Optional: the layers to run, read before each one; the host may lower it
  // while the step runs (the llm bench's layer extension: docs/ARCHITECTURE.md).
  const int64_t* layer_limit = nullptr;
  // Optional: called on this rank as each of its phases ends, with its record.
  std::function<void(const PhaseRecord&)> phase_done;
};

// Where a step of `rows` stream rows keeps its partial sums and, in the
// GEMM phases, xn (TransformerStepArgs::partial_tcm_limit, xn_tcm_limit).
// When xn does not fit whole, the GEMM phases load it in K-chunks of
// xn_chunk_cols columns: two chunk buffers (one loading while the GEMMs read
// the other) and an fp32 accumulator of `acc_cols` columns (the widest output
// a phase accumulates outside its own buffers) fit xn_tcm_limit beside the
// partial sums kept in TCM; a multiple of `align` (the weights' block rows),
// or 0 when not even `align` columns fit (the GEMMs stream xn from HBM).
// With xn whole in TCM, xn_chunk_cols is the hidden width.
struct StreamResidency {
  bool partial_in_tcm = false;
  bool xn_in_tcm = false;
  int64_t xn_chunk_cols = 0;
};
StreamResidency stream_residency(int64_t rows, int64_t hidden, DType dtype,
                                 uint64_t partial_tcm_limit, uint64_t xn_tcm_limit,
                                 int64_t acc_cols = 0, int64_t align = 0);

}  // namespace fw
}  // namespace kb
