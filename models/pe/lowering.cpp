#include "models/pe/lowering.h"

#include <algorithm>
#include <utility>

#include "models/common/checked_math.h"

namespace kb::lowering {

namespace {

// The builders below write into `s`, a default Stage, and their Stage-valued
// forms make one: a GEMM's plan builds its tile tokens' stages in place.

// A GEMM stage of `native_tiles` on the operand views `a` and `b` (kept
// when `views`).
void set_gemm(Stage& s, unsigned native_tiles, uint64_t flops, uint64_t log_addr,
              const TensorHandle& a, const TensorHandle& b, bool views = true) {
  s.kind = StageKind::kGemm;
  s.op_kind = "gemm";
  s.native_tiles = native_tiles;
  s.flops = flops;
  s.addr = log_addr;
  if (!views) return;
  StageOperands& o = s.mutable_operands();
  o.a_view = a;
  o.b_view = b;
}

Stage gemm(unsigned native_tiles, uint64_t flops, uint64_t log_addr, const TensorHandle& a,
           const TensorHandle& b) {
  Stage s;
  set_gemm(s, native_tiles, flops, log_addr, a, b);
  return s;
}

void set_dma(Stage& s, StageKind kind, const DmaTransfer& t, uint64_t log_addr, uint8_t staged) {
  s.kind = kind;
  s.transfer = t;
  s.bytes = t.total_bytes();
  s.addr = log_addr;
  s.staged = staged;
}

void set_fetch(Stage& s, uint64_t bytes, uint64_t addr, uint8_t staged) {
  s.kind = StageKind::kFetch;
  s.bytes = bytes;
  s.addr = addr;
  s.staged = staged;
}

void set_store(Stage& s, const TensorHandle& out, uint8_t staged, bool views = true) {
  s.kind = StageKind::kStore;
  s.op_kind = "store";
  s.bytes = out.bytes();
  s.addr = out.addr;
  s.staged = staged;
  if (views) s.mutable_operands().out_view = out;
}

void set_signal(Stage& s, IpcqStage::Signal which, const char* op_kind, const PeAddr& peer,
                unsigned slot, uint64_t peer_regs) {
  s.kind = StageKind::kIpcqSignal;
  s.op_kind = op_kind;
  s.ipcq.signal = which;
  s.ipcq.peer = peer;
  s.ipcq.slot = slot;
  s.addr = peer_regs;
}

// A 1-D view of `bytes` at `addr` (an IPCQ chunk as PE_MATH sees it).
TensorHandle flat_view(uint64_t addr, uint64_t bytes, DType dtype, uint64_t id) {
  TensorHandle h;
  h.id = id;
  h.addr = addr;
  h.dtype = dtype;
  h.shape = {static_cast<int64_t>(bytes / dtype_bytes(dtype))};
  return h;
}

}  // namespace

// ---- primitives ------------------------------------------------------------------

Stage dma(StageKind kind, std::string op_kind, const DmaTransfer& t, uint64_t log_addr,
          uint8_t staged) {
  Stage s;
  s.op_kind = std::move(op_kind);
  set_dma(s, kind, t, log_addr, staged);
  return s;
}

Stage fetch(std::string op_kind, uint64_t bytes, uint64_t addr, uint8_t staged) {
  Stage s;
  s.op_kind = std::move(op_kind);
  set_fetch(s, bytes, addr, staged);
  return s;
}

Stage store(const TensorHandle& out, uint8_t staged) {
  Stage s;
  set_store(s, out, staged);
  return s;
}

TensorHandle tile_view(uint64_t addr, uint64_t rows, uint64_t cols, int64_t row_stride,
                       DType dtype) {
  TensorHandle v;
  v.id = 0;
  v.addr = addr;
  v.shape = {static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
  v.row_stride = row_stride;
  v.dtype = dtype;
  return v;
}

// ---- single-op commands ----------------------------------------------------------

Stage dma_command(const DmaReadCmd& c, uint64_t cmd_id) {
  const DmaTransfer t{c.src, c.dst, c.row_bytes, c.rows, c.src_stride, c.dst_stride, cmd_id};
  return dma(StageKind::kDmaRead, "dma_read", t, c.src);
}

Stage dma_command(const DmaWriteCmd& c, uint64_t cmd_id) {
  const DmaTransfer t{c.src, c.dst, c.row_bytes, c.rows, c.src_stride, c.dst_stride, cmd_id};
  return dma(StageKind::kDmaWrite, "dma_write", t, c.dst);
}

std::vector<Stage> gemm_command(const GemmCmd& g, unsigned tile_m, unsigned tile_k,
                                unsigned tile_n) {
  const Stage f =
      fetch("fetch", g.a.bytes() + g.b.bytes() + (g.accumulate ? g.out.bytes() : 0), g.a.addr);
  Stage gs = gemm(
      static_cast<unsigned>(ceil_div(g.m, tile_m) * ceil_div(g.k, tile_k) * ceil_div(g.n, tile_n)),
      static_cast<uint64_t>(2 * g.m * g.k * g.n), g.out.addr, g.a, g.b);
  gs.single_op = true;
  gs.accumulate_out = g.accumulate;
  gs.mutable_operands().out_view = g.out;
  Stage st = store(g.out);
  st.single_op = true;
  return {f, gs, st};
}

Stage math_command(const MathCmd& m) {
  Stage s;
  s.kind = StageKind::kMath;
  s.op_kind = m.kind;
  s.elements = static_cast<uint64_t>(m.out.numel());
  s.addr = m.out.addr;
  StageOperands& o = s.mutable_operands();
  o.inputs = m.inputs;
  o.output = m.out;
  o.math_extra = m.extra;
  return s;
}

std::vector<Stage> copy_command(const CopyCmd& c) {
  const Stage f = fetch("copy", c.src.bytes(), c.src.addr);
  Stage st = f;
  st.kind = StageKind::kStore;
  st.addr = c.dst.addr;
  StageOperands& o = st.mutable_operands();
  o.inputs = {c.src};
  o.output = c.dst;
  return {f, st};
}

Stage ipcq_command(const Command& cmd) {
  Stage s;
  s.kind = StageKind::kIpcq;
  s.ipcq.cmd = &cmd;
  if (std::holds_alternative<IpcqOpenCmd>(cmd)) {
    s.op_kind = "ipcq_open";
  } else if (const auto* snd = std::get_if<IpcqSendCmd>(&cmd)) {
    s.op_kind = "send";
    s.bytes = snd->src.bytes();
    s.addr = snd->src.addr;
  } else {
    const auto& r = std::get<IpcqRecvCmd>(cmd);
    s.op_kind = r.reduce ? (r.forward ? "recv_reduce_send" : "recv_reduce")
                         : (r.forward ? "recv_copy_send" : "recv");
    s.bytes = r.dst.bytes();
    s.addr = r.dst.addr;
  }
  return s;
}

// ---- composites ------------------------------------------------------------------

Stage math_op(const OpSpec& op, uint64_t elements) {
  Stage s;
  s.kind = StageKind::kMath;
  s.op_kind = op.kind;
  s.elements = elements;
  s.op = &op;
  s.addr = op.out ? op.out->addr : (op.operands.empty() ? 0 : op.operands.front().second.addr);
  StageOperands& o = s.mutable_operands();
  for (const auto& operand : op.operands) {
    o.inputs.push_back(operand.second);
    o.staged_inputs.push_back(false);
  }
  // An op without an output handle works in place on its first operand.
  if (op.out)
    o.output = *op.out;
  else if (!op.operands.empty())
    o.output = op.operands.front().second;
  return s;
}

Stage tile_math_op(const OpSpec& op, uint64_t elements, Stage::MathOn on) {
  Stage s = math_op(op, elements);
  s.math_on = on;
  s.mutable_operands().output = TensorHandle{};
  return s;
}

void plan_dma(Stage& s, StageKind kind, uint64_t src, uint64_t dst, uint64_t row_bytes,
              uint64_t rows, uint64_t src_stride, uint64_t dst_stride, uint8_t staged) {
  DmaTransfer t;
  t.src = src;
  t.dst = dst;
  t.row_bytes = row_bytes;
  t.rows = static_cast<uint32_t>(rows);
  t.src_stride = rows > 1 ? src_stride : 0;
  t.dst_stride = rows > 1 ? dst_stride : 0;
  const bool read = kind == StageKind::kDmaRead;
  s.op_kind = read ? "dma_read" : "dma_write";
  set_dma(s, kind, t, read ? src : dst, staged);
}

Stage plan_dma(StageKind kind, uint64_t src, uint64_t dst, uint64_t row_bytes, uint64_t rows,
               uint64_t src_stride, uint64_t dst_stride, uint8_t staged) {
  Stage s;
  plan_dma(s, kind, src, dst, row_bytes, rows, src_stride, dst_stride, staged);
  return s;
}

void tile_fetch(Stage& s, const TensorHandle& a, const TensorHandle& b, bool a_staged) {
  s.op_kind = "fetch";
  set_fetch(s, a.bytes() + b.bytes(), a.addr, a_staged ? Stage::kStagedAddr : 0);
}

void tile_gemm(Stage& s, const OpSpec& op, const TensorHandle& a, bool a_staged,
               const TensorHandle& b, bool b_staged, uint64_t out_addr, bool accumulate_partial,
               bool views) {
  const auto mm = static_cast<uint64_t>(a.shape.at(0));
  const auto kk = static_cast<uint64_t>(a.shape.at(1));
  const auto nn = static_cast<uint64_t>(b.shape.at(1));
  set_gemm(s, 1, 2 * mm * kk * nn, out_addr, a, b, views);
  s.op = &op;
  if (a_staged) s.staged |= Stage::kStagedA;
  if (b_staged) s.staged |= Stage::kStagedB;
  s.accumulate_partial = accumulate_partial;
}

Stage tile_gemm(const OpSpec& op, const TensorHandle& a, bool a_staged, const TensorHandle& b,
                bool b_staged, uint64_t out_addr, bool accumulate_partial) {
  Stage s;
  tile_gemm(s, op, a, a_staged, b, b_staged, out_addr, accumulate_partial);
  return s;
}

void tile_store(Stage& s, const TensorHandle& out, bool staged, bool views) {
  set_store(s, out, staged ? Stage::kStagedAddr | Stage::kStagedOut : 0, views);
}

// ---- IPCQ chunks -----------------------------------------------------------------

uint64_t chunk_count(uint64_t bytes, uint64_t slot_bytes) {
  return bytes == 0 ? 1 : (bytes + slot_bytes - 1) / slot_bytes;
}

uint64_t chunk_bytes(uint64_t total, uint64_t k, uint64_t slot_bytes) {
  return std::min<uint64_t>(slot_bytes, total - k * slot_bytes);
}

void doorbell(Stage& s, const PeAddr& peer, unsigned slot, uint64_t bytes, uint64_t peer_regs) {
  set_signal(s, IpcqStage::Signal::kDoorbell, "doorbell", peer, slot, peer_regs);
  s.ipcq.bytes = bytes;
}

Stage doorbell(const PeAddr& peer, unsigned slot, uint64_t bytes, uint64_t peer_regs) {
  Stage s;
  doorbell(s, peer, slot, bytes, peer_regs);
  return s;
}

void credit(Stage& s, const PeAddr& peer, unsigned slot, uint64_t peer_regs) {
  set_signal(s, IpcqStage::Signal::kCredit, "credit", peer, slot, peer_regs);
}

Stage credit(const PeAddr& peer, unsigned slot, uint64_t peer_regs) {
  Stage s;
  credit(s, peer, slot, peer_regs);
  return s;
}

void send_chunk(uint64_t cmd_id, uint64_t src, uint64_t slot_addr, uint64_t len, const PeAddr& peer,
                unsigned slot, uint64_t peer_regs, std::vector<Stage>& out) {
  Stage& write = out.emplace_back();
  write.op_kind = "ipcq_send";
  set_dma(write, StageKind::kDmaWrite, DmaTransfer::contiguous(src, slot_addr, len, cmd_id),
          slot_addr, 0);
  doorbell(out.emplace_back(), peer, slot, len, peer_regs);
}

bool in_own_tcm(uint64_t addr, const Location& self) {
  auto loc = decode_address(addr);
  return loc && loc->space == Space::kTcm && loc->sip == self.sip && loc->cube == self.cube &&
         loc->pe == self.pe;
}

bool reduce_needs_scratch(const RecvChunk& c, const Location& self) {
  return !in_own_tcm(c.ring, self) || !in_own_tcm(c.dst, self);
}

void recv_chunk(const IpcqRecvCmd& r, const RecvChunk& c, const Location& self,
                std::vector<Stage>& out) {
  auto move = [&](uint64_t from, uint64_t to, const char* what) {
    Stage& s = out.emplace_back();
    s.op_kind = what;
    set_dma(s, in_own_tcm(to, self) ? StageKind::kDmaRead : StageKind::kDmaWrite,
            DmaTransfer::contiguous(from, to, c.len, c.cmd_id), from, 0);
  };
  if (!r.reduce) {
    move(c.ring, c.dst, "ipcq_copy");
    return;
  }
  const bool ring_tcm = in_own_tcm(c.ring, self);
  const bool dst_tcm = in_own_tcm(c.dst, self);
  const uint64_t msg = ring_tcm ? c.ring : c.scratch;
  const uint64_t acc = dst_tcm ? c.dst : c.scratch + c.slot_bytes;
  if (!ring_tcm) move(c.ring, msg, "ipcq_stage");
  if (!dst_tcm) move(c.dst, acc, "ipcq_stage");
  Stage& add = out.emplace_back();  // not used after the next emplace
  add.kind = StageKind::kMath;
  add.op_kind = "add";
  add.elements = c.len / dtype_bytes(r.dst.dtype);
  add.addr = acc;
  StageOperands& o = add.mutable_operands();
  o.inputs.reserve(2);
  o.inputs.push_back(flat_view(acc, c.len, r.dst.dtype, r.dst.id));
  o.inputs.push_back(flat_view(msg, c.len, r.dst.dtype, r.dst.id));
  o.output = o.inputs[0];
  if (!dst_tcm) move(acc, c.dst, "ipcq_unstage");
}

}  // namespace kb::lowering
