#include "firmware/kernels/softmax_state_reduce.h"

namespace kb {
namespace fw {

// dst <- the log-sum-exp merge of dst and src (same rows); x is scratch.
void lse_merge(Tl& tl, SoftmaxState& dst, const SoftmaxState& src, const SweepBuffers::Scratch& x) {
  const Tensor& m_new = x.m_new;
  const Tensor& a = x.corr;
  const Tensor& b = x.m_loc;
  const Tensor& lb = x.l_loc;
  tl.math("max_elem", {dst.m, src.m}, {}, m_new);
  tl.math("exp_diff", {dst.m, m_new}, {}, a);
  tl.math("exp_diff", {src.m, m_new}, {}, b);
  tl.math("mul", {src.l, b}, {}, lb);
  dst.l = tl.math("fma", {dst.l, a, lb}, {}, dst.l);
  dst.o = tl.math("mul_bcast", {dst.o, a}, {{"bcast_axis", int64_t{1}}}, dst.o);
  const Tensor ob = tl.math("mul_bcast", {src.o, b}, {{"bcast_axis", int64_t{1}}}, src.o);
  dst.o = tl.math("add", {dst.o, ob}, {}, dst.o);
  dst.m = tl.math("copy", {m_new}, {}, dst.m);
}

ReduceRole reduce_role(ReduceShape shape, unsigned me, unsigned n) {
  ReduceRole r;
  if (shape == ReduceShape::kChain) {
    if (me + 1 < n) r.from.push_back(me + 1);
    if (me > 0) r.to = static_cast<int>(me - 1);
    return r;
  }
  for (unsigned k = 1; k < n; k *= 2) {  // binomial tree
    if (me % (2 * k) == k) {
      r.to = static_cast<int>(me - k);
      break;
    }
    if (me + k < n) r.from.push_back(me + k);
  }
  return r;
}

// One level of the reduce: receive and merge every child's packed state into
// `own` (whole rows), then pass it up. Returns true when this rank is the
// level's root.
bool reduce_level(Tl& tl, ReduceShape shape, unsigned me, unsigned n,
                  const std::function<PeAddr(unsigned)>& addr, PackedState& own) {
  const ReduceRole role = reduce_role(shape, me, n);
  SoftmaxState st = own.state(tl, 0, own.rows);
  SweepBuffers::Scratch x;
  if (!role.from.empty()) {
    x.m_new = tl.empty({own.rows, 1}, DType::kFp32);
    x.corr = tl.empty({own.rows, 1}, DType::kFp32);
    x.m_loc = tl.empty({own.rows, 1}, DType::kFp32);
    x.l_loc = tl.empty({own.rows, 1}, DType::kFp32);
  }
  for (unsigned child : role.from) {
    PackedState in = PackedState::make(tl, own.rows, own.d);
    in.all = tl.recv_async(addr(child), in.all);
    tl.wait(in.all);
    lse_merge(tl, st, in.state(tl, 0, own.rows), x);
  }
  tl.wait();
  if (role.to < 0) return true;
  tl.wait(tl.send(addr(static_cast<unsigned>(role.to)), own.all));
  return false;
}

}  // namespace fw
}  // namespace kb
