// The stage builders of models/pe/lowering.h: the fields the op log records
// and the places where two callers deliberately differ (docs/ARCHITECTURE.md §3, §5.1).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/commands/commands.h"
#include "models/common/address_map.h"
#include "models/pe/lowering.h"

namespace kb {
namespace {

const Location kSelf{Space::kTcm, 0, 0, 1, 0};

uint64_t at(Space s, unsigned pe, uint64_t off) {
  return encode_address({s, 0, 0, pe, off});
}

TensorHandle lowering_handle(uint64_t id, Space s, const std::vector<int64_t>& shape,
                             uint64_t off = 0) {
  TensorHandle h;
  h.id = id;
  h.addr = at(s, kSelf.pe, off);
  h.shape = shape;
  h.dtype = DType::kFp16;
  return h;
}

// A GEMM of edge-tile shape (40x70x33) on TCM handles.
GemmCmd gemm_40x70x33() {
  GemmCmd g;
  g.a = lowering_handle(1, Space::kTcm, {40, 70});
  g.b = lowering_handle(2, Space::kTcm, {70, 33}, 0x4000);
  g.out = lowering_handle(3, Space::kTcm, {40, 33}, 0x8000);
  g.m = 40;
  g.k = 70;
  g.n = 33;
  return g;
}

TEST(Lowering, CommandDmaKeepsStridesAndLogsByDirection) {
  DmaReadCmd r;
  r.src = 0x100;
  r.dst = 0x200;
  r.row_bytes = 64;
  r.rows = 1;
  r.src_stride = 128;
  r.dst_stride = 96;
  const Stage s = lowering::dma_command(r, 7);
  EXPECT_EQ(s.kind, StageKind::kDmaRead);
  EXPECT_EQ(s.op_kind, "dma_read");
  EXPECT_EQ(s.addr, 0x100u);
  EXPECT_EQ(s.bytes, 64u);
  EXPECT_EQ(s.transfer.src_stride, 128u);  // a single row keeps the command's strides
  EXPECT_EQ(s.transfer.dst_stride, 96u);
  EXPECT_EQ(s.transfer.cmd_id, 7u);

  DmaWriteCmd w;
  w.src = 0x100;
  w.dst = 0x200;
  w.row_bytes = 32;
  w.rows = 3;
  const Stage sw = lowering::dma_command(w, 9);
  EXPECT_EQ(sw.kind, StageKind::kDmaWrite);
  EXPECT_EQ(sw.op_kind, "dma_write");
  EXPECT_EQ(sw.addr, 0x200u);
  EXPECT_EQ(sw.bytes, 96u);
}

TEST(Lowering, PlanDmaZeroesStridesOfOneRowAndHasNoCommandId) {
  const Stage one =
      lowering::plan_dma(StageKind::kDmaRead, 0x10, 0x20, 64, 1, 128, 64, Stage::kStagedDst);
  EXPECT_EQ(one.transfer.src_stride, 0u);
  EXPECT_EQ(one.transfer.dst_stride, 0u);
  EXPECT_EQ(one.transfer.cmd_id, 0u);
  EXPECT_EQ(one.addr, 0x10u);
  EXPECT_EQ(one.staged, Stage::kStagedDst);
  const Stage two =
      lowering::plan_dma(StageKind::kDmaWrite, 0x10, 0x20, 64, 2, 64, 128, Stage::kStagedSrc);
  EXPECT_EQ(two.transfer.dst_stride, 128u);
  EXPECT_EQ(two.addr, 0x20u);
  EXPECT_EQ(two.bytes, 128u);
  EXPECT_EQ(two.op_kind, "dma_write");
}

TEST(Lowering, SingleOpGemm) {
  GemmCmd g = gemm_40x70x33();
  g.accumulate = true;
  const std::vector<Stage> st = lowering::gemm_command(g, 32, 64, 32);
  ASSERT_EQ(st.size(), 3u);
  EXPECT_EQ(st[0].kind, StageKind::kFetch);
  EXPECT_EQ(st[0].bytes, g.a.bytes() + g.b.bytes() + g.out.bytes());
  EXPECT_FALSE(st[0].single_op);
  EXPECT_EQ(st[1].native_tiles, 2u * 2u * 2u);
  EXPECT_EQ(st[1].flops, uint64_t{2} * 40 * 70 * 33);
  EXPECT_EQ(st[1].operands().a_view.id, 1u);
  EXPECT_TRUE(st[1].single_op);
  EXPECT_TRUE(st[1].accumulate_out);
  EXPECT_TRUE(st[1].first_k);
  EXPECT_EQ(st[2].kind, StageKind::kStore);
  EXPECT_EQ(st[2].addr, g.out.addr);
  EXPECT_TRUE(st[2].single_op);
}

TEST(Lowering, CopyStagesAreBothCopy) {
  CopyCmd c;
  c.src = lowering_handle(1, Space::kTcm, {8, 8});
  c.dst = lowering_handle(2, Space::kTcm, {8, 8}, 0x1000);
  const std::vector<Stage> st = lowering::copy_command(c);
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].op_kind, "copy");
  EXPECT_EQ(st[1].op_kind, "copy");
  EXPECT_EQ(st[1].kind, StageKind::kStore);
  EXPECT_EQ(st[1].bytes, st[0].bytes);
  EXPECT_EQ(st[1].addr, c.dst.addr);
  EXPECT_FALSE(st[1].single_op);
  ASSERT_EQ(st[1].operands().inputs.size(), 1u);
  EXPECT_EQ(st[1].operands().output.id, 2u);
}

TEST(Lowering, MathVariants) {
  MathCmd m;
  m.kind = "relu";
  m.inputs = {lowering_handle(1, Space::kTcm, {4, 4})};
  m.out = lowering_handle(2, Space::kTcm, {4, 4}, 0x100);
  m.extra = {{"alpha", 1.0}};
  const Stage s = lowering::math_command(m);
  EXPECT_EQ(s.op, nullptr);
  EXPECT_TRUE(s.operands().staged_inputs.empty());
  EXPECT_EQ(s.operands().math_extra.size(), 1u);
  EXPECT_EQ(s.elements, 16u);

  OpSpec op;
  op.kind = "add";
  op.operands = {{"x", lowering_handle(3, Space::kTcm, {4, 4})},
                 {"y", lowering_handle(4, Space::kTcm, {4, 4})}};
  const Stage c = lowering::math_op(op, 16);
  EXPECT_EQ(c.op, &op);
  EXPECT_EQ(c.operands().staged_inputs, std::vector<bool>(2, false));
  EXPECT_EQ(c.operands().output.id, 3u);  // in place on the first operand
  EXPECT_EQ(c.addr, op.operands.front().second.addr);
  EXPECT_FALSE(lowering::tile_math_op(op, 16, Stage::MathOn::kPartial).operands().output.valid());
}

// What the op log shows as a stage's bytes: moved bytes for DMA, FETCH and
// STORE; operands plus result for GEMM and MATH (fp32 partials in place).
TEST(Lowering, LoggedBytesCoverEveryEngine) {
  const GemmCmd g = gemm_40x70x33();
  const std::vector<Stage> st = lowering::gemm_command(g, 32, 64, 32);
  EXPECT_EQ(logged_bytes(st[0]), st[0].bytes);  // FETCH
  EXPECT_EQ(logged_bytes(st[1]), 2u * (40 * 70 + 70 * 33 + 40 * 33));
  EXPECT_EQ(logged_bytes(st[2]), g.out.bytes());  // STORE

  OpSpec op;
  op.kind = "gemm";
  const TensorHandle a = lowering::tile_view(0, 32, 64, 64, DType::kFp16);
  const TensorHandle b = lowering::tile_view(0x1000, 64, 16, 16, DType::kFp16);
  const Stage tile = lowering::tile_gemm(op, a, false, b, false, 0x2000, false);
  EXPECT_EQ(logged_bytes(tile), 2u * 32 * 64 + 2u * 64 * 16 + 4u * 32 * 16);

  MathCmd m;
  m.kind = "add";
  m.inputs = {lowering_handle(1, Space::kTcm, {4, 5}),
              lowering_handle(2, Space::kTcm, {4, 5}, 0x100)};
  m.out = lowering_handle(3, Space::kTcm, {4, 5}, 0x200);
  EXPECT_EQ(logged_bytes(lowering::math_command(m)), 3u * 2 * 20);

  OpSpec scale;
  scale.kind = "mul";
  scale.operands = {{"s", lowering_handle(4, Space::kTcm, {1, 5})}};
  const Stage partial = lowering::tile_math_op(scale, 20, Stage::MathOn::kPartial);
  EXPECT_EQ(logged_bytes(partial), 2u * 5 + 2u * 20 * 4);

  EXPECT_EQ(logged_bytes(lowering::ipcq_command(Command{IpcqOpenCmd{}})), 0u);
}

TEST(Lowering, IpcqOpenLeavesBytesAndAddressZero) {
  const Command open = IpcqOpenCmd{};
  const Stage s = lowering::ipcq_command(open);
  EXPECT_EQ(s.op_kind, "ipcq_open");
  EXPECT_EQ(s.bytes, 0u);
  EXPECT_EQ(s.addr, 0u);
  EXPECT_EQ(s.ipcq.cmd, &open);
}

TEST(Lowering, ChunkArithmetic) {
  EXPECT_EQ(lowering::chunk_count(0, 100), 1u);
  EXPECT_EQ(lowering::chunk_count(250, 100), 3u);
  EXPECT_EQ(lowering::chunk_bytes(250, 0, 100), 100u);
  EXPECT_EQ(lowering::chunk_bytes(250, 2, 100), 50u);
  EXPECT_EQ(lowering::chunk_bytes(0, 0, 100), 0u);
}

TEST(Lowering, SignalsMoveNoBytes) {
  const PeAddr peer{0, 0, 2};
  const Stage bell = lowering::doorbell(peer, 3, 512, 0xabc);
  EXPECT_EQ(bell.bytes, 0u);
  EXPECT_EQ(bell.ipcq.bytes, 512u);
  EXPECT_EQ(bell.addr, 0xabcu);
  const Stage cr = lowering::credit(peer, 3, 0xabc);
  EXPECT_EQ(cr.bytes, 0u);
  EXPECT_EQ(cr.ipcq.bytes, 0u);
  EXPECT_EQ(cr.ipcq.signal, IpcqStage::Signal::kCredit);
  std::vector<Stage> send;
  lowering::send_chunk(5, 0x10, 0x20, 64, peer, 3, 0xabc, send);
  ASSERT_EQ(send.size(), 2u);
  EXPECT_EQ(send[0].addr, 0x20u);
  EXPECT_EQ(send[0].transfer.cmd_id, 5u);
}

TEST(Lowering, ReduceThroughScratchLogsEachDmaAtItsSource) {
  IpcqRecvCmd r;
  r.reduce = true;
  r.dst = lowering_handle(7, Space::kHbm, {64});
  lowering::RecvChunk c;
  c.cmd_id = 4;
  c.ring = at(Space::kHbm, kSelf.pe, 0x10000);
  c.dst = r.dst.addr;
  c.len = 128;
  c.scratch = at(Space::kTcm, kSelf.pe, 0x2000);
  c.slot_bytes = 256;
  EXPECT_TRUE(lowering::reduce_needs_scratch(c, kSelf));
  std::vector<Stage> st;
  lowering::recv_chunk(r, c, kSelf, st);
  ASSERT_EQ(st.size(), 4u);
  EXPECT_EQ(st[0].kind, StageKind::kDmaRead);  // into TCM scratch
  EXPECT_EQ(st[0].addr, c.ring);
  EXPECT_EQ(st[2].kind, StageKind::kMath);
  EXPECT_EQ(st[2].operands().inputs.at(0).id, 7u);
  EXPECT_EQ(st[2].operands().output.addr, c.scratch + c.slot_bytes);
  EXPECT_EQ(st[3].kind, StageKind::kDmaWrite);  // back to HBM
  EXPECT_EQ(st[3].op_kind, "ipcq_unstage");
  EXPECT_EQ(st[3].addr, c.scratch + c.slot_bytes);  // logged at its source, not dst
}

}  // namespace
}  // namespace kb
