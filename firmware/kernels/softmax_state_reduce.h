// The partial online-softmax state of a sequence-parallel attention, and
// its reduce to a root over PE_IPCQ with the log-sum-exp merge.
//
// Ranks of a sequence-parallel group each hold (m, l, O) over their own KV
// positions; merging two states is exact (nine MATH ops):
//   m = max(m1, m2); a = exp(m1 - m); b = exp(m2 - m);
//   l = l1*a + l2*b;  O = O1*a + O2*b.
// A reduce level passes packed states up a binomial tree (or a chain) to
// rank 0, which then holds the state over every rank's positions.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "firmware/kernels/attention_decode.h"
#include "firmware/tl.h"

namespace kb {
namespace fw {

enum class ReduceShape { kTree, kChain };

// A partial state packed in one contiguous TCM buffer [m: R][l: R][O: R x d]
// (fp32), so that it travels as one IPCQ message. views(first, n) are the
// tensors of rows first..first+n-1.
struct PackedState {
  Tensor all;
  int64_t rows = 0, d = 0;

  static PackedState make(Tl& tl, int64_t rows, int64_t d) {
    PackedState p;
    p.all = tl.empty({rows * (d + 2)}, DType::kFp32);
    p.rows = rows;
    p.d = d;
    return p;
  }
  uint64_t at(int64_t float_index) const {
    return all.addr() + static_cast<uint64_t>(float_index) * 4;
  }
  Tensor m(Tl& tl, int64_t first, int64_t n) const {
    return tl.ref(at(first), {n, 1}, DType::kFp32);
  }
  Tensor l(Tl& tl, int64_t first, int64_t n) const {
    return tl.ref(at(rows + first), {n, 1}, DType::kFp32);
  }
  Tensor o(Tl& tl, int64_t first, int64_t n) const {
    return tl.ref(at(2 * rows + first * d), {n, d}, DType::kFp32);
  }
  SoftmaxState state(Tl& tl, int64_t first, int64_t n) const {
    return {m(tl, first, n), l(tl, first, n), o(tl, first, n)};
  }
};

// dst <- the log-sum-exp merge of dst and src (same rows); x is scratch.
void lse_merge(Tl& tl, SoftmaxState& dst, const SoftmaxState& src, const SweepBuffers::Scratch& x);

// The members that send to `me` and the one `me` sends to (or -1) in a
// reduce-to-root over ranks 0..n-1 (root 0).
struct ReduceRole {
  std::vector<unsigned> from;  // in the order their states are merged
  int to = -1;
};

ReduceRole reduce_role(ReduceShape shape, unsigned me, unsigned n);

// One level of the reduce over ranks 0..n-1 (this rank is `me`; addr maps a
// rank to its PE): receive and merge every child's packed state into `own`
// (whole rows), then pass it up. Returns true when this rank is the level's
// root. The children's rings must be open (reduce_role(...).from).
bool reduce_level(Tl& tl, ReduceShape shape, unsigned me, unsigned n,
                  const std::function<PeAddr(unsigned)>& addr, PackedState& own);

}  // namespace fw
}  // namespace kb
