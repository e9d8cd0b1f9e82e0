// PE_SCHEDULER tile plans (docs/ARCHITECTURE.md §3): make_tile_plan is a pure function of
// the composite and the tiling.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/commands/commands.h"
#include "models/common/address_map.h"
#include "models/scheduler/tile_plan.h"
#include "tests/support/cli_run.h"

namespace kb {
namespace {

const TilingConfig kTiling{32, 64, 32};

// Tensor handles with distinct ids, laid out one after the other in a space.
class Handles {
 public:
  TensorHandle tcm(const std::vector<int64_t>& shape, DType t = DType::kFp16) {
    return make(Space::kTcm, shape, t);
  }
  TensorHandle hbm(const std::vector<int64_t>& shape, DType t = DType::kFp16) {
    return make(Space::kHbm, shape, t);
  }
  TensorHandle sram(const std::vector<int64_t>& shape, DType t = DType::kFp16) {
    return make(Space::kSram, shape, t);
  }

 private:
  TensorHandle make(Space s, const std::vector<int64_t>& shape, DType t) {
    TensorHandle h;
    h.id = ++id_;
    h.shape = shape;
    h.dtype = t;
    uint64_t& off = next_[static_cast<int>(s)];
    h.addr = encode_address({s, 0, 0, 0, off});
    off += (h.bytes() + 4095) / 4096 * 4096;
    return h;
  }
  uint64_t id_ = 0;
  uint64_t next_[8] = {};
};

OpSpec gemm_op(const TensorHandle& a, const TensorHandle& b, const TensorHandle& out) {
  OpSpec g;
  g.kind = "gemm";
  g.scope = Scope::kKernel;
  g.operands = {{"a", a}, {"b", b}};
  g.out = out;
  g.extra = {{"m", a.shape[0]}, {"k", a.shape[1]}, {"n", b.shape[1]}};
  return g;
}

OpSpec math_op(const std::string& kind, Scope scope,
               std::vector<std::pair<std::string, TensorHandle>> operands,
               std::optional<TensorHandle> out) {
  OpSpec o;
  o.kind = kind;
  o.scope = scope;
  o.operands = std::move(operands);
  o.out = std::move(out);
  return o;
}

// "DMA_READ DMA_READ FETCH GEMM ..." of a token.
std::string stage_kinds(const TileToken& t) {
  std::string s;
  for (const Stage& st : t.stages) s += (s.empty() ? "" : " ") + std::string(to_string(st.kind));
  return s;
}

unsigned count(const TileToken& t, StageKind k) {
  unsigned n = 0;
  for (const Stage& s : t.stages) n += s.kind == k;
  return n;
}

using test::contains;

// The PlanError message of a composite that must be rejected.
std::string plan_error(const CompositeCmd& c) {
  try {
    make_tile_plan(c, kTiling, 1);
  } catch (const PlanError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a PlanError";
  return "";
}

// ---- GEMM only ----------------------------------------------------------------

TEST(TilePlan, GemmOnlyAllInTcmHasNoDma) {
  Handles hs;
  CompositeCmd c;
  c.ops = {gemm_op(hs.tcm({32, 128}), hs.tcm({128, 32}), hs.tcm({32, 32}))};
  const TilePlan p = make_tile_plan(c, kTiling, 7);
  EXPECT_TRUE(p.has_gemm);
  EXPECT_EQ(p.m_tiles, 1u);
  EXPECT_EQ(p.k_tiles, 2u);
  EXPECT_EQ(p.n_tiles, 1u);
  EXPECT_TRUE(p.prologue.empty());
  EXPECT_TRUE(p.post.empty());
  ASSERT_EQ(p.tiles.size(), 2u);
  EXPECT_EQ(stage_kinds(p.tiles[0]), "FETCH GEMM");
  EXPECT_EQ(stage_kinds(p.tiles[1]), "FETCH GEMM STORE");
  EXPECT_EQ(p.tiles[0].tile, "m0.n0.k0");
  EXPECT_EQ(p.tiles[1].tile, "m0.n0.k1");
  for (const TileToken& t : p.tiles) EXPECT_EQ(t.cmd_id, 7u);
}

// The scheduler takes tiles into spare tokens: a used token, filled again,
// is the token a fresh take gives (no stage, field or callback left over).
TEST(TilePlan, TakingIntoAUsedTokenGivesAFreshTakesToken) {
  Handles hs;
  CompositeCmd c;
  c.ops = {gemm_op(hs.hbm({64, 192}), hs.hbm({192, 64}), hs.hbm({64, 64}))};
  TilePlanner fresh(c, kTiling, 3);
  TilePlanner reusing(c, kTiling, 3);
  ASSERT_EQ(fresh.count(1), 2u * 3 * 2);
  TileToken used;
  bool stale_callback_ran = false;
  for (size_t i = fresh.count(1); i-- > 0;) {  // last tile (the most stages) first
    const TileToken want = fresh.take(1, i);
    used.next = 2;
    used.slot = 5;
    used.msg = 9;
    used.has_peer = true;
    used.arrived_ns = 1.0;
    used.on_done = [&](TileToken&) { stale_callback_ran = true; };
    reusing.take(1, i, used);
    EXPECT_EQ(used.tile, want.tile);
    EXPECT_EQ(used.cmd_id, want.cmd_id);
    EXPECT_EQ(stage_kinds(used), stage_kinds(want)) << want.tile;
    for (size_t s = 0; s < want.stages.size(); ++s) {
      EXPECT_EQ(used.stages[s].addr, want.stages[s].addr) << want.tile << " stage " << s;
      EXPECT_EQ(used.stages[s].transfer.src, want.stages[s].transfer.src) << want.tile;
      EXPECT_EQ(used.stages[s].ki, want.stages[s].ki) << want.tile;
    }
    EXPECT_EQ(used.next, 0u);
    EXPECT_EQ(used.slot, -1);
    EXPECT_EQ(used.msg, 0u);
    EXPECT_FALSE(used.has_peer);
    EXPECT_EQ(used.arrived_ns, -1);
    EXPECT_FALSE(used.on_done);
  }
  EXPECT_FALSE(stale_callback_ran);
}

// A run that neither logs ops nor holds data plans its GEMM tiles without
// operand views: every stage is the same but for them, and the GEMM and
// STORE stages have none (the MATH epilogue keeps its own).
TEST(TilePlan, TilesWithoutOperandViewsDifferOnlyInTheViews) {
  Handles hs;
  CompositeCmd c;
  c.ops = {gemm_op(hs.hbm({64, 192}), hs.hbm({192, 64}), hs.hbm({64, 64})),
           math_op("relu", Scope::kOutputTile, {}, std::nullopt)};
  TilePlanner with(c, kTiling, 3);
  TilePlanner without(c, kTiling, 3, /*operand_views=*/false);
  ASSERT_EQ(without.count(1), with.count(1));
  size_t gemms = 0, stores = 0;
  for (size_t i = 0; i < with.count(1); ++i) {
    const TileToken w = with.take(1, i), wo = without.take(1, i);
    EXPECT_EQ(wo.tile, w.tile);
    ASSERT_EQ(stage_kinds(wo), stage_kinds(w)) << w.tile;
    for (size_t s = 0; s < w.stages.size(); ++s) {
      const Stage &a = w.stages[s], &b = wo.stages[s];
      EXPECT_EQ(b.op_kind, a.op_kind);
      EXPECT_EQ(b.bytes, a.bytes);
      EXPECT_EQ(b.addr, a.addr);
      EXPECT_EQ(b.flops, a.flops);
      EXPECT_EQ(b.native_tiles, a.native_tiles);
      EXPECT_EQ(b.elements, a.elements);
      EXPECT_EQ(b.staged, a.staged);
      EXPECT_EQ(b.transfer.src, a.transfer.src);
      EXPECT_EQ(b.transfer.dst, a.transfer.dst);
      EXPECT_EQ(b.accumulate_partial, a.accumulate_partial);
      if (a.kind == StageKind::kGemm || a.kind == StageKind::kStore) {
        EXPECT_TRUE(a.has_operands()) << w.tile << " stage " << s;
        EXPECT_FALSE(b.has_operands()) << w.tile << " stage " << s;
        gemms += a.kind == StageKind::kGemm;
        stores += a.kind == StageKind::kStore;
      } else {
        EXPECT_EQ(b.has_operands(), a.has_operands()) << w.tile << " stage " << s;
      }
    }
  }
  EXPECT_EQ(gemms, with.count(1));
  EXPECT_EQ(stores, 2u * 2);  // one per output tile, at its last K step
}

TEST(TilePlan, GemmOnlyTcmOutHasNoDmaWrite) {
  Handles hs;
  CompositeCmd c;
  c.ops = {gemm_op(hs.hbm({64, 192}), hs.hbm({192, 64}), hs.tcm({64, 64}))};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  ASSERT_EQ(p.tiles.size(), 2u * 3 * 2);
  for (const TileToken& t : p.tiles) {
    EXPECT_EQ(count(t, StageKind::kDmaWrite), 0u) << t.tile;
    EXPECT_EQ(count(t, StageKind::kDmaRead), 2u) << t.tile;
  }
}

TEST(TilePlan, GemmOnlyHbmOutWritesBackOnTheLastKStepOnly) {
  Handles hs;
  CompositeCmd c;
  c.ops = {gemm_op(hs.hbm({64, 192}), hs.hbm({192, 64}), hs.hbm({64, 64}))};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  EXPECT_EQ(p.m_tiles, 2u);
  EXPECT_EQ(p.k_tiles, 3u);
  EXPECT_EQ(p.n_tiles, 2u);
  ASSERT_EQ(p.tiles.size(), 12u);
  // Loop order m, n, k.
  std::vector<std::string> names;
  for (const TileToken& t : p.tiles) names.push_back(t.tile);
  EXPECT_EQ(names.front(), "m0.n0.k0");
  EXPECT_EQ(names[1], "m0.n0.k1");
  EXPECT_EQ(names[3], "m0.n1.k0");
  EXPECT_EQ(names.back(), "m1.n1.k2");
  for (size_t i = 0; i < p.tiles.size(); ++i) {
    const bool last_k = i % 3 == 2;
    EXPECT_EQ(stage_kinds(p.tiles[i]), last_k ? "DMA_READ DMA_READ FETCH GEMM STORE DMA_WRITE"
                                              : "DMA_READ DMA_READ FETCH GEMM")
        << p.tiles[i].tile;
  }
}

TEST(TilePlan, DmaReadAddressesWalkTheOperandTiles) {
  Handles hs;
  const TensorHandle a = hs.hbm({64, 128}), b = hs.hbm({128, 64}), out = hs.hbm({64, 64});
  CompositeCmd c;
  c.ops = {gemm_op(a, b, out)};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  ASSERT_EQ(p.tiles.size(), 8u);
  // m1.n1.k1 (the last token): a at row 32, col 64; b at row 64, col 32.
  const TileToken& t = p.tiles.back();
  ASSERT_EQ(t.tile, "m1.n1.k1");
  ASSERT_EQ(stage_kinds(t), "DMA_READ DMA_READ FETCH GEMM STORE DMA_WRITE");
  const Stage& ra = t.stages[0];
  const Stage& rb = t.stages[1];
  EXPECT_EQ(ra.transfer.src, a.addr + (uint64_t{32} * 128 + 64) * 2);
  EXPECT_EQ(ra.transfer.row_bytes, 64u * 2);
  EXPECT_EQ(ra.transfer.rows, 32u);
  EXPECT_EQ(ra.transfer.src_stride, 128u * 2);
  EXPECT_EQ(ra.bytes, 32u * 64 * 2);
  EXPECT_EQ(rb.transfer.src, b.addr + (uint64_t{64} * 64 + 32) * 2);
  EXPECT_EQ(rb.transfer.row_bytes, 32u * 2);
  EXPECT_EQ(rb.transfer.rows, 64u);
  EXPECT_EQ(rb.bytes, 64u * 32 * 2);
  // DMA destinations are offsets into the staging slot (fixed up later).
  EXPECT_EQ(ra.staged & Stage::kStagedDst, Stage::kStagedDst);
  EXPECT_EQ(ra.transfer.dst, kTiling.slot_a_offset());
  EXPECT_EQ(rb.transfer.dst, kTiling.slot_b_offset());
  const Stage& w = t.stages.back();
  EXPECT_EQ(w.kind, StageKind::kDmaWrite);
  EXPECT_EQ(w.transfer.dst, out.addr + (uint64_t{32} * 64 + 32) * 2);
  EXPECT_EQ(w.bytes, 32u * 32 * 2);
  EXPECT_EQ(w.staged & Stage::kStagedSrc, Stage::kStagedSrc);
}

// A b tiled in native 64x32 blocks streams each tile as one contiguous run:
// block (k 1, n 1) of a column-major grid of 2 block rows is block 3.
TEST(TilePlan, TiledBStreamsOneContiguousBlockPerTile) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 128});
  TensorHandle b = hs.hbm({128, 64});
  b.block_rows = 64;
  b.block_cols = 32;
  b.block_col_major = true;
  const TensorHandle out = hs.tcm({32, 64}, DType::kFp32);
  CompositeCmd c;
  c.ops = {gemm_op(a, b, out)};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  const TileToken& t = p.tiles.back();
  ASSERT_EQ(t.tile, "m0.n1.k1");
  const Stage& rb = t.stages[0];
  ASSERT_EQ(rb.kind, StageKind::kDmaRead);
  EXPECT_EQ(rb.transfer.src, b.addr + uint64_t{3} * 64 * 32 * 2);
  EXPECT_EQ(rb.transfer.row_bytes, 32u * 2);
  EXPECT_EQ(rb.transfer.src_stride, 32u * 2);  // rows follow each other: one run
  EXPECT_EQ(rb.transfer.rows, 64u);
  EXPECT_TRUE(rb.transfer.coalescible());
  EXPECT_EQ(b.tiled_index(64 + 5, 32 + 7), 3 * 64 * 32 + 5 * 32 + 7);
}

// A streamed GEMM (GemmPlan::kStream): b tiled column-major in HBM, a and
// the output in TCM, so every output tile of a row is one token whose DMA
// reads all of b through the slot's b region as a ring.
TEST(TilePlan, StreamedGemmIsOneTokenPerRowOfOutputTiles) {
  Handles hs;
  const TensorHandle a = hs.tcm({40, 192});
  TensorHandle b = hs.hbm({192, 80});  // 3 K steps, columns of 32, 32 and 16
  b.block_rows = 64;
  b.block_cols = 32;
  b.block_col_major = true;
  const TensorHandle out = hs.tcm({40, 80}, DType::kFp32);
  CompositeCmd c;
  c.ops = {gemm_op(a, b, out), math_op("scale", Scope::kOutputTile, {{"x", out}}, out)};
  TilePlanner plan(c, kTiling, 1, false, true);
  ASSERT_TRUE(plan.streamed());
  ASSERT_EQ(plan.count(1), 2u);  // m tiles of 32 and 8
  const TileToken t = plan.take(1, 1);
  EXPECT_EQ(t.tile, "m1.n0-2.k0-2");
  EXPECT_EQ(stage_kinds(t), "DMA_READ FETCH GEMM MATH STORE");
  const DmaTransfer& d = t.stages[0].transfer;
  EXPECT_EQ(d.src, b.addr);
  EXPECT_EQ(d.total_bytes(), b.bytes());
  EXPECT_EQ(d.dst_ring, kTiling.slot_c_offset() - kTiling.slot_b_offset());
  EXPECT_EQ(d.mark_bytes, 64u * 32 * 2);  // the first tile
  EXPECT_EQ(t.stages[0].stream_tiles, 9u);
  EXPECT_EQ(t.stages[1].bytes, 3u * 8 * 192 * 2 + b.bytes());  // each K step's a and b
  EXPECT_EQ(t.stages[2].native_tiles, 9u);
  EXPECT_EQ(t.stages[2].flops, 2u * 8 * 192 * 80);
  EXPECT_EQ(t.stages[3].stream_tiles, 3u);
  EXPECT_EQ(t.stages[3].elements, 8u * 80);
  EXPECT_EQ(t.stages[4].bytes, 8u * 80 * 4);
  // The tiles plan of the same composite.
  EXPECT_EQ(TilePlanner(c, kTiling, 1, false, false).count(1), 2u * 3 * 3);
}

TEST(TilePlan, AGemmThatCannotStreamIsPlannedAsTiles) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 128});
  TensorHandle b = hs.hbm({128, 64});
  b.block_rows = 64;
  b.block_cols = 32;
  b.block_col_major = true;
  // The planner points at its composite's ops, so each composite outlives it.
  std::vector<std::unique_ptr<CompositeCmd>> composites;
  auto planned = [&](const TensorHandle& aa, const TensorHandle& bb, const TensorHandle& o,
                     bool k_op) {
    composites.push_back(std::make_unique<CompositeCmd>());
    CompositeCmd& c = *composites.back();
    c.ops = {gemm_op(aa, bb, o)};
    if (k_op) c.ops.push_back(math_op("scale", Scope::kKTile, {{"x", o}}, o));
    return TilePlanner(c, kTiling, 1, false, true);
  };
  const TensorHandle out_tcm = hs.tcm({32, 64}, DType::kFp32);
  const TensorHandle out_hbm = hs.hbm({32, 64}, DType::kFp32);
  TensorHandle row_major = b;
  row_major.block_col_major = false;
  EXPECT_FALSE(planned(a, row_major, out_tcm, false).streamed());
  EXPECT_FALSE(planned(a, b, out_tcm, true).streamed());                   // a K_TILE op
  EXPECT_FALSE(planned(hs.hbm({32, 128}), b, out_tcm, false).streamed());  // a off chip
  // An output in HBM streams each column alone, its DMA_WRITE at the end.
  TilePlanner per_column = planned(a, b, out_hbm, false);
  ASSERT_TRUE(per_column.streamed());
  EXPECT_EQ(per_column.count(1), 2u);
  EXPECT_EQ(stage_kinds(per_column.take(1, 1)), "DMA_READ FETCH GEMM STORE DMA_WRITE");
}

// A b of one block row (a V-cache tile of the attention's P·V) streams in
// a row-major grid too: its blocks follow one another as in a column-major one.
TEST(TilePlan, ABOfOneBlockRowStreamsInEitherGridOrder) {
  Handles hs;
  const TensorHandle a = hs.tcm({8, 64});
  TensorHandle b = hs.hbm({64, 128});
  b.block_rows = 64;
  b.block_cols = 32;
  CompositeCmd c;
  c.ops = {gemm_op(a, b, hs.tcm({8, 128}, DType::kFp32))};
  TilePlanner p(c, kTiling, 1, false, true);
  ASSERT_TRUE(p.streamed());
  EXPECT_EQ(p.count(1), 1u);  // the whole row of 4 output tiles
  // Two block rows in a row-major grid: its column blocks do not follow.
  CompositeCmd c2;
  TensorHandle b2 = hs.hbm({128, 128});
  b2.block_rows = 64;
  b2.block_cols = 32;
  c2.ops = {gemm_op(hs.tcm({8, 128}), b2, hs.tcm({8, 128}, DType::kFp32))};
  EXPECT_FALSE(TilePlanner(c2, kTiling, 1, false, true).streamed());
}

// A ragged weight shard (K = 100, N = 20: neither a multiple of the native
// 64 x 32) is tiled with compact edge blocks: every tile is still one run.
TEST(TilePlan, RaggedTiledBHasCompactEdgeBlocks) {
  Handles hs;
  const TensorHandle a = hs.tcm({1, 100});
  TensorHandle b = hs.hbm({100, 20});
  b.block_rows = 64;
  b.block_cols = 32;
  b.block_col_major = true;
  CompositeCmd c;
  c.ops = {gemm_op(a, b, hs.tcm({1, 20}, DType::kFp32))};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  ASSERT_EQ(p.tiles.back().tile, "m0.n0.k1");
  const Stage& rb = p.tiles.back().stages[0];
  ASSERT_EQ(rb.kind, StageKind::kDmaRead);
  EXPECT_EQ(rb.transfer.src, b.addr + uint64_t{64} * 20 * 2);  // after the first 64 x 20 block
  EXPECT_EQ(rb.transfer.rows, 36u);
  EXPECT_EQ(rb.transfer.row_bytes, 20u * 2);
  EXPECT_TRUE(rb.transfer.coalescible());
  // Every element has its own place: the blocks tile the matrix exactly.
  std::set<int64_t> seen;
  for (int64_t r = 0; r < 100; ++r)
    for (int64_t col = 0; col < 20; ++col) seen.insert(b.tiled_index(r, col));
  EXPECT_EQ(seen.size(), 2000u);
  EXPECT_EQ(*seen.rbegin(), 1999);
  // A row-major grid with a short last block row and a narrow last column.
  TensorHandle w = hs.hbm({70, 40});
  w.block_rows = 64;
  w.block_cols = 32;
  EXPECT_EQ(w.tiled_index(0, 32), 64 * 32);  // block (0, 1) is 64 x 8
  EXPECT_EQ(w.tiled_index(64, 0), 64 * 40);  // block row 1 is 6 tall
  EXPECT_EQ(w.tiled_index(69, 39), 70 * 40 - 1);
}

// A window of whole block rows of a tiled matrix (a K-slice of a weight):
// every element is where the stored matrix has it, ragged last block row and
// narrow last block column included, and a GEMM over the window streams the
// stored blocks.
TEST(TilePlan, AWindowOfBlockRowsReadsTheStoredBlocks) {
  Handles hs;
  TensorHandle w = hs.hbm({300, 52});  // blocks 64 x 32: a ragged last row and column
  w.block_rows = 64;
  w.block_cols = 32;
  w.block_col_major = true;
  for (const int64_t row0 : {int64_t{0}, int64_t{128}, int64_t{256}}) {
    const int64_t rows = row0 == 256 ? 44 : 128;
    const TensorHandle v = w.row_window(row0, rows);
    ASSERT_EQ(v.shape, (std::vector<int64_t>{rows, 52}));
    EXPECT_EQ(v.addr, w.addr);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < 52; ++c)
        ASSERT_EQ(v.tiled_index(r, c), w.tiled_index(row0 + r, c)) << row0 << " " << r << " " << c;
  }
  EXPECT_THROW(w.row_window(100, 64), std::invalid_argument);  // not a block row's start
  EXPECT_THROW(w.row_window(256, 64), std::invalid_argument);  // past the last row
  const TensorHandle v = w.row_window(128, 128);
  CompositeCmd c;
  c.ops = {gemm_op(hs.tcm({1, 128}), v, hs.tcm({1, 52}, DType::kFp32))};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  ASSERT_EQ(p.tiles.back().tile, "m0.n1.k1");
  const Stage& rb = p.tiles.back().stages[0];
  ASSERT_EQ(rb.kind, StageKind::kDmaRead);
  // Block column 1 (20 wide) of stored block row 3.
  EXPECT_EQ(rb.transfer.src, w.addr + (uint64_t{32} * 300 + uint64_t{3} * 64 * 20) * 2);
  EXPECT_EQ(rb.transfer.rows, 64u);
  EXPECT_EQ(rb.transfer.row_bytes, 20u * 2);
  EXPECT_TRUE(rb.transfer.coalescible());
}

TEST(TilePlan, TiledOperandWithOtherBlocksIsRejected) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 128});
  TensorHandle b = hs.hbm({128, 64});
  b.block_rows = 32;
  b.block_cols = 32;
  CompositeCmd c;
  c.ops = {gemm_op(a, b, hs.tcm({32, 64}, DType::kFp32))};
  try {
    make_tile_plan(c, kTiling, 1);
    FAIL() << "expected a PlanError";
  } catch (const PlanError& e) {
    EXPECT_NE(std::string(e.what()).find("32 wide (the native tile's n) and a multiple of 64"),
              std::string::npos)
        << e.what();
  }
  TensorHandle a2 = hs.hbm({32, 128});
  a2.block_rows = 32;
  a2.block_cols = 64;
  c.ops = {gemm_op(a2, hs.hbm({128, 64}), hs.tcm({32, 64}, DType::kFp32))};
  EXPECT_THROW(make_tile_plan(c, kTiling, 1), PlanError);
}

// ---- epilogue scopes ----------------------------------------------------------

TEST(TilePlan, StageOrderWithKTileOutputTileAndPostLoopOps) {
  Handles hs;
  const TensorHandle a = hs.hbm({32, 192}), b = hs.hbm({192, 64}), out = hs.hbm({32, 64});
  const TensorHandle bias = hs.tcm({1, 64}), x = hs.tcm({32, 64}), post_out = hs.tcm({32, 64});
  // Epilogue ops work on the current tile; their other operands are in TCM.
  CompositeCmd c;
  c.ops = {gemm_op(a, b, out), math_op("scale", Scope::kKTile, {}, std::nullopt),
           math_op("bias", Scope::kOutputTile, {{"bias", bias}}, std::nullopt),
           math_op("relu", Scope::kOutputTile, {}, std::nullopt),
           math_op("copy", Scope::kKernel, {{"src", x}}, post_out)};
  c.ops[1].extra = {{"factor", 0.5}};
  const TilePlan p = make_tile_plan(c, kTiling, 3);
  EXPECT_EQ(p.m_tiles, 1u);
  EXPECT_EQ(p.k_tiles, 3u);
  EXPECT_EQ(p.n_tiles, 2u);
  EXPECT_TRUE(p.prologue.empty());
  ASSERT_EQ(p.tiles.size(), 6u);
  for (size_t i = 0; i < p.tiles.size(); ++i) {
    const TileToken& t = p.tiles[i];
    const bool last_k = i % 3 == 2;
    // K_TILE on every K step; OUTPUT_TILE ops (in order) once per output tile
    // before its STORE; DMA_WRITE last (out is in HBM).
    EXPECT_EQ(stage_kinds(t), last_k ? "DMA_READ DMA_READ FETCH GEMM MATH MATH MATH STORE DMA_WRITE"
                                     : "DMA_READ DMA_READ FETCH GEMM MATH")
        << t.tile;
    EXPECT_EQ(t.stages[4].op_kind, "scale") << t.tile;
    EXPECT_EQ(t.stages[4].elements, 32u * 32) << t.tile;
    if (last_k) {
      EXPECT_EQ(t.stages[5].op_kind, "bias") << t.tile;
      EXPECT_EQ(t.stages[6].op_kind, "relu") << t.tile;
    }
  }
  // K_TILE: once per token (3 K steps x 2 output tiles); OUTPUT_TILE: once per output tile.
  unsigned scale = 0, bias_n = 0, relu = 0;
  for (const TileToken& t : p.tiles)
    for (const Stage& s : t.stages) {
      scale += s.op_kind == "scale";
      bias_n += s.op_kind == "bias";
      relu += s.op_kind == "relu";
    }
  EXPECT_EQ(scale, 6u);
  EXPECT_EQ(bias_n, 2u);
  EXPECT_EQ(relu, 2u);
  // KERNEL after the GEMM: post-loop, one single-stage token.
  ASSERT_EQ(p.post.size(), 1u);
  EXPECT_EQ(stage_kinds(p.post[0]), "MATH");
  EXPECT_EQ(p.post[0].stages[0].op_kind, "copy");
  EXPECT_EQ(p.post[0].stages[0].elements, 32u * 64);
}

TEST(TilePlan, KTileEpilogueOnEveryKStepWithTcmOut) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 256}), b = hs.tcm({256, 32}), out = hs.tcm({32, 32});
  CompositeCmd c;
  c.ops = {gemm_op(a, b, out), math_op("scale", Scope::kKTile, {{"src", out}}, out)};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  ASSERT_EQ(p.tiles.size(), 4u);
  EXPECT_EQ(stage_kinds(p.tiles[0]), "FETCH GEMM MATH");
  EXPECT_EQ(stage_kinds(p.tiles[1]), "FETCH GEMM MATH");
  EXPECT_EQ(stage_kinds(p.tiles[2]), "FETCH GEMM MATH");
  EXPECT_EQ(stage_kinds(p.tiles[3]), "FETCH GEMM MATH STORE");
  EXPECT_TRUE(p.post.empty());
}

TEST(TilePlan, OutputTileEpilogueOncePerOutputTile) {
  Handles hs;
  const TensorHandle a = hs.tcm({64, 128}), b = hs.tcm({128, 96}), out = hs.tcm({64, 96});
  CompositeCmd c;
  c.ops = {gemm_op(a, b, out), math_op("relu", Scope::kOutputTile, {{"src", out}}, out)};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  EXPECT_EQ(p.m_tiles * p.n_tiles, 2u * 3);
  ASSERT_EQ(p.tiles.size(), 2u * 3 * 2);
  unsigned relu = 0, store = 0;
  for (size_t i = 0; i < p.tiles.size(); ++i) {
    const bool last_k = i % 2 == 1;
    EXPECT_EQ(stage_kinds(p.tiles[i]), last_k ? "FETCH GEMM MATH STORE" : "FETCH GEMM")
        << p.tiles[i].tile;
    relu += count(p.tiles[i], StageKind::kMath);
    store += count(p.tiles[i], StageKind::kStore);
  }
  EXPECT_EQ(relu, 6u);
  EXPECT_EQ(store, 6u);
}

TEST(TilePlan, KernelOpsAfterTheGemmArePostLoopInOrder) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 64}), b = hs.tcm({64, 32}), out = hs.tcm({32, 32});
  const TensorHandle r1 = hs.tcm({32, 32}), r2 = hs.tcm({32, 1});
  CompositeCmd c;
  c.ops = {gemm_op(a, b, out), math_op("relu", Scope::kKernel, {{"src", out}}, r1),
           math_op("rmax", Scope::kKernel, {{"src", r1}}, r2)};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  ASSERT_EQ(p.tiles.size(), 1u);
  EXPECT_EQ(stage_kinds(p.tiles[0]), "FETCH GEMM STORE");
  ASSERT_EQ(p.post.size(), 2u);
  EXPECT_EQ(p.post[0].stages.at(0).op_kind, "relu");
  EXPECT_EQ(p.post[1].stages.at(0).op_kind, "rmax");
  EXPECT_EQ(p.post[1].stages.at(0).elements, 32u);  // its output's elements
  EXPECT_EQ(p.post[0].stages.size(), 1u);
  EXPECT_EQ(p.post[1].stages.size(), 1u);
}

// ---- MATH only ------------------------------------------------------------------

TEST(TilePlan, MathOnlyCompositeIsOneTokenPerOpInOrder) {
  Handles hs;
  const TensorHandle x = hs.tcm({32, 128}), y = hs.tcm({32, 128}), z = hs.tcm({32, 128}),
                     m = hs.tcm({32, 1});
  CompositeCmd c;
  c.ops = {math_op("relu", Scope::kKernel, {{"src", x}}, y),
           math_op("add", Scope::kKernel, {{"src", y}, {"other", x}}, z),
           math_op("rmax", Scope::kKernel, {{"src", z}}, m),
           math_op("scale", Scope::kOutputTile, {{"src", z}}, z)};
  const TilePlan p = make_tile_plan(c, kTiling, 9);
  EXPECT_FALSE(p.has_gemm);
  EXPECT_TRUE(p.prologue.empty());
  EXPECT_TRUE(p.post.empty());
  ASSERT_EQ(p.tiles.size(), 4u);
  const char* kinds[] = {"relu", "add", "rmax", "scale"};
  const uint64_t elems[] = {uint64_t{32} * 128, uint64_t{32} * 128, 32, uint64_t{32} * 128};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(stage_kinds(p.tiles[i]), "MATH") << i;
    EXPECT_EQ(p.tiles[i].stages[0].op_kind, kinds[i]) << i;
    EXPECT_EQ(p.tiles[i].stages[0].elements, elems[i]) << i;
    EXPECT_EQ(p.tiles[i].stages[0].op, &c.ops[i]) << i;
    EXPECT_EQ(p.tiles[i].cmd_id, 9u);
  }
}

// ---- prologue + GEMM + epilogue ---------------------------------------------------

TEST(TilePlan, PrologueGemmEpilogueLikeSoftmaxMerge) {
  Handles hs;
  // softmax_merge(s, m, l, O) on a 32 x 128 score tile, d_head = 128.
  const TensorHandle s = hs.tcm({32, 128}), m = hs.tcm({32, 1}), l = hs.tcm({32, 1}),
                     O = hs.tcm({32, 128});
  const TensorHandle m_loc = hs.tcm({32, 1}), m_new = hs.tcm({32, 1}), corr = hs.tcm({32, 1}),
                     P = hs.tcm({32, 128}), l_loc = hs.tcm({32, 1});
  const TensorHandle V = hs.hbm({128, 128});
  const Scope K = Scope::kKernel;
  CompositeCmd c;
  c.ops = {math_op("rmax", K, {{"src", s}}, m_loc),
           math_op("max_elem", K, {{"a", m}, {"b", m_loc}}, m_new),
           math_op("exp_diff", K, {{"a", m}, {"b", m_new}}, corr),
           math_op("exp_diff", K, {{"a", s}, {"b", m_new}}, P),
           math_op("rsum", K, {{"src", P}}, l_loc),
           math_op("fma", K, {{"a", l}, {"b", corr}, {"c", l_loc}}, l),
           math_op("mul_bcast", K, {{"src", O}, {"b", corr}}, O),
           math_op("copy", K, {{"src", m_new}}, m),
           gemm_op(P, V, O),
           math_op("add", Scope::kOutputTile, {{"src", O}, {"other", O}}, O)};
  c.rw_handles = {m, l, O};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  ASSERT_EQ(p.prologue.size(), 8u);
  const char* kinds[] = {"rmax", "max_elem", "exp_diff",  "exp_diff",
                         "rsum", "fma",      "mul_bcast", "copy"};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(stage_kinds(p.prologue[i]), "MATH") << i;  // no DMA in the prologue
    EXPECT_EQ(p.prologue[i].stages[0].op_kind, kinds[i]) << i;
  }
  EXPECT_EQ(p.m_tiles, 1u);
  EXPECT_EQ(p.k_tiles, 2u);
  EXPECT_EQ(p.n_tiles, 4u);
  ASSERT_EQ(p.tiles.size(), 8u);
  const uint64_t v_end = V.addr + V.bytes();
  for (size_t i = 0; i < p.tiles.size(); ++i) {
    const TileToken& t = p.tiles[i];
    const bool last_k = i % 2 == 1;
    // One DMA_READ (for b = V); a = P is in TCM; no DMA_WRITE (O is in TCM).
    EXPECT_EQ(stage_kinds(t), last_k ? "DMA_READ FETCH GEMM MATH STORE" : "DMA_READ FETCH GEMM")
        << t.tile;
    EXPECT_EQ(count(t, StageKind::kDmaRead), 1u) << t.tile;
    EXPECT_EQ(count(t, StageKind::kDmaWrite), 0u) << t.tile;
    const uint64_t src = t.stages[0].transfer.src;
    EXPECT_GE(src, V.addr) << t.tile;
    EXPECT_LT(src, v_end) << t.tile;
  }
  EXPECT_TRUE(p.post.empty());
}

// ---- DMA_READ only for operands outside the TCM ---------------------------------

TEST(TilePlan, DmaReadOnlyForOperandsNotInTcm) {
  Handles hs;
  {  // a in HBM, b in TCM: one DMA_READ per token, for a.
    const TensorHandle a = hs.hbm({32, 128}), b = hs.tcm({128, 32}), out = hs.tcm({32, 32});
    CompositeCmd c;
    c.ops = {gemm_op(a, b, out)};
    const TilePlan p = make_tile_plan(c, kTiling, 1);
    ASSERT_EQ(p.tiles.size(), 2u);
    for (const TileToken& t : p.tiles) {
      ASSERT_EQ(count(t, StageKind::kDmaRead), 1u) << t.tile;
      EXPECT_EQ(t.stages[0].kind, StageKind::kDmaRead);
      EXPECT_GE(t.stages[0].transfer.src, a.addr);
      EXPECT_LT(t.stages[0].transfer.src, a.addr + a.bytes());
    }
  }
  {  // a in TCM, b in cube SRAM (not pinned in TCM): one DMA_READ, for b.
    const TensorHandle a = hs.tcm({32, 128}), b = hs.sram({128, 32}), out = hs.hbm({32, 32});
    CompositeCmd c;
    c.ops = {gemm_op(a, b, out)};
    const TilePlan p = make_tile_plan(c, kTiling, 1);
    ASSERT_EQ(p.tiles.size(), 2u);
    EXPECT_EQ(stage_kinds(p.tiles[0]), "DMA_READ FETCH GEMM");
    EXPECT_EQ(stage_kinds(p.tiles[1]), "DMA_READ FETCH GEMM STORE DMA_WRITE");
    for (const TileToken& t : p.tiles) {
      EXPECT_GE(t.stages[0].transfer.src, b.addr);
      EXPECT_LT(t.stages[0].transfer.src, b.addr + b.bytes());
    }
  }
}

// ---- tile counts and edge tiles -------------------------------------------------

TEST(TilePlan, TileCountsAndEdgeTiles) {
  Handles hs;
  const TensorHandle a = hs.hbm({40, 100}), b = hs.hbm({100, 48}), out = hs.hbm({40, 48});
  CompositeCmd c;
  c.ops = {gemm_op(a, b, out)};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  EXPECT_EQ(p.m_tiles, 2u);  // 32 + 8
  EXPECT_EQ(p.k_tiles, 2u);  // 64 + 36
  EXPECT_EQ(p.n_tiles, 2u);  // 32 + 16
  ASSERT_EQ(p.tiles.size(), 8u);
  for (const TileToken& t : p.tiles) {
    // Parse m<i>.n<j>.k<l>.
    unsigned mi = 0, ni = 0, ki = 0;
    ASSERT_EQ(std::sscanf(t.tile.c_str(), "m%u.n%u.k%u", &mi, &ni, &ki), 3) << t.tile;
    const uint64_t mm = mi ? 8 : 32, kk = ki ? 36 : 64, nn = ni ? 16 : 32;
    const Stage* gemm = nullptr;
    const Stage* fetch = nullptr;
    const Stage* store = nullptr;
    for (const Stage& s : t.stages) {
      if (s.kind == StageKind::kGemm) gemm = &s;
      if (s.kind == StageKind::kFetch) fetch = &s;
      if (s.kind == StageKind::kStore) store = &s;
    }
    ASSERT_NE(gemm, nullptr) << t.tile;
    EXPECT_EQ(gemm->native_tiles, 1u) << t.tile;  // an edge tile costs a full tile
    EXPECT_EQ(gemm->flops, 2 * mm * kk * nn) << t.tile;
    ASSERT_NE(fetch, nullptr) << t.tile;
    EXPECT_EQ(fetch->bytes, (mm * kk + kk * nn) * 2) << t.tile;
    EXPECT_EQ(t.stages[0].bytes, mm * kk * 2) << t.tile;  // DMA_READ a
    EXPECT_EQ(t.stages[1].bytes, kk * nn * 2) << t.tile;  // DMA_READ b
    if (ki == 1) {
      ASSERT_NE(store, nullptr) << t.tile;
      EXPECT_EQ(store->bytes, mm * nn * 2) << t.tile;
      EXPECT_EQ(t.stages.back().bytes, mm * nn * 2) << t.tile;  // DMA_WRITE
    } else {
      EXPECT_EQ(store, nullptr) << t.tile;
    }
  }
}

TEST(TilePlan, Edge40RowsGivesTwoMTilesWithAFullCostEdgeTile) {
  Handles hs;
  const TensorHandle a = hs.tcm({40, 64}), b = hs.tcm({64, 32}), out = hs.tcm({40, 32});
  CompositeCmd c;
  c.ops = {gemm_op(a, b, out)};
  const TilePlan p = make_tile_plan(c, kTiling, 1);
  EXPECT_EQ(p.m_tiles, 2u);
  ASSERT_EQ(p.tiles.size(), 2u);
  const Stage& edge = p.tiles[1].stages.at(1);
  ASSERT_EQ(edge.kind, StageKind::kGemm);
  EXPECT_EQ(edge.native_tiles, 1u);
  EXPECT_EQ(edge.flops, 2u * 8 * 64 * 32);
  EXPECT_EQ(p.tiles[0].stages.at(1).flops, 2u * 32 * 64 * 32);
}

// ---- errors -------------------------------------------------------------------------

TEST(TilePlan, TwoGemmsAreRejected) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 64}), b = hs.tcm({64, 32}), out = hs.tcm({32, 32}),
                     out2 = hs.tcm({32, 32});
  CompositeCmd c;
  c.ops = {gemm_op(a, b, out), gemm_op(a, b, out2)};
  const std::string msg = plan_error(c);
  EXPECT_TRUE(contains(msg, "two GEMMs")) << msg;
}

TEST(TilePlan, MismatchedShapesAreRejected) {
  Handles hs;
  {  // K disagrees.
    CompositeCmd c;
    c.ops = {gemm_op(hs.tcm({32, 64}), hs.tcm({128, 32}), hs.tcm({32, 32}))};
    const std::string msg = plan_error(c);
    EXPECT_TRUE(contains(msg, "mismatched shapes")) << msg;
    EXPECT_TRUE(contains(msg, "[32,64]")) << msg;
    EXPECT_TRUE(contains(msg, "[128,32]")) << msg;
  }
  {  // out is not [M, N].
    CompositeCmd c;
    c.ops = {gemm_op(hs.tcm({32, 64}), hs.tcm({64, 32}), hs.tcm({32, 64}))};
    const std::string msg = plan_error(c);
    EXPECT_TRUE(contains(msg, "mismatched shapes")) << msg;
  }
  {  // extra m/k/n disagree with the operands.
    CompositeCmd c;
    c.ops = {gemm_op(hs.tcm({32, 64}), hs.tcm({64, 32}), hs.tcm({32, 32}))};
    c.ops[0].extra = {{"m", int64_t{32}}, {"k", int64_t{128}}, {"n", int64_t{32}}};
    const std::string msg = plan_error(c);
    EXPECT_TRUE(contains(msg, "mismatched shapes")) << msg;
  }
  {  // not 2-D.
    CompositeCmd c;
    c.ops = {gemm_op(hs.tcm({32, 64}), hs.tcm({64, 32}), hs.tcm({32, 32}))};
    c.ops[0].operands[1].second.shape = {2, 32, 32};
    const std::string msg = plan_error(c);
    EXPECT_TRUE(contains(msg, "2-D")) << msg;
  }
}

TEST(TilePlan, PrologueOperandOutsideTcmIsRejected) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 64}), b = hs.hbm({64, 32}), out = hs.tcm({32, 32});
  const TensorHandle x_hbm = hs.hbm({32, 64});
  CompositeCmd c;
  c.ops = {math_op("relu", Scope::kKernel, {{"src", x_hbm}}, a), gemm_op(a, b, out)};
  const std::string msg = plan_error(c);
  EXPECT_TRUE(contains(msg, "must be in TCM")) << msg;
  EXPECT_TRUE(contains(msg, "relu")) << msg;
  // Its output outside the TCM is rejected too.
  CompositeCmd c2;
  c2.ops = {math_op("relu", Scope::kKernel, {{"src", a}}, hs.hbm({32, 64})), gemm_op(a, b, out)};
  const std::string msg2 = plan_error(c2);
  EXPECT_TRUE(contains(msg2, "must be in TCM")) << msg2;
}

TEST(TilePlan, PrologueOpMustHaveKernelScope) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 64}), b = hs.tcm({64, 32}), out = hs.tcm({32, 32});
  CompositeCmd c;
  c.ops = {math_op("relu", Scope::kKTile, {{"src", a}}, a), gemm_op(a, b, out)};
  const std::string msg = plan_error(c);
  EXPECT_TRUE(contains(msg, "KERNEL")) << msg;
}

TEST(TilePlan, EpilogueOperandsMustBeInTcm) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 64}), b = hs.tcm({64, 32});
  {  // Naming the GEMM's own TCM output (the accumulate form) is fine.
    const TensorHandle out = hs.tcm({32, 32});
    CompositeCmd ok;
    ok.ops = {gemm_op(a, b, out), math_op("add", Scope::kOutputTile, {{"other", out}}, out)};
    EXPECT_NO_THROW(make_tile_plan(ok, kTiling, 1));
    // Any other operand outside the TCM is not.
    CompositeCmd bad = ok;
    bad.ops[1].operands.emplace_back("bias", hs.hbm({32, 32}));
    const std::string msg = plan_error(bad);
    EXPECT_TRUE(contains(msg, "must be in TCM")) << msg;
  }
  {  // Accumulating into a GEMM output that lives in HBM is rejected.
    const TensorHandle out = hs.hbm({32, 32});
    CompositeCmd c;
    c.ops = {gemm_op(a, b, out), math_op("add", Scope::kOutputTile, {{"other", out}}, out)};
    const std::string msg = plan_error(c);
    EXPECT_TRUE(contains(msg, "not in TCM")) << msg;
  }
}

TEST(TilePlan, UnknownOpKindIsRejected) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 64}), b = hs.tcm({64, 32}), out = hs.tcm({32, 32});
  {
    CompositeCmd c;
    c.ops = {gemm_op(a, b, out), math_op("frobnicate", Scope::kOutputTile, {{"src", out}}, out)};
    const std::string msg = plan_error(c);
    EXPECT_TRUE(contains(msg, "unknown op kind")) << msg;
    EXPECT_TRUE(contains(msg, "frobnicate")) << msg;
  }
  {  // MATH-only too.
    CompositeCmd c;
    c.ops = {math_op("Relu", Scope::kKernel, {{"src", a}}, a)};
    const std::string msg = plan_error(c);
    EXPECT_TRUE(contains(msg, "unknown op kind 'Relu'")) << msg;
  }
}

TEST(TilePlan, MissingOutputOrOperandIsRejected) {
  Handles hs;
  const TensorHandle a = hs.tcm({32, 64}), b = hs.tcm({64, 32}), out = hs.tcm({32, 32});
  {
    CompositeCmd c;
    c.ops = {gemm_op(a, b, out)};
    c.ops[0].out.reset();
    const std::string msg = plan_error(c);
    EXPECT_TRUE(contains(msg, "output")) << msg;
  }
  {
    CompositeCmd c;
    c.ops = {gemm_op(a, b, out)};
    c.ops[0].operands.pop_back();  // no b
    const std::string msg = plan_error(c);
    EXPECT_TRUE(contains(msg, "'b'")) << msg;
  }
  {
    CompositeCmd c;  // no ops at all
    const std::string msg = plan_error(c);
    EXPECT_FALSE(msg.empty());
  }
}

}  // namespace
}  // namespace kb
