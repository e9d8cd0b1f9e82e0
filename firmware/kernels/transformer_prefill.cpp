#include "firmware/kernels/transformer_prefill.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "firmware/kernels/allreduce.h"
#include "firmware/kernels/transformer_ops.h"

namespace kb {
namespace fw {

namespace {

using namespace tx;

// Alignment slack of a chunk's allocations, so a chunk sized to the budget
// still fits.
constexpr int64_t kSlack = int64_t{64} * 64;

int64_t budget_of(const Step& s) {
  return std::max<int64_t>(0, static_cast<int64_t>(s.a.tcm_budget) - kSlack);
}

// dst [N, w] (dtype) = the group's sum of src [N, w] (fp32, zero outside
// what this rank wrote), a chunk of rows at a time.
void gather_rows(Step& s, const Tensor& src, const Tensor& dst) {
  Tl& tl = s.tl;
  const int64_t w = src.shape()[1];
  const int64_t rc = chunk_rows(s, s.B, w * (4 + static_cast<int64_t>(dtype_bytes(s.dt))));
  for (int64_t r0 = 0; r0 < s.B; r0 += rc) {
    auto chunk = tl.scratch_scope();
    const int64_t n = std::min(rc, s.B - r0);
    const Tensor full = tl.load(rows_of(tl, src, r0, n));
    list_allreduce(tl, full, s.a.group, s.a.group_rank);
    tl.store(rows_of(tl, dst, r0, n), tl.math("copy", {full}, {}, tl.empty({n, w}, s.dt)));
    tl.wait();
  }
}

// Row `row` of head slot `head` (0 .. G+1: the G query heads, K, V) of the
// [N * (G + 2), d] QKV rows, for `n` consecutive tokens: a strided view.
Tensor head_rows(Step& s, const Tensor& qkv, int64_t token, int64_t head, int64_t n) {
  const uint64_t e = dtype_bytes(s.dt);
  return view_of(s.tl, qkv, static_cast<uint64_t>((token * (s.G + 2) + head) * s.d) * e, {n, s.d},
                 (s.G + 2) * s.d);
}

// rot = x * cos + (x · rotate-half) * sin, token chunk by token chunk of
// every sequence (the tables hold one sequence's rows).
void rope(Step& s) {
  Tl& tl = s.tl;
  const TransformerStepArgs& a = s.a;
  const int64_t T = a.tokens, hr = s.G + 2;
  const auto e = static_cast<int64_t>(dtype_bytes(s.dt));
  const int64_t tc = std::max<int64_t>(1, std::min(T, budget_of(s) / (hr * s.d * (16 + 2 * e))));
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t t0 = 0; t0 < T; t0 += tc) {
      auto chunk = tl.scratch_scope();
      const int64_t n = std::min(tc, T - t0), rows = n * hr, row0 = (b * T + t0) * hr;
      const Tensor x16 = tl.load(rows_of(tl, a.qkv_rows, row0, rows));
      const Tensor xp = gemm(tl, x16, a.rope, tl.empty({rows, s.d}, DType::kFp32));
      const Tensor x32 = tl.math("copy", {x16}, {}, tl.empty({rows, s.d}, DType::kFp32));
      const Tensor cs = tl.load(rows_of(tl, a.rope_cos, t0 * hr, rows));
      const Tensor sn = tl.load(rows_of(tl, a.rope_sin, t0 * hr, rows));
      const Tensor xc = tl.math("mul", {x32, cs}, {}, x32);
      const Tensor r = tl.math("fma", {xp, sn, xc}, {}, xc);
      tl.store(rows_of(tl, a.rot_rows, row0, rows),
               tl.math("copy", {r}, {}, tl.empty({rows, s.d}, s.dt)));
      tl.wait();
    }
}

// Chunk [c0, c0 + m) of the rank's K (transposed) and V into a cache kept
// in native blocks (LayerShard::kv, tiled): kt's block columns follow one
// another (column-major grid), and a [d, w] row-major transpose of w
// positions is exactly one block column, so the chunk's K is one trans per
// block column into TCM and one contiguous store; V's blocks of a block row
// lie side by side (row-major grid), each stored from the loaded rows.
void kv_append_tiled(Step& s, const KvSegment& seg, int64_t token, int64_t c0, int64_t m) {
  Tl& tl = s.tl;
  const uint64_t e = dtype_bytes(s.dt);
  const TensorHandle& kh = seg.kt.h;
  const TensorHandle& vh = seg.v.h;
  const int64_t kc = kh.block_cols, vr = vh.block_rows, vc = vh.block_cols;
  const Tensor k = tl.load(head_rows(s, s.a.rot_rows, token, s.G, m));
  const Tensor kt = tl.empty({m, s.d}, s.dt);  // m / kc block columns of [d, kc]
  std::vector<Tensor> columns;
  for (int64_t j = 0; j < m; j += kc) {
    const int64_t w = std::min(kc, m - j);
    columns.push_back(tl.math("trans", {rows_of(tl, k, j, w)}, {},
                              view_of(tl, kt, static_cast<uint64_t>(j * s.d) * e, {s.d, w}, 0)));
  }
  for (const Tensor& t : columns) tl.wait(t);  // the store reads them all
  tl.store(tl.ref(kh.addr + static_cast<uint64_t>(kh.tiled_index(0, c0)) * e, {m, s.d}, s.dt), kt);
  const Tensor v = tl.load(head_rows(s, s.a.qkv_rows, token, s.G + 1, m));
  for (int64_t r = 0; r < m; r += vr)
    for (int64_t c = 0; c < s.d; c += vc) {
      const int64_t h = std::min(vr, m - r), w = std::min(vc, s.d - c);
      tl.store(tl.ref(vh.addr + static_cast<uint64_t>(vh.tiled_index(c0 + r, c)) * e, {h, w}, s.dt),
               view_of(tl, v, static_cast<uint64_t>(r * s.d + c) * e, {h, w}, s.d));
    }
}

// The rank's block of K (transposed) and V, every sequence, into its cache.
void kv_append(Step& s, const LayerShard& w) {
  Tl& tl = s.tl;
  const TransformerStepArgs& a = s.a;
  const auto e = static_cast<int64_t>(dtype_bytes(s.dt));
  const int64_t n = a.kv.count;
  int64_t c = std::max<int64_t>(1, std::min(n, budget_of(s) / (3 * s.d * e)));
  // A tiled cache takes whole block rows of V (and so whole block columns of kt).
  const TensorHandle& v0 = w.kv.at(0).v.h;
  if (v0.tiled() && c < n) c = std::max<int64_t>(v0.block_rows, c / v0.block_rows * v0.block_rows);
  for (int64_t b = 0; b < a.batch; ++b) {
    const KvSegment& seg = w.kv.at(static_cast<size_t>(b));
    for (int64_t c0 = 0; c0 < n; c0 += c) {
      auto chunk = tl.scratch_scope();
      const int64_t m = std::min(c, n - c0), token = b * a.tokens + a.kv.first + c0;
      if (seg.v.h.tiled()) {
        kv_append_tiled(s, seg, token, c0, m);
      } else {
        const Tensor k = tl.load(head_rows(s, a.rot_rows, token, s.G, m));
        const Tensor kt = tl.math("trans", {k}, {}, tl.empty({s.d, m}, s.dt));
        tl.store(view_of(tl, seg.kt, static_cast<uint64_t>(c0 * e), {s.d, m}, n), kt);
        tl.store(rows_of(tl, seg.v, c0, m), tl.load(head_rows(s, a.qkv_rows, token, s.G + 1, m)));
      }
      tl.wait();
    }
  }
}

// The online softmax of one head's query rows over one KV tile: the first
// tile establishes (m, l, O), later ones merge into them.
struct HeadState {
  Tensor q, m, l, o;
};

void attend_tile(Tl& tl, HeadState& st, const Tensor& kt, const Tensor& v, int64_t q_pos0,
                 int64_t kv_pos0, double scale, bool first) {
  const int64_t rows = st.q.shape()[0], w = kt.shape()[1], d = st.q.shape()[1];
  CompositeArgs sa;
  sa.a = st.q;
  sa.b = kt;
  sa.out = tl.empty({rows, w}, DType::kFp32);
  sa.epilogue.push_back({"scale", Scope::kOutputTile, {}, {{"factor", scale}}, std::nullopt});
  Tensor sc = tl.composite(sa);
  // Causal: column j (position kv_pos0 + j) is hidden from row i (position
  // q_pos0 + i) when j > i + (q_pos0 - kv_pos0).
  if (kv_pos0 + w - 1 > q_pos0) sc = tl.math("mask", {sc}, {{"offset", q_pos0 - kv_pos0}}, sc);
  if (first) {
    const Tensor m0 = tl.math("rmax", {sc}, {{"reduce_axis", int64_t{-1}}});
    const Tensor p0 =
        tl.math("exp_diff", {sc, m0}, {{"bcast_axis", int64_t{0}}}, tl.empty({rows, w}));
    const Tensor l0 = tl.math("rsum", {p0}, {{"reduce_axis", int64_t{-1}}});
    CompositeArgs pa;
    pa.a = p0;
    pa.b = v;
    pa.out = tl.empty({rows, d}, DType::kFp32);
    const Tensor o0 = tl.composite(pa);
    st.m = tl.copy_to(st.m, m0);
    st.l = tl.copy_to(st.l, l0);
    st.o = tl.copy_to(st.o, o0);
    return;
  }
  CompositeArgs ma;
  ma.prologue.push_back({"softmax_merge", {{"s", sc}, {"m", st.m}, {"l", st.l}, {"O", st.o}}, {}});
  ma.b = v;
  ma.out = st.o;
  ma.epilogue.push_back({"add", Scope::kOutputTile, {{"other", st.o}}, {}, std::nullopt});
  const Tensor r = tl.composite(ma);
  st.o = r;
  st.m.pending = st.l.pending = r.pending;
}

// Causal attention of the rank's query rows (its KV block's tokens), every
// sequence, every head of the group, into attn_mine; query chunks sized so
// the G heads' states and a tile's scratch fit the budget.
void prefill_attention(Step& s) {
  Tl& tl = s.tl;
  const TransformerStepArgs& a = s.a;
  const auto e = static_cast<int64_t>(dtype_bytes(s.dt));
  const int64_t G = s.G, d = s.d, tile = a.tile;
  const int64_t fixed = tile * 2 * 3 * d * e;
  const int64_t per_row = G * (d * e + 8 + d * 4 + tile * (4 + 2 * e) + d * 4 + 32);
  const int64_t qc = std::max<int64_t>(1, std::min(a.kv.count, (budget_of(s) - fixed) / per_row));
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t t0 = a.kv.first; t0 < a.kv.first + a.kv.count; t0 += qc) {
      auto scope = tl.scratch_scope();
      const int64_t nq = std::min(qc, a.kv.first + a.kv.count - t0), token0 = b * a.tokens;
      std::vector<HeadState> st(static_cast<size_t>(G));
      for (int64_t g = 0; g < G; ++g) {
        HeadState& h = st[static_cast<size_t>(g)];
        h.q = tl.load(head_rows(s, a.rot_rows, token0 + t0, g, nq));
        h.m = tl.empty({nq, 1}, DType::kFp32);
        h.l = tl.empty({nq, 1}, DType::kFp32);
        h.o = tl.empty({nq, d}, DType::kFp32);
      }
      const Tensor kbuf[2] = {tl.empty({tile, d}, s.dt), tl.empty({tile, d}, s.dt)};
      const Tensor ktbuf[2] = {tl.empty({d, tile}, s.dt), tl.empty({d, tile}, s.dt)};
      const Tensor vbuf[2] = {tl.empty({tile, d}, s.dt), tl.empty({tile, d}, s.dt)};
      const int64_t end = t0 + nq;  // positions < end are visible to some row
      struct Loaded {
        Tensor k, v;
      };
      auto load_tile = [&](int64_t j) {
        const int64_t p0 = j * tile, wd = std::min(tile, end - p0);
        const auto i = static_cast<size_t>(j % 2);
        return Loaded{tl.load_into(tl.ref(kbuf[i].addr(), {wd, d}, s.dt),
                                   head_rows(s, a.rot_rows, token0 + p0, G, wd)),
                      tl.load_into(tl.ref(vbuf[i].addr(), {wd, d}, s.dt),
                                   head_rows(s, a.qkv_rows, token0 + p0, G + 1, wd))};
      };
      const int64_t tiles = (end + tile - 1) / tile;
      Loaded cur = load_tile(0);
      for (int64_t j = 0; j < tiles; ++j) {
        const int64_t p0 = j * tile, wd = std::min(tile, end - p0);
        // The next tile streams in while this one computes.
        const Loaded next = j + 1 < tiles ? load_tile(j + 1) : Loaded{};
        auto tile_scope = tl.scratch_scope();
        const Tensor kt = tl.math("trans", {cur.k}, {},
                                  tl.ref(ktbuf[static_cast<size_t>(j % 2)].addr(), {d, wd}, s.dt));
        for (HeadState& h : st) attend_tile(tl, h, kt, cur.v, t0, p0, scale, j == 0);
        // The scope's scratch and this tile's buffers are reused.
        tl.wait();
        for (HeadState& h : st) h.m.pending = h.l.pending = h.o.pending = nullptr;
        cur = next;
      }
      for (int64_t g = 0; g < G; ++g) {
        HeadState& h = st[static_cast<size_t>(g)];
        const Tensor linv = tl.math("recip", {h.l}, {}, tl.empty({nq, 1}, DType::kFp32));
        const Tensor on = tl.math("mul_bcast", {h.o, linv}, {{"bcast_axis", int64_t{1}}}, h.o);
        tl.store(view_of(tl, a.attn_mine, static_cast<uint64_t>(((token0 + t0) * G + g) * d) * 4,
                         {nq, d}, G * d),
                 on);
      }
      tl.wait();
    }
}

// h = SiLU(gate) * up, a chunk of rows at a time.
void silu_mul(Step& s) {
  Tl& tl = s.tl;
  const TransformerStepArgs& a = s.a;
  const int64_t nf = a.ffn.count;
  const int64_t rc = chunk_rows(s, s.B, nf * (8 + static_cast<int64_t>(dtype_bytes(s.dt))));
  for (int64_t r0 = 0; r0 < s.B; r0 += rc) {
    auto chunk = tl.scratch_scope();
    const int64_t n = std::min(rc, s.B - r0);
    const Tensor gl = tl.load(rows_of(tl, a.gate, r0, n));
    const Tensor g = tl.math("silu", {gl}, {}, gl);
    const Tensor h =
        tl.math("mul", {g, tl.load(rows_of(tl, a.up, r0, n))}, {}, tl.empty({n, nf}, s.dt));
    tl.store(rows_of(tl, a.h, r0, n), h);
    tl.wait();
  }
}

void prefill_layer(Step& s, const LayerShard& w) {
  Tl& tl = s.tl;
  const TransformerStepArgs& a = s.a;
  const int64_t qw = a.shape.qkv_width();
  auto scope = tl.scratch_scope();

  norm_phase(s, w.norm_attn, phase::kAttnNorm, phase::kAttnNormGather);

  s.begin(phase::kQkv);
  qkv_projection(s, w);
  s.end();

  s.begin(phase::kQkvGather);
  gather_rows(s, a.qkv_mine, view_of(tl, a.qkv_rows, 0, {s.B, qw}, 0));
  s.end();

  s.begin(phase::kRope);
  rope(s);
  s.end();

  s.begin(phase::kKvAppend);
  kv_append(s, w);
  s.end();

  s.begin(phase::kAttention);
  prefill_attention(s);
  s.end();

  s.begin(phase::kAttnGather);
  gather_rows(s, a.attn_mine, a.attn_rows);
  s.end();

  s.begin(phase::kOProj);
  gemm(tl, cols_of(tl, a.attn_rows, a.o.first, a.o.count), w.wo, s.partial);
  s.end();

  sum_into_stream(s, phase::kOAllreduce, phase::kOReduceScatter, phase::kOResidual);

  norm_phase(s, w.norm_ffn, phase::kFfnNorm, phase::kFfnNormGather);

  gate_up(s, w, a.gate, a.up);

  s.begin(phase::kSiluMul);
  silu_mul(s);
  s.end();

  s.begin(phase::kDown);
  gemm(tl, a.h, w.wdown, s.partial);
  s.end();

  sum_into_stream(s, phase::kFfnAllreduce, phase::kFfnReduceScatter, phase::kFfnResidual);
}

void check_prefill_args(const TransformerStepArgs& a) {
  if (a.ranks.empty() || a.group.empty() || a.tokens <= 0 || a.o.count <= 0 || a.ffn.count <= 0 ||
      a.vocab.count <= 0 || a.kv.count <= 0)
    throw std::invalid_argument(
        "prefill_step: every rank needs O rows, FFN and vocabulary columns and "
        "at least one of the prompt's positions");
}

// Only each prompt's last row goes on to the LM head.
void prefill_tail(Step& s) {
  Tl& tl = s.tl;
  const TransformerStepArgs& a = s.a;
  s.layer = -1;
  const int64_t T = a.tokens;
  const Tensor x_last =
      view_of(tl, a.x, static_cast<uint64_t>((T - 1) * s.H) * 4, {a.batch, s.H}, T * s.H);
  const Tensor xn_last = view_of(tl, a.xn, static_cast<uint64_t>((T - 1) * s.H) * dtype_bytes(s.dt),
                                 {a.batch, s.H}, T * s.H);
  if (a.sharded_residual) {
    // Each rank holds a shard of every row: the norm runs over the whole stream.
    norm_phase(s, a.final_norm, phase::kFinalNorm, phase::kFinalNormGather);
  } else {
    s.begin(phase::kFinalNorm);
    norm_rows(s, a.final_norm, x_last, xn_last, a.batch);
    s.end();
  }
  s.begin(phase::kLmHead);
  gemm(tl, xn_last, a.lm_head, a.logits);
  s.end();
}

}  // namespace

void prefill_step(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases) {
  check_prefill_args(a);
  Step s(tl, a, phases, a.batch * a.tokens);
  open_rings(tl, a);
  run_layers(s, 0, prefill_layer);
  prefill_tail(s);
}

void prefill_layers(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases,
                    int first_layer) {
  check_prefill_args(a);
  auto scope = tl.scratch_scope();
  Step s(tl, a, phases, a.batch * a.tokens);
  run_layers(s, first_layer, prefill_layer);
}

void prefill_tail(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases) {
  auto scope = tl.scratch_scope();
  Step s(tl, a, phases, a.batch * a.tokens);
  prefill_tail(s);
}

}  // namespace fw
}  // namespace kb
