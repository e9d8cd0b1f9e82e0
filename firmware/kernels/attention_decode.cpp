#include "firmware/kernels/attention_decode.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace kb {
namespace fw {

namespace {

struct Ctx {
  Tl& tl;
  const SweepArgs& a;
  DecodeTrace* trace;
  int64_t G, d, T;
  // Global tile -> its segment, first position in it and positions (T, or
  // fewer for the last tile of a segment whose length is not a multiple of T).
  struct TileAt {
    size_t seg;
    int64_t first, len;
  };
  std::vector<TileAt> tiles;
  int64_t len(int64_t j) const { return tiles[static_cast<size_t>(j)].len; }
};

void note(Ctx& c, size_t tile, const Tensor& t) {
  if (!c.trace || !t.pending) return;
  if (c.trace->per_tile.size() <= tile) c.trace->per_tile.resize(tile + 1);
  c.trace->per_tile[tile].push_back(t.pending);
}

Tensor kt_tile(Ctx& c, int64_t j) {
  const auto [seg, first, n] = c.tiles[static_cast<size_t>(j)];
  const Tensor& kt = c.a.kv[seg].kt;
  if (kt.h.tiled()) {  // whole block columns: a tiled [d, T] of the same grid height
    Tensor t = c.tl.ref(kt.addr() + kt.h.block_offset(0, first), {c.d, n}, DType::kFp16);
    t.h.block_rows = kt.h.block_rows;
    t.h.block_cols = kt.h.block_cols;
    t.h.block_col_major = kt.h.block_col_major;
    return t;
  }
  Tensor t = c.tl.ref(kt.addr() + static_cast<uint64_t>(first) * 2, {c.d, n}, DType::kFp16);
  t.h.row_stride = kt.h.stride();
  return t;
}

Tensor v_tile(Ctx& c, int64_t j) {
  const auto [seg, first, n] = c.tiles[static_cast<size_t>(j)];
  const Tensor& v = c.a.kv[seg].v;
  if (v.h.tiled()) {  // whole block rows
    Tensor t = c.tl.ref(v.addr() + v.h.block_offset(first, 0), {n, c.d}, DType::kFp16);
    t.h.block_rows = v.h.block_rows;
    t.h.block_cols = v.h.block_cols;
    t.h.block_col_major = v.h.block_col_major;
    return t;
  }
  return c.tl.ref(v.addr() + static_cast<uint64_t>(first * c.d) * 2, {n, c.d}, DType::kFp16);
}

// #1: S_j = (Q · K_jᵀ) · scale into `s` (a TCM buffer). `s` is in rw so that
// a later composite writing the same buffer waits for this tile's readers.
Tensor scores(Ctx& c, int64_t j, const Tensor& s) {
  CompositeArgs ca;
  ca.a = c.a.q;
  ca.b = kt_tile(c, j);
  ca.out = s;
  ca.epilogue.push_back({"scale", Scope::kOutputTile, {}, {{"factor", c.a.scale}}, std::nullopt});
  ca.rw = {s};
  Tensor r = c.tl.composite(ca);
  note(c, static_cast<size_t>(j), r);
  return r;
}

// O (+)= P · V_j as a composite (accumulating through an add epilogue).
Tensor pv(Ctx& c, int64_t j, const Tensor& p, const Tensor& o, bool accumulate) {
  CompositeArgs ca;
  ca.a = p;
  ca.b = v_tile(c, j);
  ca.out = o;
  if (accumulate)
    ca.epilogue.push_back({"add", Scope::kOutputTile, {{"other", o}}, {}, std::nullopt});
  ca.rw = {o};
  Tensor r = c.tl.composite(ca);
  note(c, static_cast<size_t>(j), r);
  return r;
}

// The online-softmax merge of tile j with eight primitive MATH commands.
void softmax_primitives(Ctx& c, int64_t j, const Tensor& s, SoftmaxState& st,
                        const SweepBuffers::Scratch& x) {
  Tl& tl = c.tl;
  const auto t = static_cast<size_t>(j);
  note(c, t, tl.math("rmax", {s}, {{"reduce_axis", int64_t{-1}}}, x.m_loc));
  note(c, t, tl.math("max_elem", {st.m, x.m_loc}, {}, x.m_new));
  note(c, t, tl.math("exp_diff", {st.m, x.m_new}, {}, x.corr));
  note(c, t, tl.math("exp_diff", {s, x.m_new}, {{"bcast_axis", int64_t{0}}}, x.p));
  note(c, t, tl.math("rsum", {x.p}, {{"reduce_axis", int64_t{-1}}}, x.l_loc));
  st.l = tl.math("fma", {st.l, x.corr, x.l_loc}, {}, st.l);
  note(c, t, st.l);
  st.o = tl.math("mul_bcast", {st.o, x.corr}, {{"bcast_axis", int64_t{1}}}, st.o);
  note(c, t, st.o);
  st.m = tl.math("copy", {x.m_new}, {}, st.m);
  note(c, t, st.m);
}

}  // namespace

SweepBuffers make_sweep_buffers(Tl& tl, int64_t rows, int64_t tile) {
  SweepBuffers b;
  b.s = {tl.empty({rows, tile}, DType::kFp32), tl.empty({rows, tile}, DType::kFp32)};
  for (auto& x : b.x) {
    x.m_loc = tl.empty({rows, 1}, DType::kFp32);
    x.m_new = tl.empty({rows, 1}, DType::kFp32);
    x.corr = tl.empty({rows, 1}, DType::kFp32);
    x.l_loc = tl.empty({rows, 1}, DType::kFp32);
    x.p = tl.empty({rows, tile}, DType::kFp16);
  }
  return b;
}

namespace {

// A short tile (the masked last tile of a segment) uses its buffers with
// fewer columns: the same TCM, a narrower shape, the same identity (so the
// scheduler's hazards on the buffer still hold).
Tensor narrow(const Tensor& t, int64_t cols) {
  Tensor v = t;
  v.h.shape = {t.shape()[0], cols};
  return v;
}

struct TileBuffers {
  Tensor s;
  SweepBuffers::Scratch x;
};

TileBuffers tile_buffers(const Ctx& c, SweepBuffers& buf, int64_t j) {
  const auto k = static_cast<size_t>(j % 2);
  TileBuffers t{buf.s[k], buf.x[k]};
  if (c.len(j) != c.T) {
    t.s = narrow(t.s, c.len(j));
    t.x.p = narrow(t.x.p, c.len(j));
  }
  return t;
}

}  // namespace

void attention_sweep(Tl& tl, const SweepArgs& args, SweepBuffers& buf, SoftmaxState& st,
                     DecodeTrace* trace) {
  Ctx c{tl, args, trace, args.q.shape()[0], args.q.shape()[1], args.tile, {}};
  if (c.T <= 0) throw std::invalid_argument("attention_sweep: the tile must be > 0");
  for (size_t s = 0; s < args.kv.size(); ++s) {
    const int64_t n = args.kv[s].kt.shape()[1];
    for (int64_t first = 0; first < n; first += c.T)
      c.tiles.push_back({s, first, std::min(c.T, n - first)});
  }
  const auto n = static_cast<int64_t>(c.tiles.size());
  if (n == 0) throw std::invalid_argument("attention_sweep: no KV positions");

  // Tile 0 establishes (m, l, O).
  const TileBuffers b0 = tile_buffers(c, buf, 0);
  Tensor s0 = scores(c, 0, b0.s);
  note(c, 0, st.m = tl.math("rmax", {s0}, {{"reduce_axis", int64_t{-1}}}, st.m));
  Tensor p0 = tl.math("exp_diff", {s0, st.m}, {{"bcast_axis", int64_t{0}}}, b0.x.p);
  note(c, 0, p0);
  note(c, 0, st.l = tl.math("rsum", {p0}, {{"reduce_axis", int64_t{-1}}}, st.l));
  st.o = pv(c, 0, p0, st.o, false);

  if (args.variant == "opt1") {
    for (int64_t j = 1; j < n; ++j) {
      const TileBuffers b = tile_buffers(c, buf, j);
      const Tensor s = scores(c, j, b.s);
      softmax_primitives(c, j, s, st, b.x);
      st.o = pv(c, j, b.x.p, st.o, true);
    }
  } else if (args.variant == "opt3") {
    Tensor next = n > 1 ? scores(c, 1, tile_buffers(c, buf, 1).s) : Tensor{};
    for (int64_t j = 1; j < n; ++j) {
      const Tensor s = next;
      if (j + 1 < n)  // before tile j's softmax
        next = scores(c, j + 1, tile_buffers(c, buf, j + 1).s);
      const TileBuffers b = tile_buffers(c, buf, j);
      softmax_primitives(c, j, s, st, b.x);
      st.o = pv(c, j, b.x.p, st.o, true);
    }
  } else {  // opt2
    for (int64_t j = 1; j < n; ++j) {
      const TileBuffers b = tile_buffers(c, buf, j);
      const Tensor s = scores(c, j, b.s);
      const auto& x = b.x;
      CompositeArgs ca;
      ca.prologue.push_back({"softmax_merge",
                             {{"s", s}, {"m", st.m}, {"l", st.l}, {"O", st.o}},
                             {{"m_loc", x.m_loc},
                              {"m_new", x.m_new},
                              {"corr", x.corr},
                              {"P", x.p},
                              {"l_loc", x.l_loc}}});
      ca.b = v_tile(c, j);
      ca.out = st.o;
      ca.epilogue.push_back({"add", Scope::kOutputTile, {{"other", st.o}}, {}, std::nullopt});
      ca.rw = {s};  // the score buffer is reused two tiles later
      Tensor r = tl.composite(ca);
      note(c, static_cast<size_t>(j), r);
      if (trace) trace->composite2.push_back(r.pending);
      st.o = r;
      st.m.pending = st.l.pending = r.pending;
    }
  }
}

void attention_decode(Tl& tl, const DecodeArgs& args, DecodeTrace* trace) {
  const int64_t G = args.q.shape()[0], d = args.q.shape()[1];
  SweepArgs sa;
  sa.q = tl.load(args.q);
  sa.kv = {{args.kt, args.v}};
  sa.tile = args.tile;
  sa.scale = args.scale;
  sa.variant = args.variant;
  SweepBuffers buf = make_sweep_buffers(tl, G, args.tile);
  SoftmaxState st{tl.empty({G, 1}, DType::kFp32), tl.empty({G, 1}, DType::kFp32),
                  tl.empty({G, d}, DType::kFp32)};
  attention_sweep(tl, sa, buf, st, trace);

  // O / l, back to HBM.
  Tensor linv = tl.math("recip", {st.l}, {}, buf.x[0].l_loc);
  Tensor on = tl.math("mul_bcast", {st.o, linv}, {{"bcast_axis", int64_t{1}}}, st.o);
  tl.store(args.out, on);
  tl.wait();
}

}  // namespace fw
}  // namespace kb
