#include "firmware/kernels/attention_long_decode.h"

#include <functional>
#include <stdexcept>

namespace kb {
namespace fw {

DecodeCase decode_case(int n) {
  switch (n) {
    case 1:
      return {CubeSplit::kSp, PeSplit::kTp};
    case 2:
      return {CubeSplit::kRepl, PeSplit::kTp};
    case 3:
      return {CubeSplit::kRepl, PeSplit::kSp};
    case 4:
      return {CubeSplit::kSp, PeSplit::kSp};
    default:
      throw std::invalid_argument(
          "case " + std::to_string(n) +
          " does not exist: the cases are 1 (Cube-SP x PE-TP), 2 "
          "(Cube-Repl x PE-TP), 3 (Cube-Repl x PE-SP), 4 (Cube-SP x PE-SP)");
  }
}

std::string to_string(const DecodeCase& c) {
  return std::string(c.cube == CubeSplit::kSp ? "Cube-SP" : "Cube-Repl") + " x " +
         (c.pe == PeSplit::kSp ? "PE-SP" : "PE-TP");
}

int64_t block_positions(const DecodeCase& c, int64_t s_kv, unsigned cubes, unsigned pes) {
  const int64_t per_cube = c.cube == CubeSplit::kSp ? s_kv / cubes : s_kv;
  return per_cube / pes;
}

namespace {

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

// The members that send to `me` and the one `me` sends to (or -1) in a
// reduce-to-root over ranks 0..n-1 (root 0).
struct ReduceRole {
  std::vector<unsigned> from;  // in the order their states are merged
  int to = -1;
};

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

}  // namespace

void attention_long_decode(Tl& tl, const LongDecodeArgs& a) {
  const PeAddr me = tl.self();
  const AttnPlacement& at = a.at;
  const unsigned k = me.cube - at.cube_start, p = me.pe - at.pe_start;
  if (me.sip != at.sip || k >= at.cubes || p >= at.pes)
    throw std::invalid_argument("attention_long_decode: " + to_string(me) +
                                " is not a rank of this placement");
  const int64_t G = a.q.at(k).shape()[0], d = a.q.at(k).shape()[1];
  const bool tp = a.mode.pe == PeSplit::kTp;
  const bool cube_sp = a.mode.cube == CubeSplit::kSp;
  if (tp && G % at.pes != 0)
    throw std::invalid_argument("attention_long_decode: PE-TP needs G=" + std::to_string(G) +
                                " query heads to divide over P=" + std::to_string(at.pes) + " PEs");
  const int64_t rows = tp ? G / at.pes : G;  // the query rows this rank computes
  const int64_t row0 = tp ? rows * p : 0;

  // Who sends to this rank: open their rings first, so the grants overlap the sweep.
  std::vector<PeAddr> peers;
  auto in_cube = [&](unsigned q) { return at.rank(k, q); };
  auto cube_root = [&](unsigned c) { return at.rank(c, 0); };
  if (tp) {
    if (p == 0)
      for (unsigned q = 1; q < at.pes; ++q) peers.push_back(in_cube(q));
  } else {
    for (unsigned q : reduce_role(a.intra, p, at.pes).from) peers.push_back(in_cube(q));
  }
  if (cube_sp && p == 0)
    for (unsigned c : reduce_role(ReduceShape::kTree, k, at.cubes).from)
      peers.push_back(cube_root(c));
  if (!peers.empty()) tl.ipcq_open(peers);

  // The sweep over this rank's KV.
  SweepArgs sa;
  const Tensor& q = a.q[k];
  sa.q = tl.load(tl.ref(q.addr() + static_cast<uint64_t>(row0 * d) * 2, {rows, d}, DType::kFp16));
  if (tp)
    sa.kv = a.kv.at(k);
  else
    sa.kv = {a.kv.at(k).at(p)};
  sa.tile = a.tile;
  sa.scale = a.scale;
  sa.variant = a.variant;
  SweepBuffers buf = make_sweep_buffers(tl, rows, a.tile);
  // The cube root of a PE-TP group keeps room for every PE's rows.
  PackedState own = PackedState::make(tl, tp && p == 0 ? G : rows, d);
  SoftmaxState st = own.state(tl, 0, rows);
  attention_sweep(tl, sa, buf, st, nullptr);
  tl.wait();

  // Level 2: inside the cube, to PE 0.
  if (tp) {
    if (p > 0) {
      // m, l and O rows travel as three messages into their place at the root.
      tl.send(in_cube(0), st.m);
      tl.send(in_cube(0), st.l);
      tl.send(in_cube(0), st.o);
      tl.wait();
      return;
    }
    for (unsigned q = 1; q < at.pes; ++q) {
      tl.recv_async(in_cube(q), own.m(tl, rows * q, rows));
      tl.recv_async(in_cube(q), own.l(tl, rows * q, rows));
      tl.recv_async(in_cube(q), own.o(tl, rows * q, rows));
    }
    tl.wait();
  } else if (!reduce_level(tl, a.intra, p, at.pes, in_cube, own)) {
    return;
  }

  // Level 1: across the cube roots, to cube 0 (Cube-SP).
  if (cube_sp && !reduce_level(tl, ReduceShape::kTree, k, at.cubes, cube_root, own)) return;

  // The root (and, under Cube-Repl, every cube's PE 0) normalises; only cube 0 writes O.
  SoftmaxState full = own.state(tl, 0, G);
  Tensor linv = tl.math("recip", {full.l}, {}, tl.empty({G, 1}, DType::kFp32));
  Tensor on = tl.math("mul_bcast", {full.o, linv}, {{"bcast_axis", int64_t{1}}}, full.o);
  if (k == 0) tl.store(a.out, on);
  tl.wait();
}

}  // namespace fw
}  // namespace kb
