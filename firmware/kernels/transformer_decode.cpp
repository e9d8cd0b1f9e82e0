#include "firmware/kernels/transformer_decode.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include "firmware/kernels/allreduce.h"
#include "firmware/kernels/softmax_state_reduce.h"

namespace kb {
namespace fw {

const char* phase_class(const std::string& phase) {
  if (phase == "qkv" || phase == "rope" || phase == "o_proj" || phase == "gate_up" ||
      phase == "down" || phase == "lm_head")
    return "gemm";
  if (phase == "attention") return "attention";
  if (phase == "qkv_gather" || phase == "o_allreduce" || phase == "ffn_allreduce")
    return "allreduce";
  return "norm_elementwise";
}

namespace {

struct Step {
  Tl& tl;
  const DecodeStepArgs& a;
  std::vector<PhaseRecord>* phases;
  int64_t B, H, G, d;
  DType dt;
  int layer = 0;
  const char* phase = "";
  double t0 = 0;
  Tensor partial;          // TCM when it fits, else a.partial (HBM)
  bool xn_in_tcm = false;  // GEMMs load xn into TCM first

  void begin(const char* p) {
    phase = p;
    t0 = tl.now_ns();
  }
  void end() {
    tl.wait();
    if (phases) phases->push_back({layer, phase, t0, tl.now_ns()});
  }
};

// A view of part of `t`: its own handle, still pending on what produces t
// (so a consumer of the view waits for it as for t).
Tensor view_of(Tl& tl, const Tensor& t, uint64_t byte_offset, std::vector<int64_t> shape,
               int64_t row_stride) {
  Tensor v = tl.ref(t.addr() + byte_offset, std::move(shape), t.h.dtype);
  v.h.row_stride = row_stride;
  v.pending = t.pending;
  return v;
}

// Rows r0 .. r0+n-1 of a 2-D tensor (the same row stride).
Tensor rows_of(Tl& tl, const Tensor& t, int64_t r0, int64_t n) {
  return view_of(tl, t, static_cast<uint64_t>(r0 * t.h.stride()) * dtype_bytes(t.h.dtype),
                 {n, t.shape()[1]}, t.h.row_stride);
}

// Columns c0 .. c0+n-1 of a 2-D tensor: a strided view.
Tensor cols_of(Tl& tl, const Tensor& t, int64_t c0, int64_t n) {
  return view_of(tl, t, static_cast<uint64_t>(c0) * dtype_bytes(t.h.dtype), {t.shape()[0], n},
                 t.h.stride());
}

Tensor gemm(Tl& tl, const Tensor& a, const Tensor& b, const Tensor& out) {
  CompositeArgs ca;
  ca.a = a;
  ca.b = b;
  ca.out = out;
  return tl.composite(ca);
}

// Rows of the [B, H] fp32 stream processed at once by the elementwise
// phases: as many as `per_row` bytes of TCM per row allow within the budget.
int64_t chunk_rows(const Step& s, int64_t per_row) {
  return std::max<int64_t>(1, std::min<int64_t>(s.B, static_cast<int64_t>(s.a.tcm_budget) /
                                                         std::max<int64_t>(per_row, 1)));
}

// xn = RMSNorm(x) * gamma, row chunk by row chunk (x in HBM, xn to HBM).
void rmsnorm(Step& s, const Tensor& gamma) {
  Tl& tl = s.tl;
  auto scope = tl.scratch_scope();
  const Tensor g = tl.load(gamma);
  const int64_t rc = chunk_rows(s, s.H * (4 + 4 + dtype_bytes(s.dt)));
  for (int64_t r0 = 0; r0 < s.B; r0 += rc) {
    auto chunk = tl.scratch_scope();
    const int64_t n = std::min(rc, s.B - r0);
    const Tensor x = tl.load(rows_of(tl, s.a.x, r0, n));
    const Tensor sq = tl.math("mul", {x, x});
    Tensor ms = tl.math("rsum", {sq}, {{"reduce_axis", int64_t{-1}}});
    ms = tl.math("scale", {ms}, {{"factor", 1.0 / static_cast<double>(s.H)}}, ms);
    ms = tl.math("rsqrt", {ms}, {{"eps", s.a.shape.norm_eps}}, ms);
    const Tensor y = tl.math("mul_bcast", {x, ms}, {{"bcast_axis", int64_t{1}}}, sq);
    const Tensor yn = tl.math("mul", {y, g}, {}, tl.empty({n, s.H}, s.dt));
    tl.store(rows_of(tl, s.a.xn, r0, n), yn);
    tl.wait();
  }
}

// x += partial, row chunk by row chunk.
void residual(Step& s) {
  Tl& tl = s.tl;
  const bool p_tcm = s.partial.h.in_tcm();
  const int64_t rc = chunk_rows(s, s.H * (p_tcm ? 4 : 8));
  for (int64_t r0 = 0; r0 < s.B; r0 += rc) {
    auto chunk = tl.scratch_scope();
    const int64_t n = std::min(rc, s.B - r0);
    const Tensor x = tl.load(rows_of(tl, s.a.x, r0, n));
    const Tensor p = p_tcm ? rows_of(tl, s.partial, r0, n) : tl.load(rows_of(tl, s.partial, r0, n));
    tl.store(rows_of(tl, s.a.x, r0, n), tl.math("add", {x, p}, {}, x));
    tl.wait();
  }
}

// The GEMMs' a operand: xn, in TCM when it fits (loaded once per GEMM phase).
Tensor xn_operand(Step& s) {
  return s.xn_in_tcm ? s.tl.load(s.a.xn) : s.a.xn;
}

void allreduce_all(Step& s, const Tensor& v) {
  tree_allreduce(s.tl, v, s.a.ranks, s.a.rank);
}

// Attention of the batch over this rank's KV block, merged over the group;
// leaves the normalised output, [B * G, d] in dtype, in attn on every rank.
// The states of attn_chunk sequences at a time travel in one reduce.
void attention(Step& s, const LayerShard& w, const Tensor& rot, const Tensor& attn) {
  Tl& tl = s.tl;
  const DecodeStepArgs& a = s.a;
  const int64_t chunk = a.attn_chunk > 0 ? std::min(a.attn_chunk, s.B) : s.B;
  const auto R = static_cast<unsigned>(a.group.size());
  const uint64_t e = dtype_bytes(s.dt);
  for (int64_t b0 = 0; b0 < s.B; b0 += chunk) {
    auto scope = tl.scratch_scope();
    const int64_t n = std::min(chunk, s.B - b0), rows = n * s.G;
    PackedState own = PackedState::make(tl, rows, s.d);
    SweepBuffers buf[2] = {make_sweep_buffers(tl, s.G, a.tile),
                           make_sweep_buffers(tl, s.G, a.tile)};
    std::vector<SoftmaxState> st;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t b = b0 + i;
      // Sequence i reuses the buffers of i - 2 once that sweep's last merge is done.
      if (i >= 2) tl.wait(st[static_cast<size_t>(i - 2)].o);
      SweepArgs sa;
      sa.q = tl.ref(rot.addr() + static_cast<uint64_t>(b * (s.G + 2) * s.d) * e, {s.G, s.d}, s.dt);
      sa.kv = {w.kv.at(static_cast<size_t>(b))};
      sa.tile = a.tile;
      sa.scale = 1.0 / std::sqrt(static_cast<double>(s.d));
      sa.variant = a.variant;
      st.push_back(own.state(tl, i * s.G, s.G));
      attention_sweep(tl, sa, buf[i % 2], st.back(), nullptr);
    }
    tl.wait();
    const bool root = reduce_level(
        tl, ReduceShape::kTree, a.group_rank, R, [&a](unsigned r) { return a.group[r]; }, own);
    if (root) {
      SoftmaxState full = own.state(tl, 0, rows);
      const Tensor linv = tl.math("recip", {full.l}, {}, tl.empty({rows, 1}, DType::kFp32));
      const Tensor on = tl.math("mul_bcast", {full.o, linv}, {{"bcast_axis", int64_t{1}}}, full.o);
      tl.math("copy", {on}, {},
              tl.ref(attn.addr() + static_cast<uint64_t>(b0 * s.G * s.d) * e, {rows, s.d}, s.dt));
      tl.wait();
    }
  }
  tree_broadcast(tl, attn, a.group, a.group_rank);
}

void layer(Step& s, const LayerShard& w) {
  Tl& tl = s.tl;
  const DecodeStepArgs& a = s.a;
  const int64_t qw = a.shape.qkv_width();
  auto scope = tl.scratch_scope();
  const Tensor qkv16 = tl.empty({s.B * (s.G + 2), s.d}, s.dt);  // the group's QKV rows
  const Tensor rot = tl.empty({s.B * (s.G + 2), s.d}, s.dt);    // ... rotated
  const Tensor attn = tl.empty({s.B * s.G, s.d}, s.dt);         // attention output

  s.begin("attn_norm");
  rmsnorm(s, w.norm_attn);
  s.end();

  s.begin("qkv");
  if (a.qkv.count > 0) {
    auto g = tl.scratch_scope();
    Tensor out = tl.ref(a.qkv_mine.addr() + static_cast<uint64_t>(a.qkv.first) * 4,
                        {s.B, a.qkv.count}, DType::kFp32);
    out.h.row_stride = qw;
    gemm(tl, xn_operand(s), w.wqkv, out);
    tl.wait();
  }
  s.end();

  s.begin("qkv_gather");
  {
    auto g = tl.scratch_scope();
    const Tensor full = tl.load(tl.ref(a.qkv_mine.addr(), {s.B * qw}, DType::kFp32));
    tree_allreduce(tl, full, a.group, a.group_rank);
    // (A group of one rank gathers nothing: the copy then waits for the load.)
    tl.math("copy", {view_of(tl, full, 0, {s.B * (s.G + 2), s.d}, 0)}, {}, qkv16);
    tl.wait();
  }
  s.end();

  s.begin("rope");
  gemm(tl, qkv16, a.rope, rot);
  s.end();

  s.begin("kv_append");
  if (a.pos >= a.kv.first && a.pos < a.kv.first + a.kv.count) {
    const int64_t col = a.pos - a.kv.first;
    const uint64_t e = dtype_bytes(s.dt);
    for (int64_t b = 0; b < s.B; ++b) {
      const KvSegment& seg = w.kv.at(static_cast<size_t>(b));
      const uint64_t k_row = static_cast<uint64_t>((b * (s.G + 2) + s.G) * s.d) * e;
      // K is kept transposed: the new K row becomes column `col` of kt.
      Tensor k_src = tl.ref(rot.addr() + k_row, {s.d, 1}, s.dt);
      Tensor k_dst = tl.ref(seg.kt.addr() + static_cast<uint64_t>(col) * e, {s.d, 1}, s.dt);
      k_dst.h.row_stride = seg.kt.h.stride();
      tl.store(k_dst, k_src);
      const Tensor v_src =
          tl.ref(qkv16.addr() + k_row + static_cast<uint64_t>(s.d) * e, {1, s.d}, s.dt);
      tl.store(tl.ref(seg.v.addr() + static_cast<uint64_t>(col * s.d) * e, {1, s.d}, s.dt), v_src);
    }
  }
  s.end();

  s.begin("attention");
  attention(s, w, rot, attn);
  s.end();

  s.begin("o_proj");
  {
    const Tensor a16 = view_of(tl, attn, 0, {s.B, s.G * s.d}, 0);
    gemm(tl, cols_of(tl, a16, a.o.first, a.o.count), w.wo, s.partial);
  }
  s.end();

  s.begin("o_allreduce");
  allreduce_all(s, s.partial);
  s.end();

  s.begin("o_residual");
  residual(s);
  s.end();

  s.begin("ffn_norm");
  rmsnorm(s, w.norm_ffn);
  s.end();

  const Tensor gate = tl.empty({s.B, a.ffn.count}, DType::kFp32);
  const Tensor up = tl.empty({s.B, a.ffn.count}, DType::kFp32);
  const Tensor h = tl.empty({s.B, a.ffn.count}, s.dt);
  s.begin("gate_up");
  {
    auto g = tl.scratch_scope();
    const Tensor xn = xn_operand(s);
    gemm(tl, xn, w.wgate, gate);
    gemm(tl, xn, w.wup, up);
    tl.wait();
  }
  s.end();

  s.begin("silu_mul");
  tl.math("mul", {tl.math("silu", {gate}, {}, gate), up}, {}, h);
  s.end();

  s.begin("down");
  gemm(tl, h, w.wdown, s.partial);
  s.end();

  s.begin("ffn_allreduce");
  allreduce_all(s, s.partial);
  s.end();

  s.begin("ffn_residual");
  residual(s);
  s.end();
}

}  // namespace

void decode_step(Tl& tl, const DecodeStepArgs& a, std::vector<PhaseRecord>* phases) {
  const TransformerShape& sh = a.shape;
  if (a.ranks.empty() || a.group.empty() || a.o.count <= 0 || a.ffn.count <= 0 ||
      a.vocab.count <= 0 || a.kv.count <= 0)
    throw std::invalid_argument(
        "decode_step: every rank needs O rows, FFN and vocabulary columns and "
        "at least one KV position");
  Step s{tl, a, phases, a.batch, sh.hidden, sh.group(), sh.d_head, sh.dtype, 0, "", 0, {}, false};
  // Every peer this rank receives from, over all of its collectives (the
  // group's tree is a subtree of the whole one when groups are aligned).
  std::set<PeAddr> from;
  for (const PeAddr& p : tree_sources(a.ranks, a.rank)) from.insert(p);
  for (const PeAddr& p : tree_sources(a.group, a.group_rank)) from.insert(p);
  if (!from.empty()) tl.ipcq_open({from.begin(), from.end()});

  const uint64_t stream_bytes = static_cast<uint64_t>(s.B * s.H) * 4;
  s.partial = stream_bytes * 4 <= a.tcm_budget ? tl.empty({s.B, s.H}, DType::kFp32) : a.partial;
  s.xn_in_tcm = static_cast<uint64_t>(s.B * s.H) * dtype_bytes(s.dt) * 4 <= a.tcm_budget;

  for (size_t l = 0; l < a.layers.size(); ++l) {
    s.layer = static_cast<int>(l);
    layer(s, a.layers[l]);
    if (a.layer_done) a.layer_done(static_cast<int>(l));
  }
  s.layer = -1;
  s.begin("final_norm");
  rmsnorm(s, a.final_norm);
  s.end();
  s.begin("lm_head");
  {
    auto g = tl.scratch_scope();
    gemm(tl, xn_operand(s), a.lm_head, a.logits);
    tl.wait();
  }
  s.end();
}

}  // namespace fw
}  // namespace kb
