#include "firmware/kernels/transformer_ops.h"

#include <algorithm>
#include <set>

#include "firmware/kernels/allreduce.h"

namespace kb {
namespace fw {

const char* phase_class(const std::string& phase) {
  if (phase == "qkv" || phase == "rope" || phase == "o_proj" || phase == "gate_up" ||
      phase == "down" || phase == "lm_head")
    return "gemm";
  if (phase == "attention") return "attention";
  if (phase == "pp_recv" || phase == "pp_send") return "pipeline";
  if (phase == "qkv_gather" || phase == "attn_gather" || phase == "o_allreduce" ||
      phase == "ffn_allreduce")
    return "allreduce";
  return "norm_elementwise";
}

namespace tx {

Step::Step(Tl& t, const TransformerStepArgs& args, std::vector<PhaseRecord>* ph, int64_t rows)
    : tl(t),
      a(args),
      phases(ph),
      B(rows),
      H(args.shape.hidden),
      G(args.shape.group()),
      d(args.shape.d_head),
      dt(args.shape.dtype) {
  const uint64_t stream_bytes = static_cast<uint64_t>(B * H) * 4;
  partial = stream_bytes * 4 <= a.tcm_budget ? tl.empty({B, H}, DType::kFp32) : a.partial;
  xn_in_tcm = static_cast<uint64_t>(B * H) * dtype_bytes(dt) * 4 <= a.tcm_budget;
}

void Step::begin(const char* p) {
  phase = p;
  t0 = tl.now_ns();
}

void Step::end() {
  tl.wait();
  if (phases) phases->push_back({layer, phase, t0, tl.now_ns()});
}

Tensor view_of(Tl& tl, const Tensor& t, uint64_t byte_offset, std::vector<int64_t> shape,
               int64_t row_stride) {
  Tensor v = tl.ref(t.addr() + byte_offset, std::move(shape), t.h.dtype);
  v.h.row_stride = row_stride;
  v.pending = t.pending;
  return v;
}

Tensor rows_of(Tl& tl, const Tensor& t, int64_t r0, int64_t n) {
  return view_of(tl, t, static_cast<uint64_t>(r0 * t.h.stride()) * dtype_bytes(t.h.dtype),
                 {n, t.shape()[1]}, t.h.row_stride);
}

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

int64_t chunk_rows(const Step& s, int64_t total, int64_t per_row) {
  return std::max<int64_t>(1, std::min<int64_t>(total, static_cast<int64_t>(s.a.tcm_budget) /
                                                           std::max<int64_t>(per_row, 1)));
}

void rmsnorm(Step& s, const Tensor& gamma, const Tensor& x_all, const Tensor& xn_all,
             int64_t rows) {
  Tl& tl = s.tl;
  auto scope = tl.scratch_scope();
  const Tensor g = tl.load(gamma);
  const int64_t rc = chunk_rows(s, rows, s.H * (4 + 4 + dtype_bytes(s.dt)));
  for (int64_t r0 = 0; r0 < rows; r0 += rc) {
    auto chunk = tl.scratch_scope();
    const int64_t n = std::min(rc, rows - r0);
    const Tensor x = tl.load(rows_of(tl, x_all, r0, n));
    const Tensor sq = tl.math("mul", {x, x});
    Tensor ms = tl.math("rsum", {sq}, {{"reduce_axis", int64_t{-1}}});
    ms = tl.math("scale", {ms}, {{"factor", 1.0 / static_cast<double>(s.H)}}, ms);
    ms = tl.math("rsqrt", {ms}, {{"eps", s.a.shape.norm_eps}}, ms);
    const Tensor y = tl.math("mul_bcast", {x, ms}, {{"bcast_axis", int64_t{1}}}, sq);
    const Tensor yn = tl.math("mul", {y, g}, {}, tl.empty({n, s.H}, s.dt));
    tl.store(rows_of(tl, xn_all, r0, n), yn);
    tl.wait();
  }
}

void residual(Step& s) {
  Tl& tl = s.tl;
  const bool p_tcm = s.partial.h.in_tcm();
  const int64_t rc = chunk_rows(s, s.B, s.H * (p_tcm ? 4 : 8));
  for (int64_t r0 = 0; r0 < s.B; r0 += rc) {
    auto chunk = tl.scratch_scope();
    const int64_t n = std::min(rc, s.B - r0);
    const Tensor x = tl.load(rows_of(tl, s.a.x, r0, n));
    const Tensor p = p_tcm ? rows_of(tl, s.partial, r0, n) : tl.load(rows_of(tl, s.partial, r0, n));
    tl.store(rows_of(tl, s.a.x, r0, n), tl.math("add", {x, p}, {}, x));
    tl.wait();
  }
}

Tensor xn_operand(Step& s) {
  return s.xn_in_tcm ? s.tl.load(s.a.xn) : s.a.xn;
}

void qkv_projection(Step& s, const LayerShard& w) {
  const TransformerStepArgs& a = s.a;
  if (a.qkv.count <= 0) return;
  Tl& tl = s.tl;
  auto g = tl.scratch_scope();
  Tensor out = tl.ref(a.qkv_mine.addr() + static_cast<uint64_t>(a.qkv.first) * 4,
                      {s.B, a.qkv.count}, DType::kFp32);
  out.h.row_stride = a.shape.qkv_width();
  gemm(tl, xn_operand(s), w.wqkv, out);
  tl.wait();
}

void allreduce_all(Step& s, const Tensor& v) {
  if (s.a.allreduce_per_cube > 0)
    cube_allreduce(s.tl, v, s.a.ranks, s.a.rank, s.a.allreduce_per_cube, s.a.allreduce_across);
  else
    tree_allreduce(s.tl, v, s.a.ranks, s.a.rank);
}

void sum_into_stream(Step& s, const char* allreduce_phase, const char* residual_phase) {
  {
    // A stream in HBM is reduced through TCM staging (one per peer): it lives
    // as long as the all-reduce, not the layer (end() waits for the reduces).
    auto staging = s.tl.scratch_scope();
    s.begin(allreduce_phase);
    allreduce_all(s, s.partial);
    s.end();
  }
  s.begin(residual_phase);
  residual(s);
  s.end();
}

void gate_up(Step& s, const LayerShard& w, const Tensor& gate, const Tensor& up) {
  Tl& tl = s.tl;
  s.begin("gate_up");
  {
    auto g = tl.scratch_scope();
    const Tensor xn = xn_operand(s);
    gemm(tl, xn, w.wgate, gate);
    gemm(tl, xn, w.wup, up);
    tl.wait();
  }
  s.end();
}

void run_layers(Step& s, int first_layer, void (*layer)(Step&, const LayerShard&)) {
  for (size_t l = 0; l < s.a.layers.size(); ++l) {
    s.layer = first_layer + static_cast<int>(l);
    layer(s, s.a.layers[l]);
    if (s.a.layer_done) s.a.layer_done(s.layer);
  }
}

void open_rings(Tl& tl, const TransformerStepArgs& a, const std::vector<PeAddr>& also) {
  // Every peer this rank receives from, over all of its collectives (the
  // group's tree is a subtree of the whole one when groups are aligned).
  std::set<PeAddr> from;
  for (const PeAddr& p :
       a.allreduce_per_cube > 0
           ? cube_allreduce_sources(a.ranks, a.rank, a.allreduce_per_cube, a.allreduce_across)
           : tree_sources(a.ranks, a.rank))
    from.insert(p);
  for (const PeAddr& p : tree_sources(a.group, a.group_rank)) from.insert(p);
  from.insert(also.begin(), also.end());
  if (!from.empty()) tl.ipcq_open({from.begin(), from.end()});
}

}  // namespace tx
}  // namespace fw
}  // namespace kb
