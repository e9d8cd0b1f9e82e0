#include "firmware/kernels/attention_ring_prefill.h"

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace kb {
namespace fw {

namespace {

struct Ring {
  unsigned c = 0, size = 1;
  PeAddr left, right;
};

Ring ring_of(const RingPrefillArgs& a, const PeAddr& me) {
  Ring r;
  r.size = static_cast<unsigned>(a.ranks.size());
  for (unsigned i = 0; i < r.size; ++i)
    if (a.ranks[i] == me) {
      r.c = i;
      r.left = a.ranks[(i + r.size - 1) % r.size];
      r.right = a.ranks[(i + 1) % r.size];
      return r;
    }
  throw std::invalid_argument("attention_ring_prefill: " + to_string(me) + " is not a rank");
}

}  // namespace

void attention_ring_prefill(Tl& tl, const RingPrefillArgs& a) {
  const Ring ring = ring_of(a, tl.self());
  const unsigned c = ring.c, C = ring.size;
  const int64_t Tq = a.q.at(c).shape()[0], d = a.q.at(c).shape()[1];
  const int64_t T = a.tile, block = a.s / C, tiles = block / T;
  const int64_t q_pos0 = a.s - Tq;  // position of query row 0
  if (block % T != 0 || tiles == 0)
    throw std::invalid_argument("attention_ring_prefill: S/C=" + std::to_string(block) +
                                " is not a positive multiple of the tile " + std::to_string(T));
  if (C > 1) tl.ipcq_open({ring.left});

  // Persistent: Q, the running (m, l, O) and the two KV tile buffers
  // (K_tile [d, T] then V_tile [T, d], contiguous, so a tile is one message).
  const Tensor q = tl.load(a.q[c]);
  Tensor m = tl.empty({Tq, 1}, DType::kFp32);
  Tensor l = tl.empty({Tq, 1}, DType::kFp32);
  Tensor o = tl.empty({Tq, d}, DType::kFp32);
  const std::array<Tensor, 2> kv = {tl.empty({2 * d * T}), tl.empty({2 * d * T})};
  auto k_of = [&](const Tensor& b) { return tl.ref(b.addr(), {d, T}); };
  auto v_of = [&](const Tensor& b) {
    return tl.ref(b.addr() + static_cast<uint64_t>(d * T) * 2, {T, d});
  };
  // Tile t of this rank's own block, from HBM into buffer b.
  auto load_own = [&](int64_t t, const Tensor& b) {
    Tensor ks = tl.ref(a.kt[c].addr() + static_cast<uint64_t>(t * T) * 2, {d, T});
    ks.h.row_stride = block;
    const Tensor vs = tl.ref(a.v[c].addr() + static_cast<uint64_t>(t * T * d) * 2, {T, d});
    return std::vector<Tensor>{tl.load_into(k_of(b), ks), tl.load_into(v_of(b), vs)};
  };

  std::vector<Tensor> cur = load_own(0, kv[0]);
  bool first = true;
  int64_t step = 0;
  for (int64_t t = 0; t < tiles; ++t)
    for (unsigned k = 0; k < C; ++k, ++step) {
      const Tensor& buf = kv[static_cast<size_t>(step % 2)];
      const Tensor& other = kv[static_cast<size_t>((step + 1) % 2)];
      // The tile of this step belongs to block (c - k) mod C.
      const auto b = static_cast<int64_t>((c + C - k) % C);
      const int64_t kv_pos0 = b * block + t * T;
      for (const Tensor& p : cur) tl.wait(p);
      // In flight while this step computes: this tile on to the right, the
      // next step's tile in from the left (or, at the end of a tile's trip
      // round the ring, the next own tile from HBM).
      std::vector<Tensor> next;
      if (k + 1 < C) {
        tl.send(ring.right, buf);
        next = {tl.recv_async(ring.left, other)};
      } else if (t + 1 < tiles) {
        next = load_own(t + 1, other);
      }

      const auto scope = tl.scratch_scope();
      CompositeArgs sa;
      sa.a = q;
      sa.b = k_of(buf);
      sa.out = tl.empty({Tq, T}, DType::kFp32);
      sa.epilogue.push_back({"scale", Scope::kOutputTile, {}, {{"factor", a.scale}}, std::nullopt});
      Tensor s = tl.composite(sa);
      // Causal: column j (position kv_pos0 + j) is hidden from row i
      // (position q_pos0 + i) when j > i + (q_pos0 - kv_pos0).
      if (kv_pos0 + T - 1 > q_pos0) s = tl.math("mask", {s}, {{"offset", q_pos0 - kv_pos0}}, s);
      if (first) {
        // Bootstrap: (m, l, O) of this tile in scratch, persisted with copy_to.
        const Tensor m0 = tl.math("rmax", {s}, {{"reduce_axis", int64_t{-1}}});
        const Tensor p0 =
            tl.math("exp_diff", {s, m0}, {{"bcast_axis", int64_t{0}}}, tl.empty({Tq, T}));
        const Tensor l0 = tl.math("rsum", {p0}, {{"reduce_axis", int64_t{-1}}});
        CompositeArgs pa;
        pa.a = p0;
        pa.b = v_of(buf);
        pa.out = tl.empty({Tq, d}, DType::kFp32);
        const Tensor o0 = tl.composite(pa);
        m = tl.copy_to(m, m0);
        l = tl.copy_to(l, l0);
        o = tl.copy_to(o, o0);
        first = false;
      } else {
        CompositeArgs ma;
        ma.prologue.push_back({"softmax_merge", {{"s", s}, {"m", m}, {"l", l}, {"O", o}}, {}});
        ma.b = v_of(buf);
        ma.out = o;
        ma.epilogue.push_back({"add", Scope::kOutputTile, {{"other", o}}, {}, std::nullopt});
        const Tensor r = tl.composite(ma);
        o = r;
        m.pending = l.pending = r.pending;
      }
      // The scope's scratch and `buf` are reused by later steps.
      tl.wait();
      m.pending = l.pending = o.pending = nullptr;
      cur = next;
    }

  const Tensor linv = tl.math("recip", {l}, {}, tl.empty({Tq, 1}, DType::kFp32));
  const Tensor on = tl.math("mul_bcast", {o, linv}, {{"bcast_axis", int64_t{1}}}, o);
  tl.store(a.out[c], on);
  tl.wait();
}

}  // namespace fw
}  // namespace kb
