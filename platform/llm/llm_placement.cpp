#include "platform/llm/llm_placement.h"

#include <cmath>

#include "models/common/dtype_convert.h"

namespace kb {

namespace {

// Columns [first, first + n) of a row-major [rows, cols] matrix.
std::vector<float> cols(const std::vector<float>& m, int64_t rows, int64_t c, int64_t first,
                        int64_t n) {
  std::vector<float> out;
  out.reserve(static_cast<size_t>(rows * n));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) out.push_back(m[static_cast<size_t>(r * c + first + j)]);
  return out;
}

// Rows [first, first + n) of a row-major matrix with c columns.
std::vector<float> rows(const std::vector<float>& m, int64_t c, int64_t first, int64_t n) {
  return {m.begin() + first * c, m.begin() + (first + n) * c};
}

// The QKV shard of a rank of KV-head group h: columns [first, first + n) of
// the group's space (its G query heads, then its K head, then its V head).
std::vector<float> qkv_shard(const ModelSpec& m, const ModelWeights::Layer& L, int64_t h,
                             const fw::Slice& s) {
  const int64_t H = m.hidden, d = m.d_head, G = m.group();
  std::vector<float> out(static_cast<size_t>(H * s.count));
  for (int64_t j = 0; j < s.count; ++j) {
    const int64_t c = s.first + j;
    const std::vector<float>* src;
    int64_t col, width;
    if (c < G * d) {
      src = &L.wq, col = h * G * d + c, width = m.q_width();
    } else if (c < (G + 1) * d) {
      src = &L.wk, col = h * d + c - G * d, width = m.kv_width();
    } else {
      src = &L.wv, col = h * d + c - (G + 1) * d, width = m.kv_width();
    }
    for (int64_t r = 0; r < H; ++r)
      out[static_cast<size_t>(r * s.count + j)] = (*src)[static_cast<size_t>(r * width + col)];
  }
  return out;
}

// Weights stream through the GEMMs as b: stored in the native k x n tile's
// blocks (column-major grid), every K step of an output tile is one
// contiguous run however narrow the rank's slice is.
fw::Tensor tiled_weight(HostRuntime& rt, const PeId& pe, int64_t k, int64_t n, DType dt) {
  fw::Tensor t = rt.alloc_hbm(pe, {k, n}, dt);
  t.h.block_rows = rt.platform().config().pe.gemm.tile_k;
  t.h.block_cols = rt.platform().config().pe.gemm.tile_n;
  t.h.block_col_major = true;
  return t;
}

// The prefill's RoPE: the rotate-half matrix R (row · R = (-x[i + d/2],
// x[i]) pairwise) and the cos and sin tables of every (position, head slot)
// row, the V slot's 1 and 0 (V is not rotated).
struct PrefillRope {
  std::vector<float> rotate_half, cos, sin;
};

PrefillRope prefill_rope(const ModelSpec& m, int64_t tokens) {
  const int64_t d = m.d_head, half = d / 2, slots = m.group() + 2;
  PrefillRope r;
  r.rotate_half.assign(static_cast<size_t>(d * d), 0.0f);
  for (int64_t j = 0; j < half; ++j) {
    r.rotate_half[static_cast<size_t>((j + half) * d + j)] = -1.0f;
    r.rotate_half[static_cast<size_t>(j * d + j + half)] = 1.0f;
  }
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t slot = 0; slot < slots; ++slot)
      for (int64_t j = 0; j < d; ++j) {
        const double ang =
            static_cast<double>(t) *
            std::pow(m.rope_theta, -2.0 * static_cast<double>(j % half) / static_cast<double>(d));
        const bool v = slot == slots - 1;
        r.cos.push_back(v ? 1.0f : static_cast<float>(std::cos(ang)));
        r.sin.push_back(v ? 0.0f : static_cast<float>(std::sin(ang)));
      }
  return r;
}

// One layer's weights and KV cache in rank `rp`'s HBM, with the values of
// `L` in data mode (nullptr: timing only).
fw::LayerShard place_layer(HostRuntime& rt, const TpMapping& map, const ModelSpec& model,
                           const LlmRun& run, const RankPlan& rp, const ModelWeights::Layer* L) {
  const PeId pe{rp.pe.sip, rp.pe.cube, rp.pe.pe};
  const fw::TransformerShape sh = map.shape();
  const DType dt = model.dtype;
  const int64_t B = run.batch, H = model.hidden, d = model.d_head;
  const int64_t pos = run.prefill ? 0 : run.context;
  const int64_t nq = rp.qkv.count, no = rp.o.count, nf = rp.ffn.count, n = rp.kv.count;
  const int64_t h = rp.group;
  fw::LayerShard w;
  w.norm_attn = rt.alloc_hbm(pe, {1, H}, DType::kFp32);
  w.norm_ffn = rt.alloc_hbm(pe, {1, H}, DType::kFp32);
  w.wqkv = tiled_weight(rt, pe, H, nq, dt);
  w.wo = tiled_weight(rt, pe, no, H, dt);
  w.wgate = tiled_weight(rt, pe, H, nf, dt);
  w.wup = tiled_weight(rt, pe, H, nf, dt);
  w.wdown = tiled_weight(rt, pe, nf, H, dt);
  const GemmConfig& gemm = rt.platform().config().pe.gemm;
  for (int64_t b = 0; b < B; ++b) {
    fw::KvSegment seg{rt.alloc_hbm(pe, {d, n}, dt), rt.alloc_hbm(pe, {n, d}, dt)};
    if (run.kv_tiled)  // LlmRun::kv_tiled
      for (fw::Tensor* t : {&seg.kt, &seg.v}) {
        t->h.block_rows = gemm.tile_k;
        t->h.block_cols = gemm.tile_n;
        t->h.block_col_major = t == &seg.kt;
      }
    w.kv.push_back(seg);
  }
  if (!L) return w;
  rt.write(w.norm_attn, L->g_attn);
  rt.write(w.norm_ffn, L->g_ffn);
  rt.write(w.wqkv, qkv_shard(model, *L, h, rp.qkv));
  rt.write(w.wo, rows(L->wo, H, h * sh.group() * d + rp.o.first, no));
  rt.write(w.wgate, cols(L->wgate, H, model.ffn, rp.ffn.first, nf));
  rt.write(w.wup, cols(L->wup, H, model.ffn, rp.ffn.first, nf));
  rt.write(w.wdown, rows(L->wdown, H, rp.ffn.first, nf));
  // The cached positions of this block (the new one is the kernel's to
  // write; a prefill starts from an empty cache and writes them all).
  const int64_t kvw = model.kv_width();
  for (int64_t b = 0; b < B && !run.prefill; ++b) {
    std::vector<float> kt(static_cast<size_t>(d * n), 0.0f), v(static_cast<size_t>(n * d), 0.0f);
    const auto& kp = L->k_past[static_cast<size_t>(b)];
    const auto& vp = L->v_past[static_cast<size_t>(b)];
    for (int64_t t = 0; t < n && rp.kv.first + t < pos; ++t)
      for (int64_t i = 0; i < d; ++i) {
        const auto src = static_cast<size_t>((rp.kv.first + t) * kvw + h * d + i);
        kt[static_cast<size_t>(i * n + t)] = kp[src];
        v[static_cast<size_t>(t * d + i)] = vp[src];
      }
    rt.write(w.kv[static_cast<size_t>(b)].kt, kt);
    rt.write(w.kv[static_cast<size_t>(b)].v, v);
  }
  return w;
}

}  // namespace

std::vector<fw::TransformerStepArgs> place_step(HostRuntime& rt, const TpMapping& map,
                                                const ModelSpec& model, const LlmRun& run,
                                                const ModelWeights* data) {
  const fw::TransformerShape sh = map.shape();
  const DType dt = model.dtype;
  const int64_t B = run.batch, H = model.hidden, d = model.d_head;
  const int64_t pos = run.prefill ? 0 : run.context, N = stream_rows(run);
  const int64_t T = run.prefill ? run.prompt : 1;
  std::vector<float> rope_f;
  PrefillRope pr;
  if (run.prefill) {
    pr = prefill_rope(model, T);
    rope_f = pr.rotate_half;
  } else {
    const std::vector<double> rope = rope_matrix(d, pos, model.rope_theta);
    rope_f.assign(rope.begin(), rope.end());
  }
  std::vector<fw::TransformerStepArgs> all;
  const int64_t xn_chunk_cols = map.residency().xn_chunk_cols;
  for (const RankPlan& rp : map.ranks()) {
    const PeId pe{rp.pe.sip, rp.pe.cube, rp.pe.pe};
    fw::TransformerStepArgs a = map.step_args(rp);
    a.shape = sh;
    a.batch = B;
    a.pos = pos;
    a.tokens = T;
    a.qkv = rp.qkv;
    a.o = rp.o;
    a.ffn = rp.ffn;
    a.vocab = rp.vocab;
    a.kv = rp.kv;
    a.tile = run.tile;
    a.variant = run.variant;
    a.tcm_budget = map.tcm_budget();
    a.partial_tcm_limit = map.partial_tcm_limit();
    a.xn_tcm_limit = map.xn_tcm_limit();
    a.xn_chunk_cols = xn_chunk_cols;
    a.attn_chunk = map.attn_chunk();
    const int64_t nf = rp.ffn.count, nv = rp.vocab.count;
    for (int64_t l = 0; l < run.layers; ++l)
      a.layers.push_back(
          place_layer(rt, map, model, run, rp,
                      data ? &data->layers[static_cast<size_t>(run.first_layer + l)] : nullptr));
    if (run.has_head) {
      a.final_norm = rt.alloc_hbm(pe, {1, H}, DType::kFp32);
      a.lm_head = tiled_weight(rt, pe, H, nv, dt);
    }
    a.x = rt.alloc_hbm(pe, {N, H}, DType::kFp32);
    a.xn = rt.alloc_hbm(pe, {N, H}, dt);
    a.qkv_mine = rt.alloc_hbm(pe, {N, sh.qkv_width()}, DType::kFp32);
    a.partial = rt.alloc_hbm(pe, {N, H}, DType::kFp32);
    if (run.sharded_residual) a.row_zeros = rt.alloc_hbm(pe, {N}, DType::kFp32);
    a.rope = tiled_weight(rt, pe, d, d, dt);
    if (run.has_head) a.logits = rt.alloc_hbm(pe, {B, nv}, DType::kFp32);
    if (run.prefill) {
      const int64_t slots = sh.group() + 2, gd = sh.group() * d;
      a.rope_cos = rt.alloc_hbm(pe, {T * slots, d}, DType::kFp32);
      a.rope_sin = rt.alloc_hbm(pe, {T * slots, d}, DType::kFp32);
      a.qkv_rows = rt.alloc_hbm(pe, {N * slots, d}, dt);
      a.rot_rows = rt.alloc_hbm(pe, {N * slots, d}, dt);
      a.attn_mine = rt.alloc_hbm(pe, {N, gd}, DType::kFp32);
      a.attn_rows = rt.alloc_hbm(pe, {N, gd}, dt);
      a.gate = rt.alloc_hbm(pe, {N, nf}, DType::kFp32);
      a.up = rt.alloc_hbm(pe, {N, nf}, DType::kFp32);
      a.h = rt.alloc_hbm(pe, {N, nf}, dt);
      if (data) {
        rt.write(a.rope_cos, pr.cos);
        rt.write(a.rope_sin, pr.sin);
      }
    }
    if (data) {
      if (run.has_head) {
        rt.write(a.final_norm, data->g_final);
        rt.write(a.lm_head, cols(data->wlm, H, model.vocab, rp.vocab.first, nv));
      }
      // (A later pipeline stage receives x from the one before.)
      if (run.first_layer == 0) rt.write(a.x, data->x0);
      rt.write(a.rope, rope_f);
    }
    all.push_back(std::move(a));
  }
  return all;
}

namespace {

// Rows [r0, r0 + n) of a 2-D HBM tensor, as its own handle.
fw::Tensor rows_view(fw::Tensor t, int64_t r0, int64_t n) {
  if (t.h.shape.empty()) return t;  // not allocated (a stage without the LM head)
  t.h.addr += static_cast<uint64_t>(r0 * t.h.stride()) * dtype_bytes(t.h.dtype);
  t.h.shape[0] = n;
  return t;
}

}  // namespace

fw::TransformerStepArgs micro_batch(const fw::TransformerStepArgs& a, int64_t b0, int64_t n) {
  fw::TransformerStepArgs m = a;
  const int64_t T = a.tokens, slots = a.shape.group() + 2;
  m.batch = n;
  for (fw::Tensor* t :
       {&m.x, &m.xn, &m.qkv_mine, &m.partial, &m.attn_mine, &m.attn_rows, &m.gate, &m.up, &m.h})
    *t = rows_view(*t, b0 * T, n * T);
  m.qkv_rows = rows_view(m.qkv_rows, b0 * T * slots, n * T * slots);
  m.rot_rows = rows_view(m.rot_rows, b0 * T * slots, n * T * slots);
  m.logits = rows_view(m.logits, b0, n);
  for (fw::LayerShard& w : m.layers)
    w.kv = std::vector<fw::KvSegment>(w.kv.begin() + b0, w.kv.begin() + b0 + n);
  return m;
}

std::vector<float> read_logits(HostRuntime& rt, const TpMapping& map,
                               const std::vector<fw::TransformerStepArgs>& args, int64_t batch,
                               int64_t vocab) {
  std::vector<float> out(static_cast<size_t>(batch * vocab));
  for (const RankPlan& rp : map.ranks()) {
    const std::vector<float> part = rt.read(args[rp.rank].logits);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t j = 0; j < rp.vocab.count; ++j)
        out[static_cast<size_t>(b * vocab + rp.vocab.first + j)] =
            part[static_cast<size_t>(b * rp.vocab.count + j)];
  }
  return out;
}

}  // namespace kb
