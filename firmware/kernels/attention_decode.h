// Grouped-query attention decode for one KV-head group on one PE (SPEC §5
// gqa): G query heads folded into the GEMM M dimension, d_head columns, a KV
// cache of S_kv positions in HBM walked in tiles of T positions with the
// online softmax. K is kept transposed in HBM (KT [d, S_kv]) so the score
// GEMM Q·Kᵀ reads a [d, T] tile directly; V is [S_kv, d].
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
#pragma once

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

}  // namespace fw
}  // namespace kb
