// Lowering: the one place that turns commands into engine stages
// (docs/ARCHITECTURE.md §3 and §5.1).
//
// Pure builders: no validation, no SystemC, no state. Each caller checks its
// command first and reports through its own channel (PeCpu raises a fault,
// make_tile_plan throws PlanError, PeIpcq faults per chunk), then builds the
// stages here:
//
//   PeCpu::build_token     single-op commands: DMA, GEMM, MATH, copy, IPCQ
//   make_tile_plan         composites: MATH ops, GEMM tile steps, staging DMAs
//   PeIpcq                 chunks: send (DMA + doorbell), consume (copy or add) + credit
//
// The op log records every stage (kind, op_kind, addr, bytes), so what a
// builder puts in those fields is part of the results; the comments below say
// where two callers deliberately differ.
//
// Includes only models/commands, models/common, models/pe and
// models/dma/dma_transfer.h, so that every engine folder may use it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/commands/commands.h"
#include "models/common/address_map.h"
#include "models/dma/dma_transfer.h"
#include "models/pe/stage.h"

namespace kb::lowering {

// ---- primitives ------------------------------------------------------------------

// A DMA stage of `kind` moving `t`; bytes = t.total_bytes(). The op log shows
// `log_addr`: callers pass the destination of a write and the source of a read,
// except an IPCQ consume, which logs its source whichever the kind.
Stage dma(StageKind kind, std::string op_kind, const DmaTransfer& t, uint64_t log_addr,
          uint8_t staged = 0);

// A FETCH (TCM → engine) of `bytes` logged at `addr`. op_kind is "fetch", or
// "copy" for a CopyCmd (PE_TCM keys its data-mode copy on it).
Stage fetch(std::string op_kind, uint64_t bytes, uint64_t addr, uint8_t staged = 0);

// A STORE (engine → TCM) of the whole of `out`, logged at its address.
Stage store(const TensorHandle& out, uint8_t staged = 0);

// A 2-D view of a tile (id 0: tile views take part in no hazard).
TensorHandle tile_view(uint64_t addr, uint64_t rows, uint64_t cols, int64_t row_stride,
                       DType dtype);

// ---- single-op commands (PeCpu) --------------------------------------------------
//
// The command's id goes into transfer.cmd_id; strides are copied unchanged
// (even for a single row).
Stage dma_command(const DmaReadCmd& c, uint64_t cmd_id);
Stage dma_command(const DmaWriteCmd& c, uint64_t cmd_id);

// FETCH, GEMM, STORE on the whole handles. native_tiles = ceil(m/tile_m) *
// ceil(k/tile_k) * ceil(n/tile_n); the FETCH also reads `out` when
// accumulating; GEMM and STORE (not FETCH) are single_op.
std::vector<Stage> gemm_command(const GemmCmd& g, unsigned tile_m, unsigned tile_k,
                                unsigned tile_n);

// One MATH stage: op null, staged_inputs empty, the command's extras in math_extra.
Stage math_command(const MathCmd& m);

// FETCH then STORE, both op_kind "copy" and neither single_op; the STORE is
// the FETCH's copy with the destination's address and the data-mode handles.
std::vector<Stage> copy_command(const CopyCmd& c);

// The IPCQ stage of an IpcqOpen/Send/RecvCmd (`cmd` must hold one): it points
// at `cmd`, which must outlive the stage. An open leaves bytes and addr 0; a
// send shows its source, a recv its destination.
Stage ipcq_command(const Command& cmd);

// ---- composites (make_tile_plan) -------------------------------------------------

// The MATH stage of a composite op over `elements` outputs: every operand an
// input (none staged yet); the output is op.out, or in place on the first
// operand; logged at the output (else the first operand).
Stage math_op(const OpSpec& op, uint64_t elements);

// A MATH stage of a GEMM plan on the current tile (`on`: its K step's partial
// product or the output tile's accumulator), the op's operands as further
// inputs; no output handle.
Stage tile_math_op(const OpSpec& op, uint64_t elements, Stage::MathOn on);

// A DMA of a plan: `rows` rows of `row_bytes`, logged at dst for a write and
// src for a read, transfer.cmd_id 0. A single row carries no strides.
Stage plan_dma(StageKind kind, uint64_t src, uint64_t dst, uint64_t row_bytes, uint64_t rows,
               uint64_t src_stride, uint64_t dst_stride, uint8_t staged);

// One K step of a GEMM tile: the FETCH of its A and B tiles (logged at A's,
// a slot offset when `a_staged`), the GEMM of one native tile logged at
// `out_addr` (the whole output's address), and the STORE of the output tile
// at its last K step. The views are tile_view()s; `*_staged` marks those
// in the staging slot. first_k keeps its default here: the plan sets it on
// every stage of the step. Each writes into `s`, a default Stage: a GEMM's
// plan builds each tile token's stages in place at the end of its list.
// Without `views` the GEMM and STORE keep no operand views (Stage::operands()
// reads empty ones): the same timing, for a run that neither logs ops nor
// holds data.
void tile_fetch(Stage& s, const TensorHandle& a, const TensorHandle& b, bool a_staged);
void tile_gemm(Stage& s, const OpSpec& op, const TensorHandle& a, bool a_staged,
               const TensorHandle& b, bool b_staged, uint64_t out_addr, bool accumulate_partial,
               bool views = true);
void tile_store(Stage& s, const TensorHandle& out, bool staged, bool views = true);
Stage tile_gemm(const OpSpec& op, const TensorHandle& a, bool a_staged, const TensorHandle& b,
                bool b_staged, uint64_t out_addr, bool accumulate_partial);

// plan_dma() written into `s`, a default Stage, as the tile builders above.
void plan_dma(Stage& s, StageKind kind, uint64_t src, uint64_t dst, uint64_t row_bytes,
              uint64_t rows, uint64_t src_stride, uint64_t dst_stride, uint8_t staged);

// ---- IPCQ chunks (PeIpcq) --------------------------------------------------------

// A message of `bytes` travels as this many slot-sized chunks (an empty
// message as one empty chunk).
uint64_t chunk_count(uint64_t bytes, uint64_t slot_bytes);
// Bytes of chunk k of a message of `total` bytes: min(slot_bytes, total - k * slot_bytes).
uint64_t chunk_bytes(uint64_t total, uint64_t k, uint64_t slot_bytes);

// The control messages a chunk token ends with, logged at the peer's IPCQ
// registers (`peer_regs`). Signal stages move no data: Stage::bytes stays 0;
// only the doorbell carries the chunk's payload size (ipcq.bytes).
// The in-place forms fill a default Stage (one just emplaced in a token).
Stage doorbell(const PeAddr& peer, unsigned slot, uint64_t bytes, uint64_t peer_regs);
void doorbell(Stage& s, const PeAddr& peer, unsigned slot, uint64_t bytes, uint64_t peer_regs);
Stage credit(const PeAddr& peer, unsigned slot, uint64_t peer_regs);
void credit(Stage& s, const PeAddr& peer, unsigned slot, uint64_t peer_regs);

// A send chunk, appended to `out`: the DMA_WRITE of `len` bytes from `src`
// into the peer's ring slot at `slot_addr`, then its doorbell. (Appended, so
// that PE_IPCQ's pooled tokens keep their stage vectors' capacity.)
void send_chunk(uint64_t cmd_id, uint64_t src, uint64_t slot_addr, uint64_t len, const PeAddr& peer,
                unsigned slot, uint64_t peer_regs, std::vector<Stage>& out);

// Whether `addr` is in the TCM of the PE at `self`.
bool in_own_tcm(uint64_t addr, const Location& self);

// One chunk a recv consumes.
struct RecvChunk {
  uint64_t cmd_id = 0;
  uint64_t ring = 0;  // the chunk in its ring slot
  uint64_t dst = 0;   // the destination at the chunk's offset
  uint64_t len = 0;
  uint64_t scratch = 0;     // a staged reduce: this slot's 2 * slot_bytes of TCM scratch
  uint64_t slot_bytes = 0;  // the ring's slot size
};

// A reduce stages through scratch when its ring slot or its destination is
// outside this PE's TCM (the caller checks that scratch is there).
bool reduce_needs_scratch(const RecvChunk& c, const Location& self);

// The stages that consume a chunk, before its credit. A copy: one DMA ring →
// destination. A reduce: [DMA ring → scratch] [DMA destination → scratch +
// slot_bytes] MATH add (acc += msg, 1-D views with the destination's id)
// [DMA the sum back]. Each DMA reads when it lands in this PE's TCM and writes
// otherwise, and is logged at its source. Appended to `out`, as send_chunk.
void recv_chunk(const IpcqRecvCmd& r, const RecvChunk& c, const Location& self,
                std::vector<Stage>& out);

}  // namespace kb::lowering
