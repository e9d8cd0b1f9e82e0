// The pieces the decode and the prefill step share: one rank's running
// state (which phase, its records), views into HBM tensors, the composite
// GEMM call, and the row-chunked elementwise phases (RMSNorm, the residual
// add) that stream the fp32 residual through TCM within the budget.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "firmware/kernels/transformer_step.h"

namespace kb {
namespace fw {
namespace tx {

struct Step {
  Tl& tl;
  const TransformerStepArgs& a;
  std::vector<PhaseRecord>* phases;
  int64_t B;  // rows of the residual stream (decode: the batch; prefill: batch x tokens)
  int64_t H, G, d;
  DType dt;
  int layer = 0;
  const char* phase = "";
  double t0 = 0;
  Tensor partial;          // TCM when it fits, else a.partial (HBM)
  bool xn_in_tcm = false;  // GEMMs load xn into TCM first
  int64_t xn_chunk = 0;    // else: the GEMMs load xn in chunks of this many columns (0: stream it)
  Shard shard;             // of the flattened stream this rank keeps (sharded residual)

  // Puts `partial` in TCM and decides where the GEMMs take xn from, as the
  // mapping planned (stream_residency, a.xn_chunk_cols).
  Step(Tl& t, const TransformerStepArgs& args, std::vector<PhaseRecord>* ph, int64_t rows);
  void begin(const char* p);
  void end();  // waits for what the phase issued, records it
};

// A view of part of `t`: its own handle, still pending on what produces t
// (so a consumer of the view waits for it as for t).
Tensor view_of(Tl& tl, const Tensor& t, uint64_t byte_offset, Shape shape, int64_t row_stride);
// Rows r0 .. r0+n-1 of a 2-D tensor (the same row stride).
Tensor rows_of(Tl& tl, const Tensor& t, int64_t r0, int64_t n);
// Columns c0 .. c0+n-1 of a 2-D tensor: a strided view.
Tensor cols_of(Tl& tl, const Tensor& t, int64_t c0, int64_t n);

// out = a · b, one composite (non-blocking).
Tensor gemm(Tl& tl, const Tensor& a, const Tensor& b, const Tensor& out);

// Rows processed at once by a row-chunked phase of `total` rows: as many as
// `per_row` bytes of TCM per row allow within the budget.
int64_t chunk_rows(const Step& s, int64_t total, int64_t per_row);

// A run of whole or partial rows of a flattened [rows, H] stream: rows
// [row, row + rows) and columns [col, col + width) of each, `at` elements
// into the span it was cut from.
struct RowPiece {
  int64_t row, rows, col, width, at;
};
// Cuts elements [first, first + n) into at most three pieces: a partial
// first row, whole rows, a partial last row.
std::vector<RowPiece> row_pieces(int64_t first, int64_t n, int64_t H);

// xn = RMSNorm(x) * gamma over `rows` rows of x (HBM) into xn (HBM), chunk by chunk.
void rmsnorm(Step& s, const Tensor& gamma, const Tensor& x, const Tensor& xn, int64_t rows);
// xn = norm(x) * gamma over `rows` rows: s.a.norm when the step has one,
// else rmsnorm.
void norm_rows(Step& s, const Tensor& gamma, const Tensor& x, const Tensor& xn, int64_t rows);
// xn = RMSNorm(x) * gamma (or s.a.norm's) over the whole stream, as phase `norm`: every row
// on every rank, or (sharded residual) the rank's shard, then the shards
// all-gathered as phase `gather`.
void norm_phase(Step& s, const Tensor& gamma, const char* norm, const char* gather);
// x += partial over the stream's rows, chunk by chunk.
void residual(Step& s);
// The GEMMs' a operand: xn, in TCM when it fits (loaded once per GEMM phase).
Tensor xn_operand(Step& s);

// Rows [row0, row0 + rows) of a tiled weight (whole block rows from row0):
// the K-slice a chunk of xn multiplies.
Tensor weight_rows(Tl& tl, const Tensor& w, int64_t row0, int64_t rows);

// One GEMM of xn: out = xn · w.
struct XnGemm {
  const Tensor& w;
  const Tensor& out;
};
// The GEMMs of a phase that all multiply xn, non-blocking: with xn whole in
// TCM (loaded once); or, when streaming it would read it more than once (the
// GEMMs have more than one column of output tiles between them), in K-chunks
// of s.xn_chunk columns (each loaded once, the next while the GEMMs read this
// one; each GEMM adds its chunks' products in an fp32 TCM accumulator, its
// output itself when that is one, and the last chunk's composite writes
// out); or else streamed from HBM.
void xn_gemms(Step& s, std::initializer_list<XnGemm> gemms);

// This rank's QKV columns of every row: xn · W_qkv slice into qkv_mine.
void qkv_projection(Step& s, const LayerShard& w);

// Sums `v` (contiguous) over every rank: the tree, or cube_allreduce.
void allreduce_all(Step& s, const Tensor& v);

// Two phases: the row-parallel partial sums all-reduced over every rank
// (`allreduce_phase`; sharded residual: reduce-scattered, `scatter_phase`),
// then added to the residual stream (`residual_phase`; sharded: its shard).
void sum_into_stream(Step& s, const char* allreduce_phase, const char* scatter_phase,
                     const char* residual_phase);
// The peers whose messages sum_into_stream adds in: with the partial sums
// outside TCM, each stages through TCM while the collective runs (see
// tree_reduce_sources).
std::vector<PeAddr> stream_reduce_sources(const TransformerStepArgs& a);
// The gate_up phase: gate, up = xn · W_gate, W_up slices.
void gate_up(Step& s, const LayerShard& w, const Tensor& gate, const Tensor& up);
// Every layer of s.a with `layer`, records and layer_done numbered from first_layer.
void run_layers(Step& s, int first_layer, void (*layer)(Step&, const LayerShard&));

// Every peer this rank receives from in the collectives over all ranks and
// over its group (uses a.ranks, a.rank, a.group, a.group_rank and the
// all-reduce's shape), and `also`: each once, in address order.
std::vector<PeAddr> ring_sources(const TransformerStepArgs& a,
                                 const std::vector<PeAddr>& also = {});
// Opens the IPCQ rings of ring_sources(a, also).
void open_rings(Tl& tl, const TransformerStepArgs& a, const std::vector<PeAddr>& also = {});

}  // namespace tx
}  // namespace fw
}  // namespace kb
