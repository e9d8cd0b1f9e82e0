#include "models/scheduler/tile_plan.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "models/commands/op_kinds.h"
#include "models/pe/lowering.h"

namespace kb {

// Named rather than internal: TilePlanner::Gemm (a member of a class with
// linkage) holds a GemmTiler.
namespace tile_plan_detail {

// A GEMM op with its operands and output checked: present, 2-D, one dtype,
// shapes that agree with each other and with its m, k, n extras.
struct CheckedGemm {
  const OpSpec* op;
  const TensorHandle *a, *b, *out;
  int64_t M, K, N;
};

// The stages of the GEMM's tile tokens.
struct GemmTiler {
  CheckedGemm g;
  TilingConfig tiling;
  std::vector<const OpSpec*> k_ops;
  std::vector<const OpSpec*> out_ops;
  unsigned k_tiles;
  bool views;  // the GEMM and STORE stages keep their operand views

  // Appends the stages of tile (mi, ni, ki) to `st`.
  void stages(unsigned mi, unsigned ni, unsigned ki, std::vector<Stage>& st) const;
  // Whether the output tiles can stream their K steps: b tiled column-major
  // outside TCM (each output tile's K steps one contiguous run), a in TCM,
  // no K_TILE op.
  bool can_stream() const;
  // How many output tiles of a row stream as one token: all of them when
  // their b columns are one run and the output is in TCM, else one.
  unsigned stream_columns(unsigned n_tiles) const;
  // Appends the stages of output tiles (mi, n0..n1-1) streamed: the last K
  // step's stages of (mi, n0), its DMA_READ of b carrying every K step's
  // tile of the columns (through the slot's b region as a ring), its FETCH
  // and GEMM serving each, its OUTPUT_TILE ops and STORE each column
  // (Stage::stream_tiles).
  void stream_stages(unsigned mi, unsigned n0, unsigned n1, std::vector<Stage>& st) const;
};

}  // namespace tile_plan_detail

using tile_plan_detail::CheckedGemm;
using tile_plan_detail::GemmTiler;

namespace {

std::string shape_str(const TensorHandle& h) {
  std::string s = "[";
  for (size_t i = 0; i < h.shape.size(); ++i) s += (i ? "," : "") + std::to_string(h.shape[i]);
  return s + "]";
}

void require_2d(const TensorHandle& h, const std::string& what) {
  if (h.shape.size() != 2)
    throw PlanError("gemm: " + what + " must be 2-D, got " + shape_str(h) + " (" + h.describe() +
                    ")");
}

void check_kind(const OpSpec& op, size_t index) {
  if (!is_gemm_kind(op.kind) && !is_math_kind(op.kind))
    throw PlanError("op #" + std::to_string(index) + ": " + unknown_op_kind(op.kind, true));
  if (is_gemm_kind(op.kind)) return;
  for (const auto& [name, h] : op.operands)
    if (h.dtype != op.operands.front().second.dtype)
      throw PlanError("op #" + std::to_string(index) + " '" + op.kind +
                      "': dtype mismatch between operands: " +
                      to_string(op.operands.front().second.dtype) + " and " + to_string(h.dtype));
}

void require_tcm(const OpSpec& op, size_t index, const char* where) {
  auto bad = [&](const std::string& name, const TensorHandle& h) {
    throw PlanError(std::string(where) + " op #" + std::to_string(index) + " '" + op.kind + "' " +
                    name + " " + h.describe() +
                    " is not in TCM: recipe/MATH operands must be in TCM");
  };
  for (const auto& [name, h] : op.operands)
    if (!h.in_tcm()) bad("operand '" + name + "'", h);
  if (op.out && !op.out->in_tcm()) bad("output", *op.out);
}

// The index of the composite's GEMM op, or cmd.ops.size() when it has none (a
// composite holds at most one); checks every op's kind on the way.
size_t gemm_index(const CompositeCmd& cmd) {
  size_t gemm_idx = cmd.ops.size();
  for (size_t i = 0; i < cmd.ops.size(); ++i) {
    check_kind(cmd.ops[i], i);
    if (!is_gemm_kind(cmd.ops[i].kind)) continue;
    if (gemm_idx != cmd.ops.size())
      throw PlanError("two GEMMs in one composite (ops #" + std::to_string(gemm_idx) + " and #" +
                      std::to_string(i) + "); a composite holds at most one");
    gemm_idx = i;
  }
  return gemm_idx;
}

TileToken single(uint64_t cmd_id, std::string tile, std::vector<Stage> stages) {
  TileToken t;
  t.cmd_id = cmd_id;
  t.tile = std::move(tile);
  t.stages = std::move(stages);
  return t;
}

// Op #i of a MATH-only composite: its off-chip operands staged through DMA
// into the staging slot, the MATH stage, and the write-back of an off-chip
// output.
std::vector<Stage> math_op_stages(const OpSpec& op, size_t i, const TilingConfig& tiling) {
  std::vector<Stage> stages;
  Stage math = lowering::math_op(op, math_elements(op));
  uint64_t staged_off = 0;
  for (size_t oi = 0; oi < op.operands.size(); ++oi) {
    const auto& [name, h] = op.operands[oi];
    if (h.in_tcm()) continue;
    StageOperands& o = math.mutable_operands();
    o.inputs[oi].addr = staged_off;  // lands contiguously in the staging slot
    o.inputs[oi].row_stride = 0;
    o.staged_inputs[oi] = true;
    if (staged_off + h.bytes() > tiling.slot_bytes())
      throw PlanError("op #" + std::to_string(i) + " '" + op.kind + "' operand '" + name + "' " +
                      h.describe() + " is off-chip and larger than a staging slot (" +
                      std::to_string(tiling.slot_bytes()) + " bytes): load it into TCM first");
    stages.push_back(lowering::plan_dma(
        StageKind::kDmaRead, h.addr, staged_off,
        static_cast<uint64_t>(h.cols()) * dtype_bytes(h.dtype), static_cast<uint64_t>(h.rows()),
        static_cast<uint64_t>(h.stride()) * dtype_bytes(h.dtype), 0, Stage::kStagedDst));
    staged_off += h.bytes();
  }
  if (op.out && !op.out->in_tcm()) {
    math.mutable_operands().output.addr = tiling.slot_c_offset();
    math.mutable_operands().output.row_stride = 0;
    math.staged |= Stage::kStagedOut;
  }
  stages.push_back(math);
  if (op.out && !op.out->in_tcm()) {
    const TensorHandle& o = *op.out;
    stages.push_back(lowering::plan_dma(
        StageKind::kDmaWrite, tiling.slot_c_offset(), o.addr,
        static_cast<uint64_t>(o.cols()) * dtype_bytes(o.dtype), static_cast<uint64_t>(o.rows()), 0,
        static_cast<uint64_t>(o.stride()) * dtype_bytes(o.dtype), Stage::kStagedSrc));
  }
  return stages;
}

CheckedGemm check_gemm(const OpSpec& gemm) {
  const TensorHandle* a = gemm.operand("a");
  const TensorHandle* b = gemm.operand("b");
  if (!a || !b) throw PlanError("gemm: operands 'a' and 'b' are required");
  if (!gemm.out) throw PlanError("gemm: an output handle is required");
  const TensorHandle& out = *gemm.out;
  require_2d(*a, "a");
  require_2d(*b, "b");
  require_2d(out, "out");
  if (a->dtype != b->dtype)
    throw PlanError(std::string("gemm: dtype mismatch: a is ") + to_string(a->dtype) +
                    " but b is " + to_string(b->dtype));
  const int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
  if (b->shape[0] != K)
    throw PlanError("gemm: mismatched shapes: a " + shape_str(*a) + " and b " + shape_str(*b) +
                    " disagree on K (" + std::to_string(K) + " vs " + std::to_string(b->shape[0]) +
                    ")");
  if (out.shape[0] != M || out.shape[1] != N)
    throw PlanError("gemm: mismatched shapes: out " + shape_str(out) + " is not [" +
                    std::to_string(M) + "," + std::to_string(N) + "] = a " + shape_str(*a) +
                    " x b " + shape_str(*b));
  for (const char* dim : {"m", "k", "n"}) {
    const int64_t want = dim[0] == 'm' ? M : dim[0] == 'k' ? K : N;
    const int64_t got = gemm.extra_int(dim, want);
    if (got != want)
      throw PlanError(std::string("gemm: mismatched shapes: extra ") + dim + "=" +
                      std::to_string(got) + " but the operands give " + std::to_string(want));
  }
  return {&gemm, a, b, &out, M, K, N};
}

// Prologue: KERNEL-scope ops before the GEMM, TCM-resident.
void plan_prologue(const CompositeCmd& cmd, size_t gemm_idx, uint64_t cmd_id,
                   std::vector<TileToken>& prologue) {
  for (size_t i = 0; i < gemm_idx; ++i) {
    const OpSpec& op = cmd.ops[i];
    if (op.scope != Scope::kKernel)
      throw PlanError("op #" + std::to_string(i) + " '" + op.kind +
                      "' before the GEMM must have "
                      "KERNEL scope (got " +
                      to_string(op.scope) + ")");
    require_tcm(op, i, "prologue");
    prologue.push_back(
        single(cmd_id, "prologue" + std::to_string(i), {lowering::math_op(op, math_elements(op))}));
  }
}

// Epilogue: the ops after the GEMM, by scope: per K step (k_ops), per output
// tile (out_ops), or once after the GEMM (post).
void plan_epilogue(const CompositeCmd& cmd, size_t gemm_idx, const TensorHandle& out,
                   uint64_t cmd_id, std::vector<TileToken>& post, std::vector<const OpSpec*>& k_ops,
                   std::vector<const OpSpec*>& out_ops) {
  for (size_t i = gemm_idx + 1; i < cmd.ops.size(); ++i) {
    const OpSpec& op = cmd.ops[i];
    // An epilogue may name the GEMM's own output (the accumulate form, which
    // needs that output on chip); any other operand must be on chip too.
    for (const auto& [name, h] : op.operands)
      if (h.id == out.id && !h.in_tcm())
        throw PlanError("epilogue op #" + std::to_string(i) + " '" + op.kind +
                        "' accumulates into the GEMM's own output " + h.describe() +
                        ", which is not in TCM: accumulate into a TCM output and store it");
      else if (h.id != out.id && !h.in_tcm())
        throw PlanError("epilogue op #" + std::to_string(i) + " '" + op.kind + "' operand '" +
                        name + "' " + h.describe() +
                        " is not in TCM: recipe/MATH operands must be in TCM");
    if (op.scope == Scope::kKTile) k_ops.push_back(&op);
    if (op.scope == Scope::kOutputTile) out_ops.push_back(&op);
    if (op.scope == Scope::kKernel)
      post.push_back(
          single(cmd_id, "post" + std::to_string(i), {lowering::math_op(op, math_elements(op))}));
  }
}

}  // namespace

void GemmTiler::stages(unsigned mi, unsigned ni, unsigned ki, std::vector<Stage>& st) const {
  const TensorHandle* a = g.a;
  const TensorHandle* b = g.b;
  const TensorHandle& out = *g.out;
  const int64_t M = g.M, K = g.K, N = g.N;
  const unsigned tm = tiling.tile_m, tk = tiling.tile_k, tn = tiling.tile_n;
  const uint64_t ea = dtype_bytes(a->dtype), eb = dtype_bytes(b->dtype),
                 eo = dtype_bytes(out.dtype);
  // Decoded once per tile (each decodes the operand's address).
  const bool a_tcm = a->in_tcm(), b_tcm = b->in_tcm(), out_tcm = out.in_tcm();
  const uint64_t mm = std::min<int64_t>(tm, M - int64_t{mi} * tm);
  const uint64_t kk = std::min<int64_t>(tk, K - int64_t{ki} * tk);
  const uint64_t nn = std::min<int64_t>(tn, N - int64_t{ni} * tn);
  const uint64_t a_at = a->addr + (uint64_t{mi} * tm * a->stride() + uint64_t{ki} * tk) * ea;
  // A tiled b (blocks of tk x tn, checked by the plan) streams each tile as one
  // contiguous block.
  const uint64_t b_at = b->tiled()
                            ? b->addr + b->block_offset(int64_t{ki} * tk, int64_t{ni} * tn)
                            : b->addr + (uint64_t{ki} * tk * b->stride() + uint64_t{ni} * tn) * eb;
  const uint64_t b_stride = b->tiled() ? nn : static_cast<uint64_t>(b->stride());
  // Each stage is built in place at the end of the list (emplace_back() and
  // a builder writing into it), not as a temporary moved in.
  const size_t first = st.size();
  st.reserve(first + 6 + k_ops.size() + out_ops.size());
  if (!a_tcm)
    lowering::plan_dma(st.emplace_back(), StageKind::kDmaRead, a_at, tiling.slot_a_offset(),
                       kk * ea, mm, a->stride() * ea, kk * ea, Stage::kStagedDst);
  if (!b_tcm)
    lowering::plan_dma(st.emplace_back(), StageKind::kDmaRead, b_at, tiling.slot_b_offset(),
                       nn * eb, kk, b_stride * eb, nn * eb, Stage::kStagedDst);
  const TensorHandle a_view =
      a_tcm ? lowering::tile_view(a_at, mm, kk, a->stride(), a->dtype)
            : lowering::tile_view(tiling.slot_a_offset(), mm, kk, 0, a->dtype);
  const TensorHandle b_view =
      b_tcm ? lowering::tile_view(b_at, kk, nn, b->stride(), b->dtype)
            : lowering::tile_view(tiling.slot_b_offset(), kk, nn, 0, b->dtype);
  lowering::tile_fetch(st.emplace_back(), a_view, b_view, !a_tcm);
  lowering::tile_gemm(st.emplace_back(), *g.op, a_view, !a_tcm, b_view, !b_tcm, out.addr,
                      k_ops.empty(), views);
  for (size_t q = 0; q < k_ops.size(); ++q) {
    Stage& m = st.emplace_back(lowering::tile_math_op(*k_ops[q], mm * nn, Stage::MathOn::kPartial));
    m.accumulate_partial = q + 1 == k_ops.size();
  }
  if (ki + 1 == k_tiles) {
    for (const OpSpec* op : out_ops)
      st.push_back(lowering::tile_math_op(*op, mm * nn, Stage::MathOn::kAccumulator));
    const uint64_t o_at = out.addr + (uint64_t{mi} * tm * out.stride() + uint64_t{ni} * tn) * eo;
    lowering::tile_store(st.emplace_back(),
                         out_tcm
                             ? lowering::tile_view(o_at, mm, nn, out.stride(), out.dtype)
                             : lowering::tile_view(tiling.slot_c_offset(), mm, nn, 0, out.dtype),
                         !out_tcm, views);
    if (!out_tcm)
      lowering::plan_dma(st.emplace_back(), StageKind::kDmaWrite, tiling.slot_c_offset(), o_at,
                         nn * eo, mm, nn * eo, out.stride() * eo, Stage::kStagedSrc);
  }
  for (size_t s = first; s < st.size(); ++s) {
    Stage& x = st[s];
    x.mi = mi;
    x.ni = ni;
    x.ki = ki;
    x.first_k = ki == 0;
    x.m0 = int64_t{mi} * tm;
    x.n0 = int64_t{ni} * tn;
    x.out_m = M;
    x.out_n = N;
  }
}

bool GemmTiler::can_stream() const {
  // One block row (K within a block's height) is laid out the same in
  // either grid order: its blocks follow one another.
  const bool columns_follow = g.b->block_col_major || g.K <= int64_t{g.b->block_rows};
  return g.b->tiled() && columns_follow && !g.b->in_tcm() && g.a->in_tcm() && k_ops.empty();
}

unsigned GemmTiler::stream_columns(unsigned n_tiles) const {
  // b's column blocks follow each other when b is its whole stored matrix
  // (not a K window of it); the output tiles between them need it in TCM
  // (a DMA_WRITE per output tile would not stream).
  const bool whole = g.b->grid_rows == 0 || (g.b->grid_row0 == 0 && g.b->grid_rows == g.K);
  return whole && g.out->in_tcm() ? n_tiles : 1;
}

void GemmTiler::stream_stages(unsigned mi, unsigned n0, unsigned n1, std::vector<Stage>& st) const {
  const size_t first = st.size();
  stages(mi, n0, k_tiles - 1, st);
  const unsigned tk = tiling.tile_k, tn = tiling.tile_n;
  const uint64_t ea = dtype_bytes(g.a->dtype), eb = dtype_bytes(g.b->dtype),
                 eo = dtype_bytes(g.out->dtype);
  const uint64_t mm = std::min<int64_t>(tiling.tile_m, g.M - int64_t{mi} * tiling.tile_m);
  const auto K = static_cast<uint64_t>(g.K);
  uint64_t cols = 0;  // output columns of the run
  for (unsigned ni = n0; ni < n1; ++ni) cols += std::min<int64_t>(tn, g.N - int64_t{ni} * tn);
  const uint64_t columns = n1 - n0, items = columns * k_tiles;
  for (size_t s = first; s < st.size(); ++s) {
    Stage& x = st[s];
    if (x.kind == StageKind::kDmaRead) {  // b: every tile of the run, through the slot's b ring
      DmaTransfer& t = x.transfer;
      const uint64_t first_tile =
          std::min<uint64_t>(tk, K) * std::min<int64_t>(tn, g.N - int64_t{n0} * tn) * eb;
      t.src = g.b->addr + g.b->block_offset(0, int64_t{n0} * tn);
      t.row_bytes = K * cols * eb;
      t.rows = 1;
      t.src_stride = t.dst_stride = 0;
      t.dst_ring = tiling.slot_c_offset() - tiling.slot_b_offset();
      t.mark_bytes = first_tile;
      x.addr = t.src;
      x.bytes = t.total_bytes();
      x.stream_tiles = static_cast<uint32_t>(items);
    } else if (x.kind == StageKind::kFetch) {  // each K step's a and b tiles
      x.bytes = columns * mm * K * ea + K * cols * eb;
      x.stream_tiles = static_cast<uint32_t>(items);
    } else if (x.kind == StageKind::kGemm) {
      x.native_tiles = static_cast<unsigned>(items);
      x.flops = 2 * mm * K * cols;
      x.stream_tiles = static_cast<uint32_t>(items);
      x.first_k = true;
    } else if (columns > 1 && x.kind == StageKind::kMath) {  // an OUTPUT_TILE op, per column
      x.elements = mm * cols;
      x.stream_tiles = static_cast<uint32_t>(columns);
    } else if (columns > 1 && x.kind == StageKind::kStore) {
      x.bytes = mm * cols * eo;
      x.stream_tiles = static_cast<uint32_t>(columns);
    }
  }
}

uint64_t math_elements(const OpSpec& op) {
  if (op.out) return static_cast<uint64_t>(op.out->numel());
  if (!op.operands.empty()) return static_cast<uint64_t>(op.operands.front().second.numel());
  return 0;
}

struct TilePlanner::Gemm {
  GemmTiler tiler;
  uint64_t cmd_id;
  unsigned n_tiles;
};

TilePlanner::TilePlanner(const CompositeCmd& cmd, const TilingConfig& tiling, uint64_t cmd_id,
                         bool operand_views, bool stream) {
  if (cmd.ops.empty()) throw PlanError("composite has no ops");
  const size_t gemm_idx = gemm_index(cmd);

  // MATH-only plan: every op in order, off-chip operands staged through DMA.
  if (gemm_idx == cmd.ops.size()) {
    for (size_t i = 0; i < cmd.ops.size(); ++i) {
      std::vector<Stage> stages = math_op_stages(cmd.ops[i], i, tiling);
      fixed_[1].push_back(single(cmd_id, "op" + std::to_string(i), std::move(stages)));
    }
    return;
  }

  const CheckedGemm g = check_gemm(cmd.ops[gemm_idx]);
  plan_prologue(cmd, gemm_idx, cmd_id, fixed_[0]);
  std::vector<const OpSpec*> k_ops, out_ops;
  plan_epilogue(cmd, gemm_idx, *g.out, cmd_id, fixed_[2], k_ops, out_ops);

  const unsigned tm = tiling.tile_m, tk = tiling.tile_k, tn = tiling.tile_n;
  if (g.a->tiled() || g.out->tiled())
    throw PlanError("gemm: only operand b may be tiled (a " + g.a->describe() + ", out " +
                    g.out->describe() + ")");
  // A tiled b streams a tile as one run: the blocks are tile_n wide and a
  // whole number of tile_k tall (ragged edges are compact blocks).
  if (g.b->tiled() && (g.b->in_tcm() || g.b->block_rows % tk != 0 || g.b->block_cols != tn))
    throw PlanError("gemm: b " + g.b->describe() + " is tiled, which needs blocks " +
                    std::to_string(tn) + " wide (the native tile's n) and a multiple of " +
                    std::to_string(tk) + " (its k) tall, and b outside TCM");
  m_tiles = static_cast<unsigned>((g.M + tm - 1) / tm);
  k_tiles = static_cast<unsigned>((g.K + tk - 1) / tk);
  n_tiles = static_cast<unsigned>((g.N + tn - 1) / tn);
  gemm_ = std::make_unique<Gemm>(
      Gemm{GemmTiler{g, tiling, std::move(k_ops), std::move(out_ops), k_tiles, operand_views},
           cmd_id, n_tiles});
  if (stream && gemm_->tiler.can_stream()) {
    stream_columns_ = gemm_->tiler.stream_columns(n_tiles);
    // A single K step of a single column has nothing to stream.
    streamed_ = k_tiles > 1 || stream_columns_ > 1;
  }
}

TilePlanner::~TilePlanner() = default;

size_t TilePlanner::count(int phase) const {
  if (phase == 1 && gemm_ && streamed_)
    return size_t{m_tiles} * ((n_tiles + stream_columns_ - 1) / stream_columns_);
  if (phase == 1 && gemm_) return size_t{m_tiles} * n_tiles * k_tiles;
  return fixed_[phase].size();
}

TileToken TilePlanner::take(int phase, size_t i) {
  TileToken t;
  take(phase, i, t);
  return t;
}

void TilePlanner::take(int phase, size_t i, TileToken& out) {
  if (phase != 1 || !gemm_) {
    out = std::move(fixed_[phase].at(i));
    return;
  }
  out.reset();
  out.cmd_id = gemm_->cmd_id;
  auto put = [&out](const char* tag, unsigned v) {
    char digits[10];  // the most an unsigned needs
    const char* end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out.tile += tag;
    out.tile.append(digits, static_cast<size_t>(end - digits));
  };
  if (streamed_) {  // "m<mi>.n<first>-<last>.k0-<last>"
    const size_t runs = (n_tiles + stream_columns_ - 1) / stream_columns_;
    const auto n0 = static_cast<unsigned>(i % runs * stream_columns_);
    const auto mi = static_cast<unsigned>(i / runs);
    const unsigned n1 = std::min(n_tiles, n0 + stream_columns_);
    put("m", mi);
    put(".n", n0);
    put("-", n1 - 1);
    put(".k0-", k_tiles - 1);
    gemm_->tiler.stream_stages(mi, n0, n1, out.stages);
    return;
  }
  // Loop order m, n, k.
  const auto ki = static_cast<unsigned>(i % k_tiles);
  const auto ni = static_cast<unsigned>(i / k_tiles % n_tiles);
  const auto mi = static_cast<unsigned>(i / k_tiles / n_tiles);
  // "m<mi>.n<ni>.k<ki>", appended in place: a tile token is made per tile.
  put("m", mi);
  put(".n", ni);
  put(".k", ki);
  gemm_->tiler.stages(mi, ni, ki, out.stages);
}

TilePlan make_tile_plan(const CompositeCmd& cmd, const TilingConfig& tiling, uint64_t cmd_id) {
  TilePlanner planner(cmd, tiling, cmd_id);
  TilePlan plan;
  plan.has_gemm = planner.has_gemm();
  plan.m_tiles = planner.m_tiles;
  plan.k_tiles = planner.k_tiles;
  plan.n_tiles = planner.n_tiles;
  std::vector<TileToken>* phases[3] = {&plan.prologue, &plan.tiles, &plan.post};
  for (int phase = 0; phase < 3; ++phase) {
    phases[phase]->reserve(planner.count(phase));
    for (size_t i = 0; i < planner.count(phase); ++i)
      phases[phase]->push_back(planner.take(phase, i));
  }
  return plan;
}

}  // namespace kb
