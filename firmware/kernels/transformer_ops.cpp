#include "firmware/kernels/transformer_ops.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "firmware/kernels/allreduce.h"

namespace kb {
namespace fw {

StreamResidency stream_residency(int64_t rows, int64_t hidden, DType dtype,
                                 uint64_t partial_tcm_limit, uint64_t xn_tcm_limit,
                                 int64_t acc_cols, int64_t align) {
  const auto n = static_cast<uint64_t>(rows * hidden);
  StreamResidency r;
  r.partial_in_tcm = n * 4 <= partial_tcm_limit;
  const uint64_t kept = r.partial_in_tcm ? n * 4 : 0;
  r.xn_in_tcm = n * dtype_bytes(dtype) + kept <= xn_tcm_limit;
  if (r.xn_in_tcm) {
    r.xn_chunk_cols = hidden;
  } else if (align > 0) {
    const auto acc = static_cast<uint64_t>(rows * std::max<int64_t>(acc_cols, 0)) * 4;
    const uint64_t per_col = 2 * static_cast<uint64_t>(rows) * dtype_bytes(dtype);
    const uint64_t room = xn_tcm_limit > kept + acc ? xn_tcm_limit - kept - acc : 0;
    const auto cols = static_cast<int64_t>(room / per_col) / align * align;
    r.xn_chunk_cols = std::min(cols, hidden);
  }
  return r;
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
  const StreamResidency r = stream_residency(B, H, dt, a.partial_tcm_limit, a.xn_tcm_limit);
  partial = r.partial_in_tcm ? tl.empty({B, H}, DType::kFp32) : a.partial;
  xn_in_tcm = r.xn_in_tcm;
  xn_chunk = r.xn_in_tcm ? H : a.xn_chunk_cols;
  if (a.sharded_residual) {
    if (a.allreduce_per_cube == 0 || a.allreduce_across != CrossCube::kHalving ||
        !cube_allreduce_halves(a.ranks.size(), a.allreduce_per_cube))
      throw std::invalid_argument(
          "transformer step: a sharded residual stream needs the hierarchical all-reduce with "
          "the halving across a power of two of cubes");
    shard = cube_shard(B * H, a.ranks.size(), a.rank, a.allreduce_per_cube);
  }
}

void Step::begin(const char* p) {
  phase = p;
  t0 = tl.now_ns();
}

void Step::end() {
  tl.wait();
  const PhaseRecord r{layer, phase, t0, tl.now_ns()};
  if (phases) phases->push_back(r);
  if (a.phase_done) a.phase_done(r);
}

Tensor view_of(Tl& tl, const Tensor& t, uint64_t byte_offset, Shape shape, int64_t row_stride) {
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

std::vector<RowPiece> row_pieces(int64_t first, int64_t n, int64_t H) {
  std::vector<RowPiece> out;
  int64_t e = first;
  const int64_t end = first + n;
  while (e < end) {
    const int64_t row = e / H, col = e % H;
    if (col != 0 || end - e < H) {
      const int64_t w = std::min(H - col, end - e);
      out.push_back({row, 1, col, w, e - first});
      e += w;
    } else {
      const int64_t rows = (end - e) / H;
      out.push_back({row, rows, 0, H, e - first});
      e += rows * H;
    }
  }
  return out;
}

namespace {

// Elements [first, first + n) of a tensor, flattened, as a 1-D view.
Tensor flat(Tl& tl, const Tensor& t, int64_t first, int64_t n) {
  return view_of(tl, t, static_cast<uint64_t>(first) * dtype_bytes(t.h.dtype), {n}, 0);
}

// A piece of a 1-D span `t` (TCM) as its [rows, width] matrix.
Tensor piece_of(Tl& tl, const Tensor& t, const RowPiece& p) {
  return view_of(tl, t, static_cast<uint64_t>(p.at) * dtype_bytes(t.h.dtype), {p.rows, p.width}, 0);
}

// RMSNorm of the rank's shard of the stream: the shard's per-row sums of
// squares (zero on the rows it does not touch) all-reduced over every rank,
// then its elements scaled and stored into its shard of xn.
void rmsnorm_shard(Step& s, const Tensor& gamma) {
  Tl& tl = s.tl;
  const TransformerStepArgs& a = s.a;
  auto scope = tl.scratch_scope();
  const int64_t lo = s.shard.first, len = s.shard.count, H = s.H;
  const int64_t per = 4 + 4 + static_cast<int64_t>(dtype_bytes(s.dt));
  const int64_t chunk =
      std::max<int64_t>(1, std::min<int64_t>(len, static_cast<int64_t>(a.tcm_budget) / per));
  const bool one_load = chunk >= len;
  // gamma's columns the shard touches: a part of one row, or all of them.
  const bool one_row = len > 0 && lo / H == (lo + len - 1) / H;
  const int64_t g0 = one_row ? lo % H : 0;
  const Tensor g = len > 0 ? tl.load(cols_of(tl, gamma, g0, one_row ? len : H)) : Tensor{};
  // A shard within the budget is loaded once for both passes.
  const Tensor kept = one_load && len > 0 ? tl.load(flat(tl, a.x, lo, len)) : Tensor{};
  auto x_span = [&](int64_t off, int64_t n) {
    return one_load ? kept : tl.load(flat(tl, a.x, lo + off, n));
  };
  const Tensor ss = tl.load(a.row_zeros);  // [N] fp32
  auto ss_rows = [&](const RowPiece& p) {
    return view_of(tl, ss, static_cast<uint64_t>(p.row) * 4, {p.rows, 1}, 0);
  };
  for (int64_t off = 0; off < len; off += chunk) {
    auto c = tl.scratch_scope();
    const int64_t n = std::min(chunk, len - off);
    const Tensor x = x_span(off, n);
    const Tensor sq = tl.math("mul", {x, x});
    for (const RowPiece& p : row_pieces(lo + off, n, H)) {
      const Tensor part = tl.math("rsum", {piece_of(tl, sq, p)}, {{"reduce_axis", int64_t{-1}}});
      tl.math("add", {ss_rows(p), part}, {}, ss_rows(p));
    }
    tl.wait();
  }
  tl.wait(ss);  // the zeros are in (an empty shard adds nothing to them)
  allreduce_all(s, ss);
  Tensor rs = tl.math("scale", {ss}, {{"factor", 1.0 / static_cast<double>(H)}}, ss);
  rs = tl.math("rsqrt", {rs}, {{"eps", a.shape.norm_eps}}, rs);
  for (int64_t off = 0; off < len; off += chunk) {
    auto c = tl.scratch_scope();
    const int64_t n = std::min(chunk, len - off);
    const Tensor x = x_span(off, n);
    const Tensor y = tl.empty({n}, DType::kFp32);
    const Tensor yn = tl.empty({n}, s.dt);
    for (const RowPiece& p : row_pieces(lo + off, n, H)) {
      const Tensor r = view_of(tl, rs, static_cast<uint64_t>(p.row) * 4, {p.rows, 1}, 0);
      const Tensor yp = tl.math("mul_bcast", {piece_of(tl, x, p), r}, {{"bcast_axis", int64_t{1}}},
                                piece_of(tl, y, p));
      tl.math("mul", {yp, cols_of(tl, g, p.col - g0, p.width)}, {}, piece_of(tl, yn, p));
    }
    tl.wait();  // every piece of yn written
    tl.store(flat(tl, a.xn, lo + off, n), yn);
    tl.wait();
  }
}

// x += partial over the rank's shard of the stream, chunk by chunk.
void residual_shard(Step& s) {
  Tl& tl = s.tl;
  const bool p_tcm = s.partial.h.in_tcm();
  const int64_t lo = s.shard.first, len = s.shard.count;
  const int64_t chunk = std::max<int64_t>(
      1, std::min<int64_t>(len, static_cast<int64_t>(s.a.tcm_budget) / (p_tcm ? 4 : 8)));
  for (int64_t off = 0; off < len; off += chunk) {
    auto c = tl.scratch_scope();
    const int64_t n = std::min(chunk, len - off);
    const Tensor x = tl.load(flat(tl, s.a.x, lo + off, n));
    const Tensor p =
        p_tcm ? flat(tl, s.partial, lo + off, n) : tl.load(flat(tl, s.partial, lo + off, n));
    tl.store(flat(tl, s.a.x, lo + off, n), tl.math("add", {x, p}, {}, x));
    tl.wait();
  }
}

}  // namespace

void norm_rows(Step& s, const Tensor& gamma, const Tensor& x, const Tensor& xn, int64_t rows) {
  if (!s.a.norm) {
    rmsnorm(s, gamma, x, xn, rows);
    return;
  }
  s.a.norm(NormCall{s.tl, gamma, x, xn, rows, s.H, s.a.shape.norm_eps, s.dt, s.a.tcm_budget});
}

void norm_phase(Step& s, const Tensor& gamma, const char* norm, const char* gather) {
  s.begin(norm);
  if (!s.a.sharded_residual) {
    norm_rows(s, gamma, s.a.x, s.a.xn, s.B);
    s.end();
    return;
  }
  if (s.a.norm)
    throw std::invalid_argument(
        "transformer step: a norm kernel of one's own (TransformerStepArgs::norm) runs on whole "
        "rows and needs the replicated residual stream, not the sharded one");
  rmsnorm_shard(s, gamma);
  s.end();
  s.begin(gather);
  cube_all_gather(s.tl, flat(s.tl, s.a.xn, 0, s.B * s.H), s.a.ranks, s.a.rank,
                  s.a.allreduce_per_cube);
  s.end();
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

Tensor weight_rows(Tl& tl, const Tensor& w, int64_t row0, int64_t rows) {
  Tensor v = tl.ref(w.addr(), w.shape(), w.h.dtype);  // a fresh identity
  const uint64_t id = v.h.id;
  v.h = w.h.row_window(row0, rows);
  v.h.id = id;
  v.pending = w.pending;
  return v;
}

void xn_gemms(Step& s, std::initializer_list<XnGemm> gemms) {
  Tl& tl = s.tl;
  // Streamed from HBM, xn is read once per output tile column of every GEMM:
  // chunks pay off only when that is more than once.
  int64_t col_tiles = 0;
  for (const XnGemm& g : gemms)
    col_tiles += g.w.h.tiled() ? (g.w.h.cols() + g.w.h.block_cols - 1) / g.w.h.block_cols : 2;
  if (s.xn_in_tcm || s.xn_chunk <= 0 || s.xn_chunk >= s.H || col_tiles < 2) {
    const Tensor xn = xn_operand(s);
    for (const XnGemm& g : gemms) gemm(tl, xn, g.w, g.out);
    return;
  }
  std::vector<Tensor> acc;
  for (const XnGemm& g : gemms) {
    const TensorHandle& o = g.out.h;
    const bool own = o.in_tcm() && o.dtype == DType::kFp32 && o.stride() == o.cols();
    acc.push_back(own ? g.out : tl.empty({s.B, o.cols()}, DType::kFp32));
  }
  const int64_t kc = s.xn_chunk, chunks = (s.H + kc - 1) / kc;
  const Tensor buf[2] = {tl.empty({s.B, kc}, s.dt), tl.empty({s.B, kc}, s.dt)};
  std::vector<Tensor> reading[2];  // the composites that read each buffer
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t k0 = c * kc, n = std::min(kc, s.H - k0);
    const bool last = c + 1 == chunks;
    std::vector<Tensor>& users = reading[c % 2];
    for (const Tensor& t : users) tl.wait(t);  // nothing still reads the buffer
    users.clear();
    const Tensor dst = view_of(tl, buf[c % 2], 0, {s.B, n}, n);
    const Tensor chunk = tl.load_into(dst, cols_of(tl, s.a.xn, k0, n));
    size_t i = 0;
    for (const XnGemm& g : gemms) {
      CompositeArgs ca;
      ca.a = chunk;
      ca.b = weight_rows(tl, g.w, k0, n);
      ca.out = last ? g.out : acc[i];
      if (c > 0)
        ca.epilogue.push_back({"add", Scope::kOutputTile, {{"other", acc[i]}}, {}, std::nullopt});
      ca.rw = {acc[i]};
      users.push_back(tl.composite(ca));
      ++i;
    }
  }
}

void qkv_projection(Step& s, const LayerShard& w) {
  const TransformerStepArgs& a = s.a;
  if (a.qkv.count <= 0) return;
  Tl& tl = s.tl;
  auto g = tl.scratch_scope();
  Tensor out = tl.ref(a.qkv_mine.addr() + static_cast<uint64_t>(a.qkv.first) * 4,
                      {s.B, a.qkv.count}, DType::kFp32);
  out.h.row_stride = a.shape.qkv_width();
  xn_gemms(s, {{w.wqkv, out}});
  tl.wait();
}

void allreduce_all(Step& s, const Tensor& v) {
  if (s.a.allreduce_per_cube > 0)
    cube_allreduce(s.tl, v, s.a.ranks, s.a.rank, s.a.allreduce_per_cube, s.a.allreduce_across);
  else
    tree_allreduce(s.tl, v, s.a.ranks, s.a.rank);
}

void sum_into_stream(Step& s, const char* allreduce_phase, const char* scatter_phase,
                     const char* residual_phase) {
  {
    // A stream in HBM is reduced through TCM staging (one per peer): it lives
    // as long as the all-reduce, not the layer (end() waits for the reduces).
    auto staging = s.tl.scratch_scope();
    if (s.a.sharded_residual) {
      s.begin(scatter_phase);
      cube_reduce_scatter(s.tl, flat(s.tl, s.partial, 0, s.B * s.H), s.a.ranks, s.a.rank,
                          s.a.allreduce_per_cube);
    } else {
      s.begin(allreduce_phase);
      allreduce_all(s, s.partial);
    }
    s.end();
  }
  s.begin(residual_phase);
  if (s.a.sharded_residual)
    residual_shard(s);
  else
    residual(s);
  s.end();
}

std::vector<PeAddr> stream_reduce_sources(const TransformerStepArgs& a) {
  if (a.allreduce_per_cube == 0) return tree_reduce_sources(a.ranks, a.rank);
  // The sharded stream's reduce-scatter is cube_allreduce's first half with
  // the halving across the cubes.
  return cube_allreduce_reduce_sources(
      a.ranks, a.rank, a.allreduce_per_cube,
      a.sharded_residual ? CrossCube::kHalving : a.allreduce_across);
}

void gate_up(Step& s, const LayerShard& w, const Tensor& gate, const Tensor& up) {
  Tl& tl = s.tl;
  s.begin(phase::kGateUp);
  {
    auto g = tl.scratch_scope();
    xn_gemms(s, {{w.wgate, gate}, {w.wup, up}});
    tl.wait();
  }
  s.end();
}

void run_layers(Step& s, int first_layer, void (*layer)(Step&, const LayerShard&)) {
  for (size_t l = 0; l < s.a.layers.size(); ++l) {
    if (s.a.layer_limit && static_cast<int64_t>(l) >= *s.a.layer_limit) break;
    s.layer = first_layer + static_cast<int>(l);
    layer(s, s.a.layers[l]);
    if (s.a.layer_done) s.a.layer_done(s.layer);
  }
}

std::vector<PeAddr> ring_sources(const TransformerStepArgs& a, const std::vector<PeAddr>& also) {
  // The group's tree is a subtree of the whole one when groups are aligned:
  // a set keeps each peer once.
  std::set<PeAddr> from;
  for (const PeAddr& p :
       a.allreduce_per_cube > 0
           ? cube_allreduce_sources(a.ranks, a.rank, a.allreduce_per_cube, a.allreduce_across)
           : tree_sources(a.ranks, a.rank))
    from.insert(p);
  for (const PeAddr& p : tree_sources(a.group, a.group_rank)) from.insert(p);
  for (const PeAddr& p : list_allreduce_sources(a.group, a.group_rank)) from.insert(p);
  from.insert(also.begin(), also.end());
  return {from.begin(), from.end()};
}

void open_rings(Tl& tl, const TransformerStepArgs& a, const std::vector<PeAddr>& also) {
  const std::vector<PeAddr> from = ring_sources(a, also);
  if (!from.empty()) tl.ipcq_open(from);
}

}  // namespace tx
}  // namespace fw
}  // namespace kb
