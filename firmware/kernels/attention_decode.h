// Grouped-query attention decode for one KV-head group on one PE (gqa): G query heads folded into
// the GEMM M dimension, d_head columns, a KV cache of S_kv positions in HBM walked in tiles of T
// positions with the online softmax. K is kept transposed in HBM (KT [d, S_kv]) so the score GEMM
// Q·Kᵀ reads a [d, T] tile directly; V is [S_kv, d].
//
// Variants (per KV tile j):
//   opt1  composite #1 S = (Q·K_jᵀ)·scale; the online softmax merge with
//         eight primitive MATH commands; composite O = O + P·V_j.
//   opt3  opt1 software-pipelined: tile j+1's #1 is issued before tile j's
//         softmax, scores double-buffered.
//   opt2  two composites: #1 as above; #2 = softmax_merge(S, m, l, O)
//         prologue + P·V_j + add epilogue into O (rw_handles m, l, O).
// Tile 0 establishes (m, l, O) with primitives in every variant: m = rmax(S),
// P = exp(S - m), l = rsum(P), O = P·V_0. The output is O / l, in HBM.
//
// attention_sweep() is the loop alone, over KV held in one or more segments
// (a rank of a sequence-parallel group walks its own shard; a tensor-parallel
// rank walks every shard of its cube), leaving the unnormalised partial
// state (m, l, O) for a log-sum-exp reduce (attention_long_decode.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/tl.h"

namespace kb {
namespace fw {

struct DecodeArgs {
  Tensor q;    // [G, d] fp16, HBM
  Tensor kt;   // [d, S_kv] fp16, HBM
  Tensor v;    // [S_kv, d] fp16, HBM
  Tensor out;  // [G, d] fp32, HBM
  int64_t tile = 64;
  double scale = 0;  // 1/sqrt(d)
  std::string variant = "opt2";
};

// What the kernel issued, per KV tile (for dispatch accounting).
struct DecodeTrace {
  std::vector<std::vector<CommandHandle>> per_tile;
  std::vector<CommandHandle> composite2;  // opt2: each tile's #2 (tiles >= 1)
};

void attention_decode(Tl& tl, const DecodeArgs& args, DecodeTrace* trace);

// A contiguous run of KV positions: kt [d, n] (K transposed, any row
// stride) and v [n, d], in HBM; any n > 0 (the last tile of a segment is
// short when n is not a multiple of the tile: a masked last tile). Either may be
// tiled in the GEMM's native blocks (kt with its blocks in column-major grid
// order, v in row-major order), so that every KV tile is whole blocks and
// streams as contiguous runs; the tile is then a multiple of the blocks.
struct KvSegment {
  Tensor kt, v;
};

// The running online-softmax state of G query rows: m, l [G, 1] and the
// unnormalised O [G, d], fp32 in TCM. Its tensors carry the pending command
// that last updated them.
struct SoftmaxState {
  Tensor m, l, o;
};

// The per-tile TCM buffers of the sweep: scores and merge scratch, two of each.
struct SweepBuffers {
  struct Scratch {
    Tensor m_loc, m_new, corr, l_loc, p;
  };
  std::array<Tensor, 2> s;
  std::array<Scratch, 2> x;
};
SweepBuffers make_sweep_buffers(Tl& tl, int64_t rows, int64_t tile);

struct SweepArgs {
  Tensor q;  // [G, d] in TCM
  std::vector<KvSegment> kv;
  int64_t tile = 64;
  double scale = 0;
  std::string variant = "opt2";
};

// Walks every KV tile of args.kv in order; `st` receives (m, l, O) over them.
void attention_sweep(Tl& tl, const SweepArgs& args, SweepBuffers& buf, SoftmaxState& st,
                     DecodeTrace* trace);

}  // namespace fw
}  // namespace kb
