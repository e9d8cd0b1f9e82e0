#include "firmware/kernels/attention_decode.h"

#include <array>

namespace kb {
namespace fw {

namespace {

struct Ctx {
  Tl& tl;
  const DecodeArgs& a;
  DecodeTrace* trace;
  int64_t G, d, S, T;
  Tensor q;  // Q in TCM
};

void note(Ctx& c, size_t tile, const Tensor& t) {
  if (!c.trace || !t.pending) return;
  if (c.trace->per_tile.size() <= tile) c.trace->per_tile.resize(tile + 1);
  c.trace->per_tile[tile].push_back(t.pending);
}

Tensor kt_tile(Ctx& c, int64_t j) {
  Tensor t = c.tl.ref(c.a.kt.addr() + static_cast<uint64_t>(j * c.T) * 2, {c.d, c.T}, DType::kFp16);
  t.h.row_stride = c.S;
  return t;
}

Tensor v_tile(Ctx& c, int64_t j) {
  return c.tl.ref(c.a.v.addr() + static_cast<uint64_t>(j * c.T * c.d) * 2, {c.T, c.d},
                  DType::kFp16);
}

// #1: S_j = (Q · K_jᵀ) · scale into `s` (a TCM buffer). `s` is in rw so that
// a later composite writing the same buffer waits for this tile's readers.
Tensor scores(Ctx& c, int64_t j, const Tensor& s) {
  CompositeArgs ca;
  ca.a = c.q;
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

struct Scratch {
  Tensor m_loc, m_new, corr, l_loc, p;
};

Scratch make_scratch(Ctx& c) {
  Scratch s;
  s.m_loc = c.tl.empty({c.G, 1}, DType::kFp32);
  s.m_new = c.tl.empty({c.G, 1}, DType::kFp32);
  s.corr = c.tl.empty({c.G, 1}, DType::kFp32);
  s.l_loc = c.tl.empty({c.G, 1}, DType::kFp32);
  s.p = c.tl.empty({c.G, c.T}, DType::kFp16);
  return s;
}

// The online-softmax merge of tile j with eight primitive MATH commands.
void softmax_primitives(Ctx& c, int64_t j, const Tensor& s, Tensor& m, Tensor& l, Tensor& o,
                        const Scratch& x) {
  Tl& tl = c.tl;
  const auto t = static_cast<size_t>(j);
  note(c, t, tl.math("rmax", {s}, {{"reduce_axis", int64_t{-1}}}, x.m_loc));
  note(c, t, tl.math("max_elem", {m, x.m_loc}, {}, x.m_new));
  note(c, t, tl.math("exp_diff", {m, x.m_new}, {}, x.corr));
  note(c, t, tl.math("exp_diff", {s, x.m_new}, {{"bcast_axis", int64_t{0}}}, x.p));
  note(c, t, tl.math("rsum", {x.p}, {{"reduce_axis", int64_t{-1}}}, x.l_loc));
  l = tl.math("fma", {l, x.corr, x.l_loc}, {}, l);
  note(c, t, l);
  o = tl.math("mul_bcast", {o, x.corr}, {{"bcast_axis", int64_t{1}}}, o);
  note(c, t, o);
  m = tl.math("copy", {x.m_new}, {}, m);
  note(c, t, m);
}

}  // namespace

void attention_decode(Tl& tl, const DecodeArgs& args, DecodeTrace* trace) {
  Ctx c{tl, args, trace, args.q.shape()[0], args.q.shape()[1], args.kt.shape()[1], args.tile, {}};
  const int64_t n = c.S / c.T;
  c.q = tl.load(args.q);
  std::array<Tensor, 2> s_buf = {tl.empty({c.G, c.T}, DType::kFp32),
                                 tl.empty({c.G, c.T}, DType::kFp32)};
  std::array<Scratch, 2> scratch = {make_scratch(c), make_scratch(c)};
  Tensor m = tl.empty({c.G, 1}, DType::kFp32);
  Tensor l = tl.empty({c.G, 1}, DType::kFp32);
  Tensor o = tl.empty({c.G, c.d}, DType::kFp32);

  // Tile 0 establishes (m, l, O).
  Tensor s0 = scores(c, 0, s_buf[0]);
  note(c, 0, m = tl.math("rmax", {s0}, {{"reduce_axis", int64_t{-1}}}, m));
  Tensor p0 = tl.math("exp_diff", {s0, m}, {{"bcast_axis", int64_t{0}}}, scratch[0].p);
  note(c, 0, p0);
  note(c, 0, l = tl.math("rsum", {p0}, {{"reduce_axis", int64_t{-1}}}, l));
  o = pv(c, 0, p0, o, false);

  if (args.variant == "opt1") {
    for (int64_t j = 1; j < n; ++j) {
      const Tensor s = scores(c, j, s_buf[j % 2]);
      const Scratch& x = scratch[j % 2];
      softmax_primitives(c, j, s, m, l, o, x);
      o = pv(c, j, x.p, o, true);
    }
  } else if (args.variant == "opt3") {
    Tensor next = n > 1 ? scores(c, 1, s_buf[1]) : Tensor{};
    for (int64_t j = 1; j < n; ++j) {
      const Tensor s = next;
      if (j + 1 < n) next = scores(c, j + 1, s_buf[(j + 1) % 2]);  // issued before tile j's softmax
      const Scratch& x = scratch[j % 2];
      softmax_primitives(c, j, s, m, l, o, x);
      o = pv(c, j, x.p, o, true);
    }
  } else {  // opt2
    for (int64_t j = 1; j < n; ++j) {
      const Tensor s = scores(c, j, s_buf[j % 2]);
      const Scratch& x = scratch[j % 2];
      CompositeArgs ca;
      ca.prologue.push_back({"softmax_merge",
                             {{"s", s}, {"m", m}, {"l", l}, {"O", o}},
                             {{"m_loc", x.m_loc},
                              {"m_new", x.m_new},
                              {"corr", x.corr},
                              {"P", x.p},
                              {"l_loc", x.l_loc}}});
      ca.b = v_tile(c, j);
      ca.out = o;
      ca.epilogue.push_back({"add", Scope::kOutputTile, {{"other", o}}, {}, std::nullopt});
      ca.rw = {s};  // the score buffer is reused two tiles later
      Tensor r = tl.composite(ca);
      note(c, static_cast<size_t>(j), r);
      if (trace) trace->composite2.push_back(r.pending);
      o = r;
      m.pending = l.pending = r.pending;
    }
  }

  // O / l, back to HBM.
  Tensor linv = tl.math("recip", {l}, {}, scratch[0].l_loc);
  Tensor on = tl.math("mul_bcast", {o, linv}, {{"bcast_axis", int64_t{1}}}, o);
  tl.store(args.out, on);
  tl.wait();
}

}  // namespace fw
}  // namespace kb
