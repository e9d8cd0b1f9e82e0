// Ring-KV attention prefill (long context): one query head per
// cube, C cubes, the KV of the head's S positions sharded in contiguous
// blocks of S/C (block c in cube c's rank), rotated around the cubes over
// PE_IPCQ.
//
// The queries are a chunk of T_q new tokens at positions S-T_q .. S-1 (the
// prompt's last chunk; the KV includes it), so position S-T_q+i attends to
// positions <= itself: KV tiles that reach past S-T_q get the causal mask.
//
// Tile-granular ring: for each tile index t, the C tiles t of the C blocks
// circulate: at ring step k, cube c computes with tile t of block (c-k) mod C
// and passes it on to cube c+1; every tile visits all C ranks before the next
// tile index starts. One send and one receive are in flight per direction:
// the tile for step k+1 is being received while step k computes, into the
// other of two TCM buffers. The running (m, l, O) of the T_q rows persists
// across steps; each step's scratch (scores, merge temporaries) lives in a
// scratch_scope, and the bootstrap step persists its state with copy_to, so
// TCM use is bounded by the tile and T_q, whatever S is.
#pragma once

#include <cstdint>
#include <vector>

#include "firmware/tl.h"

namespace kb {
namespace fw {

struct RingPrefillArgs {
  std::vector<PeAddr> ranks;  // rank c: the cube of query head c, in ring order
  std::vector<Tensor> q;      // per rank: [T_q, d] fp16 in its HBM
  std::vector<Tensor> kt;     // per rank: its block of K transposed [d, S/C] fp16, HBM
  std::vector<Tensor> v;      // per rank: its block of V [S/C, d] fp16, HBM
  std::vector<Tensor> out;    // per rank: [T_q, d] fp32, HBM
  int64_t s = 0;              // total KV positions
  int64_t tile = 64;
  double scale = 0;
};

// Runs on every rank; returns when this rank's output is written.
void attention_ring_prefill(Tl& tl, const RingPrefillArgs& args);

}  // namespace fw
}  // namespace kb
