// Tile tokens: the unit of work that flows through a PE's engines.
//
// A token carries an ordered list of stages; each stage names the engine that
// serves it. An engine serves one stage at a time in FIFO order, then hands
// the token to the engine of its next stage over a TLM socket, so tile i+1's
// DMA overlaps tile i's GEMM. When the last stage is done the token's
// `on_done` runs (the scheduler's or the CPU's completion accounting).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/commands/commands.h"
#include "models/dma/dma_transfer.h"

namespace kb {

// Engines of a PE, in the order their stage sockets are bound.
enum class EngineKind : uint8_t { kDma = 0, kTcm = 1, kGemm = 2, kMath = 3, kIpcq = 4 };
constexpr unsigned kNumEngineKinds = 5;
const char* to_string(EngineKind e);

enum class StageKind : uint8_t {
  kDmaRead,
  kDmaWrite,
  kFetch,
  kStore,
  kGemm,
  kMath,
  kIpcq,        // an IPCQ command (open, send, recv) held by PE_IPCQ until done
  kIpcqSignal,  // a control message PE_IPCQ sends: doorbell (send) or credit (recv)
};
const char* to_string(StageKind s);
EngineKind engine_of(StageKind s);

// What PE_IPCQ needs of a stage (kIpcq: the command; kIpcqSignal: the message).
struct IpcqStage {
  const Command* cmd = nullptr;  // kIpcq: the IpcqOpen/Send/RecvCmd
  enum class Signal : uint8_t { kDoorbell, kCredit } signal = Signal::kDoorbell;
  PeAddr peer;         // kIpcqSignal: who gets the message
  unsigned slot = 0;   // the ring slot it is about
  uint64_t bytes = 0;  // doorbell: payload bytes in the slot
};

// What a GEMM, MATH or STORE stage computes on, as views of memory. Timing
// reads only their sizes (the op log's bytes, logged_bytes()); data mode reads
// and writes through them. They live apart from the Stage: most stages (DMA
// transfers, IPCQ chunks and messages) have none, and stay small to build,
// copy and destroy; nor do a GEMM tile's GEMM and STORE stages in a run that
// neither logs ops nor holds data (TilePlanner's operand_views).
struct StageOperands {
  // GEMM tile step / STORE: the operand tiles and the output tile as TCM views.
  TensorHandle a_view, b_view, out_view;
  // MATH: kTensors: all inputs; otherwise the other operands. A copy's STORE:
  // its source.
  std::vector<TensorHandle> inputs;
  std::vector<bool> staged_inputs;  // inputs whose address is slot-relative
  TensorHandle output;              // MATH kTensors, a copy's STORE
  std::vector<std::pair<std::string, ExtraValue>> math_extra;  // single-op MathCmd extras

  static const StageOperands& none();  // every field empty
};

// A stage's own StageOperands, or none: a value (a copy copies them). Freed
// ones are kept for reuse with their vectors' storage, so that building the
// stages of thousands of tiles does not allocate for each.
class StageOperandsRef {
 public:
  StageOperandsRef() = default;
  StageOperandsRef(const StageOperandsRef& o) : p_(o.p_ ? take(o.p_) : nullptr) {}
  StageOperandsRef(StageOperandsRef&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  StageOperandsRef& operator=(const StageOperandsRef& o) {
    if (this != &o) {
      if (!o.p_)
        release();
      else if (p_)
        *p_ = *o.p_;
      else
        p_ = take(o.p_);
    }
    return *this;
  }
  StageOperandsRef& operator=(StageOperandsRef&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~StageOperandsRef() { release(); }

  const StageOperands* get() const { return p_; }
  StageOperands& make() {
    if (!p_) p_ = take(nullptr);
    return *p_;
  }

 private:
  // A kept one (or a new one) equal to *copy, or to a new one if null.
  static StageOperands* take(const StageOperands* copy);
  void release() noexcept;
  StageOperands* p_ = nullptr;
};

struct Stage {
  StageKind kind = StageKind::kMath;
  std::string op_kind;        // the op log's op_kind: gemm, relu, fetch, dma_read, ...
  uint64_t bytes = 0;         // bytes moved (DMA, FETCH, STORE)
  uint64_t elements = 0;      // MATH: output elements
  unsigned native_tiles = 0;  // GEMM: native tiles charged (an edge tile costs a full one)
  uint64_t flops = 0;         // GEMM: useful flops (2*m*k*n)
  // A streamed GEMM's stage: it serves this many items (K steps' tiles; an
  // OUTPUT_TILE op or STORE, output tiles), each as soon as the previous
  // stage has passed it on
  // (TileToken::stream_first_ns; PeEngine::stream_end, docs/ARCHITECTURE.md
  // §1.6). 0: a plain stage.
  uint32_t stream_tiles = 0;
  DmaTransfer transfer;        // DMA stages
  uint64_t addr = 0;           // the address the op log shows
  const OpSpec* op = nullptr;  // the OpSpec this stage executes (composites)
  // Which of this stage's addresses are offsets into the token's TCM staging
  // slot (fixed up by the scheduler when it assigns the slot).
  enum : uint8_t {
    kStagedSrc = 1,
    kStagedDst = 2,
    kStagedAddr = 4,
    kStagedA = 8,     // operands().a_view
    kStagedB = 16,    // operands().b_view
    kStagedOut = 32,  // operands().out_view / output
  };
  uint8_t staged = 0;

  // ---- GEMM and MATH tile steps: where the tile lies and how its K steps
  // combine. Data mode reads them; timing only single_op and math_on (the op
  // log's bytes). ----
  uint32_t mi = 0, ni = 0, ki = 0;  // GEMM tile step: the tile's grid position
  int64_t m0 = 0, n0 = 0;           // the output tile's origin in the [M, N] output
  int64_t out_m = 0, out_n = 0;     // M, N of the GEMM output
  bool first_k = true;
  // GEMM or K_TILE MATH stage after which this K step's partial product is
  // added into the output tile's accumulator.
  bool accumulate_partial = false;
  bool single_op = false;       // a GemmCmd / CopyCmd rather than a composite tile
  bool accumulate_out = false;  // GemmCmd with accumulate: start from the output's value
  // MATH: what the op reads and writes.
  enum class MathOn : uint8_t { kTensors, kPartial, kAccumulator };
  MathOn math_on = MathOn::kTensors;
  IpcqStage ipcq;  // kIpcq / kIpcqSignal

  // The operand views (GEMM, MATH, STORE); empty ones for a stage that has
  // none. mutable_operands() gives this stage its own to write.
  const StageOperands& operands() const {
    return operands_.get() ? *operands_.get() : StageOperands::none();
  }
  StageOperands& mutable_operands() { return operands_.make(); }
  bool has_operands() const { return operands_.get() != nullptr; }

 private:
  StageOperandsRef operands_;
};

// The bytes the op log shows for a stage: what a DMA, FETCH or STORE stage
// moved (Stage::bytes); the operands a GEMM or MATH stage reads plus the
// result it writes (a GEMM tile's partial product, and the partial products
// and accumulators MATH works on in place, are fp32); a control message's
// wire bytes (IPCQ_SIGNAL: Stage::bytes, set by PE_IPCQ); an IPCQ command's
// payload (a send's source, a recv's destination; 0 for an open).
uint64_t logged_bytes(const Stage& s);

struct TileToken {
  uint64_t cmd_id = 0;
  std::string tile;  // "m0.n1.k3", "prologue2", "op" ...
  std::vector<Stage> stages;
  size_t next = 0;      // index of the stage to serve next
  size_t dma_left = 0;  // PE_DMA: transfers of the current run of DMA stages still in flight
  int slot = -1;        // TCM staging slot held while in flight (-1: none)
  std::function<void(TileToken&)> on_done;
  // For the op log and the trace only (no timing reads them): the IPCQ peer
  // of a chunk or control message, and the id of the doorbell message that
  // announced (recv chunk) or that is (doorbell) the chunk, so the trace can
  // draw the send -> recv flow. 0: none.
  PeAddr peer;
  bool has_peer = false;
  uint64_t msg = 0;
  double arrived_ns = -1;  // when it reached the engine serving it (-1: not through a socket)
  // A streamed GEMM's items as the last stage passed them on: stream_count
  // of them, the first at stream_first_ns, the last at stream_last_ns,
  // evenly between.
  double stream_first_ns = 0, stream_last_ns = 0;
  uint32_t stream_count = 0;

  Stage& current() { return stages.at(next); }
  bool finished() const { return next >= stages.size(); }
  // Empties the token for reuse: every field above as a new token's, except
  // that the stage vector and the tile name keep their storage (a pooled token
  // is reset per tile). Never from inside its own on_done.
  void reset() {
    cmd_id = 0;
    tile.clear();
    stages.clear();
    next = 0;
    dma_left = 0;
    slot = -1;
    on_done = nullptr;
    peer = PeAddr{};
    has_peer = false;
    msg = 0;
    arrived_ns = -1;
    stream_first_ns = stream_last_ns = 0;
    stream_count = 0;
  }
};

}  // namespace kb
