// Sequence- and tensor-parallel GQA decode of one KV head over a group of
// C cubes x P PEs (long context), with a two-level
// reduce-to-root of the partial online-softmax state (m, l, O).
//
// The KV cache of the head lies in contiguous C x P blocks: the cube level
// either splits the sequence (Cube-SP: cube k holds positions
// [k*S/C, (k+1)*S/C)) or replicates it (Cube-Repl: every cube holds all S);
// inside a cube the cube's positions lie in P contiguous blocks, block p in
// PE p's HBM. Rank (k, p) then works as its PE level says:
//   PE-SP  all G query heads (folded into M) over its own block;
//   PE-TP  G/P query heads over every block of its cube (it streams its
//          neighbours' blocks through the cube router).
// Every rank runs attention_sweep() (opt2 by default) into a partial state,
// then the state travels to the root over PE_IPCQ:
//   level 2, inside each cube to PE 0: PE-SP merges states pairwise with the
//     log-sum-exp rule (a binomial tree, or a chain for short-context groups);
//     PE-TP gathers each PE's rows (disjoint heads, nothing to merge);
//   level 1, Cube-SP only, across the cube roots to cube 0 (binomial tree,
//     log-sum-exp merge). Cube-Repl has no level 1: every cube already has
//     the whole result, as a cube-parallel out-projection wants it.
// The root (cube 0's PE 0) divides O by l and alone writes O.
//
// The log-sum-exp merge of (m1, l1, O1) with (m2, l2, O2), nine MATH ops:
//   m = max(m1, m2); a = exp(m1 - m); b = exp(m2 - m);
//   l = l1*a + l2*b;  O = O1*a + O2*b.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "firmware/kernels/attention_decode.h"
#include "firmware/kernels/softmax_state_reduce.h"
#include "firmware/tl.h"

namespace kb {
namespace fw {

enum class CubeSplit { kSp, kRepl };
enum class PeSplit { kTp, kSp };

// The four parallelism cases of the long-context study:
//   1 Cube-SP x PE-TP, 2 Cube-Repl x PE-TP, 3 Cube-Repl x PE-SP, 4 Cube-SP x PE-SP.
struct DecodeCase {
  CubeSplit cube = CubeSplit::kSp;
  PeSplit pe = PeSplit::kSp;
};
DecodeCase decode_case(int n);               // throws std::invalid_argument outside 1..4
std::string to_string(const DecodeCase& c);  // e.g. "Cube-SP x PE-TP"

// The ranks of one KV head: cubes cube_start .. cube_start+C-1 of SIP `sip`,
// PEs pe_start .. pe_start+P-1 of each.
struct AttnPlacement {
  unsigned sip = 0, cube_start = 0, cubes = 1, pe_start = 0, pes = 1;
  PeAddr rank(unsigned k, unsigned p) const { return {sip, cube_start + k, pe_start + p}; }
};

struct LongDecodeArgs {
  AttnPlacement at;
  DecodeCase mode;
  ReduceShape intra = ReduceShape::kTree;  // level 2 of PE-SP
  int64_t tile = 64;
  double scale = 0;
  std::string variant = "opt2";
  std::vector<Tensor> q;                   // per cube k: [G, d] fp16 in rank (k, 0)'s HBM
  std::vector<std::vector<KvSegment>> kv;  // [k][p]: block p of cube k, in rank (k, p)'s HBM
  Tensor out;                              // [G, d] fp32, written by the root only
};

// Runs on every rank of args.at; returns when this rank's part is done.
void attention_long_decode(Tl& tl, const LongDecodeArgs& args);

// The KV positions [first, first + count) of rank (k, p): Cube-SP cuts the
// S_kv positions into C near-equal contiguous parts (Cube-Repl gives every
// cube all of them), and each cube's part is cut into P near-equal blocks, so
// any S_kv works (blocks differ by at most one position).
struct KvBlock {
  int64_t first = 0, count = 0;
};
KvBlock kv_block(const DecodeCase& c, int64_t s_kv, unsigned cubes, unsigned pes, unsigned k,
                 unsigned p);
// The largest block's positions.
int64_t block_positions(const DecodeCase& c, int64_t s_kv, unsigned cubes, unsigned pes);

}  // namespace fw
}  // namespace kb
