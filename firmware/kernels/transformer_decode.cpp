#include "firmware/kernels/transformer_decode.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "firmware/kernels/allreduce.h"
#include "firmware/kernels/softmax_state_reduce.h"
#include "firmware/kernels/transformer_ops.h"

namespace kb {
namespace fw {

namespace {

using namespace tx;

// Column `col` of the cached kt [d, n]: one element per row, a row stride
// apart (in native blocks, the block column's width: the column's elements
// in the blocks above one another are that far apart too).
Tensor kv_column(Tl& tl, const Tensor& kt, int64_t col) {
  const TensorHandle& h = kt.h;
  const uint64_t e = dtype_bytes(h.dtype);
  if (!h.tiled()) {
    Tensor t = tl.ref(h.addr + static_cast<uint64_t>(col) * e, {h.rows(), 1}, h.dtype);
    t.h.row_stride = h.stride();
    return t;
  }
  const int64_t at = h.tiled_index(0, col);
  Tensor t = tl.ref(h.addr + static_cast<uint64_t>(at) * e, {h.rows(), 1}, h.dtype);
  t.h.row_stride = h.tiled_index(std::min<int64_t>(1, h.rows() - 1), col) - at;
  return t;
}

// Row `row` of the cached v [n, d]: one run, or in native blocks (row-major
// grid) one run of block_cols per block of its block row, a block apart:
// a [d / block_cols, block_cols] view.
Tensor kv_row(Tl& tl, const Tensor& v, int64_t row) {
  const TensorHandle& h = v.h;
  const uint64_t e = dtype_bytes(h.dtype);
  const int64_t d = h.cols();
  if (!h.tiled()) return tl.ref(h.addr + static_cast<uint64_t>(row * d) * e, {1, d}, h.dtype);
  const int64_t bc = h.block_cols, at = h.tiled_index(row, 0);
  if (d % bc != 0)
    throw std::invalid_argument("kv_row: a tiled V of width " + std::to_string(d) +
                                " is not whole blocks of " + std::to_string(bc) + " columns");
  Tensor t = tl.ref(h.addr + static_cast<uint64_t>(at) * e, {d / bc, bc}, h.dtype);
  t.h.row_stride = d > bc ? h.tiled_index(row, bc) - at : bc;
  return t;
}

// Attention of the batch over this rank's KV block, merged over the group;
// leaves the normalised output, [B * G, d] in dtype, in attn on every rank.
// The states of attn_chunk sequences at a time travel in one reduce.
void attention(Step& s, const LayerShard& w, const Tensor& rot, const Tensor& attn) {
  Tl& tl = s.tl;
  const TransformerStepArgs& a = s.a;
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
  const TransformerStepArgs& a = s.a;
  const int64_t qw = a.shape.qkv_width();
  auto scope = tl.scratch_scope();
  const Tensor qkv16 = tl.empty({s.B * (s.G + 2), s.d}, s.dt);  // the group's QKV rows
  const Tensor rot = tl.empty({s.B * (s.G + 2), s.d}, s.dt);    // ... rotated
  const Tensor attn = tl.empty({s.B * s.G, s.d}, s.dt);         // attention output

  norm_phase(s, w.norm_attn, phase::kAttnNorm, phase::kAttnNormGather);

  s.begin(phase::kQkv);
  qkv_projection(s, w);
  s.end();

  s.begin(phase::kQkvGather);
  {
    auto g = tl.scratch_scope();
    const Tensor full = tl.load(tl.ref(a.qkv_mine.addr(), {s.B * qw}, DType::kFp32));
    list_allreduce(tl, full, a.group, a.group_rank);
    // (A group of one rank gathers nothing: the copy then waits for the load.)
    tl.math("copy", {view_of(tl, full, 0, {s.B * (s.G + 2), s.d}, 0)}, {}, qkv16);
    tl.wait();
  }
  s.end();

  s.begin(phase::kRope);
  gemm(tl, qkv16, a.rope, rot);
  s.end();

  s.begin(phase::kKvAppend);
  if (a.pos >= a.kv.first && a.pos < a.kv.first + a.kv.count) {
    const int64_t col = a.pos - a.kv.first;
    const uint64_t e = dtype_bytes(s.dt);
    for (int64_t b = 0; b < s.B; ++b) {
      const KvSegment& seg = w.kv.at(static_cast<size_t>(b));
      const uint64_t k_row = static_cast<uint64_t>((b * (s.G + 2) + s.G) * s.d) * e;
      // K is kept transposed: the new K row becomes column `col` of kt.
      tl.store(kv_column(tl, seg.kt, col), tl.ref(rot.addr() + k_row, {s.d, 1}, s.dt));
      const Tensor v_dst = kv_row(tl, seg.v, col);
      tl.store(v_dst,
               tl.ref(qkv16.addr() + k_row + static_cast<uint64_t>(s.d) * e, v_dst.shape(), s.dt));
    }
  }
  s.end();

  s.begin(phase::kAttention);
  attention(s, w, rot, attn);
  s.end();

  s.begin(phase::kOProj);
  {
    const Tensor a16 = view_of(tl, attn, 0, {s.B, s.G * s.d}, 0);
    gemm(tl, cols_of(tl, a16, a.o.first, a.o.count), w.wo, s.partial);
  }
  s.end();

  sum_into_stream(s, phase::kOAllreduce, phase::kOReduceScatter, phase::kOResidual);

  norm_phase(s, w.norm_ffn, phase::kFfnNorm, phase::kFfnNormGather);

  const Tensor gate = tl.empty({s.B, a.ffn.count}, DType::kFp32);
  const Tensor up = tl.empty({s.B, a.ffn.count}, DType::kFp32);
  const Tensor h = tl.empty({s.B, a.ffn.count}, s.dt);
  gate_up(s, w, gate, up);

  s.begin(phase::kSiluMul);
  tl.math("mul", {tl.math("silu", {gate}, {}, gate), up}, {}, h);
  s.end();

  s.begin(phase::kDown);
  gemm(tl, h, w.wdown, s.partial);
  s.end();

  sum_into_stream(s, phase::kFfnAllreduce, phase::kFfnReduceScatter, phase::kFfnResidual);
}

void check_args(const TransformerStepArgs& a) {
  if (a.ranks.empty() || a.group.empty() || a.o.count <= 0 || a.ffn.count <= 0 ||
      a.vocab.count <= 0 || a.kv.count <= 0)
    throw std::invalid_argument(
        "decode_step: every rank needs O rows, FFN and vocabulary columns and "
        "at least one KV position");
}

void tail(Step& s) {
  Tl& tl = s.tl;
  const TransformerStepArgs& a = s.a;
  s.layer = -1;
  norm_phase(s, a.final_norm, phase::kFinalNorm, phase::kFinalNormGather);
  s.begin(phase::kLmHead);
  {
    auto g = tl.scratch_scope();
    xn_gemms(s, {{a.lm_head, a.logits}});
    tl.wait();
  }
  s.end();
}

}  // namespace

void decode_step(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases) {
  check_args(a);
  Step s(tl, a, phases, a.batch);
  open_rings(tl, a);
  run_layers(s, 0, layer);
  tail(s);
}

void decode_layers(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases,
                   int first_layer) {
  check_args(a);
  auto scope = tl.scratch_scope();
  Step s(tl, a, phases, a.batch);
  run_layers(s, first_layer, layer);
}

void decode_tail(Tl& tl, const TransformerStepArgs& a, std::vector<PhaseRecord>* phases) {
  auto scope = tl.scratch_scope();
  Step s(tl, a, phases, a.batch);
  tail(s);
}

}  // namespace fw
}  // namespace kb
