// The PE's instruction set (docs/ARCHITECTURE.md §2): the command descriptors PE_CPU issues
// to the engines. This header is the one interface between firmware/ and
// models/.
//
// logical_bytes is the descriptor's hardware size; the dispatch cost of a
// command follows from it (models/commands/cost_model.h). Each command
// documents its rule beside its definition. The common parts:
//   framing 4 bytes (single-op and composite commands alike), opcode 1 byte,
//   an address or tensor handle 8 bytes, an integer field 4 bytes, a flag 1 byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "models/commands/tensor_handle.h"

namespace kb {

// ---- OpSpec and CompositeCmd (docs/ARCHITECTURE.md §2.1, §2.2) ---------------------------------

enum class Scope : uint8_t { kKernel, kKTile, kOutputTile };
const char* to_string(Scope s);

// A value in OpSpec.extra. Sizes: int/float 4, bool 1, list 1 + 4·N, string 1.
using ExtraValue = std::variant<int64_t, double, bool, std::vector<double>, std::string>;
uint64_t extra_value_bytes(const ExtraValue& v);

struct OpSpec {
  std::string kind;  // gemm | add | relu | rmax | ...
  Scope scope = Scope::kOutputTile;
  std::vector<std::pair<std::string, TensorHandle>> operands;  // name -> handle, in order
  std::vector<std::pair<std::string, ExtraValue>> extra;       // name -> scalar / list
  std::optional<TensorHandle> out;

  const TensorHandle* operand(const std::string& name) const;
  const ExtraValue* find_extra(const std::string& name) const;
  int64_t extra_int(const std::string& name, int64_t fallback) const;

  // 1 (opcode) + 1 (scope) + 1 + 8·len(operands) + (8 if out) + 1 + Σ size(extra)
  uint64_t logical_bytes() const;
};

struct CompositeCmd {
  std::vector<OpSpec> ops;               // at most one gemm
  std::vector<TensorHandle> rw_handles;  // read-and-written, for cross-composite hazards
  bool data_op = true;

  // 4 (framing) + 1 + Σ op.logical_bytes + 1 + 8·len(rw_handles). No
  // deduplication: every mention of a handle is a descriptor slot.
  uint64_t logical_bytes() const;
};

// ---- single-op commands ------------------------------------------------------

// DMA into this PE's TCM (DmaRead) or out of it (DmaWrite); 2-D strided.
// 4 framing + 1 opcode + 8·2 addresses + 4·4 (row_bytes, rows, src_stride, dst_stride) = 37
struct DmaReadCmd {
  uint64_t src = 0, dst = 0, row_bytes = 0, src_stride = 0, dst_stride = 0;
  uint32_t rows = 1;
  static constexpr uint64_t logical_bytes() { return 4 + 1 + 8 * 2 + 4 * 4; }
};
struct DmaWriteCmd {
  uint64_t src = 0, dst = 0, row_bytes = 0, src_stride = 0, dst_stride = 0;
  uint32_t rows = 1;
  static constexpr uint64_t logical_bytes() { return 4 + 1 + 8 * 2 + 4 * 4; }
};

// One GEMM on TCM-resident operands: out (+)= a · b, a [m,k], b [k,n].
// 4 framing + 1 opcode + 8·3 handles + 4·3 (m, k, n) + 1 (accumulate flag) = 42
struct GemmCmd {
  TensorHandle a, b, out;
  int64_t m = 0, k = 0, n = 0;
  bool accumulate = false;
  static constexpr uint64_t logical_bytes() { return 4 + 1 + 8 * 3 + 4 * 3 + 1; }
};

// One PE_MATH operation on TCM-resident operands.
// 4 framing + 1 opcode + 1 + 8·len(inputs) + 8 (out) + 4 (elements) + 1 + Σ size(extra)
struct MathCmd {
  std::string kind;
  std::vector<TensorHandle> inputs;
  TensorHandle out;
  std::vector<std::pair<std::string, ExtraValue>> extra;
  uint64_t logical_bytes() const;
};

// TCM -> TCM copy of `bytes` (served by the TCM's fetch and store units).
// 4 framing + 1 opcode + 8·2 addresses + 4 (bytes) = 25
struct CopyCmd {
  TensorHandle src, dst;
  static constexpr uint64_t logical_bytes() { return 4 + 1 + 8 * 2 + 4; }
};

// Charges an explicit PE_CPU cost and bypasses the dispatch formula.
// 4 framing + 1 opcode + 4 (cycles) = 9
struct PeCpuOverheadCmd {
  double cycles = 0;
  static constexpr uint64_t logical_bytes() { return 4 + 1 + 4; }
};

// ---- PE_IPCQ commands (models/ipcq/pe_ipcq.h) --------------------------------

// A PE, by its place in the system.
struct PeAddr {
  unsigned sip = 0, cube = 0, pe = 0;
  bool operator==(const PeAddr& o) const { return sip == o.sip && cube == o.cube && pe == o.pe; }
  bool operator<(const PeAddr& o) const {
    return sip != o.sip ? sip < o.sip : cube != o.cube ? cube < o.cube : pe < o.pe;
  }
};
std::string to_string(const PeAddr& p);  // "sip0.cube3.pe1"

// Where an IPCQ receive ring lives (in the receiving PE's memories).
enum class RingSpace : uint8_t { kTcm, kHbm, kSram };
const char* to_string(RingSpace s);

// Opens a receive ring per peer in `space` and grants each peer its credits.
// 4 framing + 1 opcode + 1 (space) + 1 (count) + 4·N (peer ids)
struct IpcqOpenCmd {
  std::vector<PeAddr> peers;
  RingSpace space = RingSpace::kTcm;
  uint64_t logical_bytes() const { return 4 + 1 + 1 + 1 + 4 * peers.size(); }
};

// Sends `src` (this PE's TCM or HBM, or its cube's SRAM) to `peer`, chunked
// into the peer's ring slots.
// 4 framing + 1 opcode + 4 (peer id) + 8 (src handle) = 17
struct IpcqSendCmd {
  PeAddr peer;
  TensorHandle src;
  static constexpr uint64_t logical_bytes() { return 4 + 1 + 4 + 8; }
};

// Receives the next message from `peer` into `dst` (copy) or adds it into
// `dst` (reduce, on PE_MATH). With `forward`, every chunk, once in `dst`, is
// sent on to `forward_to` (NCCL's recvCopySend / recvReduceSend). `scratch`
// is TCM staging, 2 · slots · slot_bytes, needed when a reduce has a ring or a
// destination outside TCM.
// 4 framing + 1 opcode + 4 (peer) + 8 (dst) + 1 (mode flags) + 4 (forward peer) + 8 (scratch) = 30
struct IpcqRecvCmd {
  PeAddr peer;
  TensorHandle dst;
  bool reduce = false;
  bool forward = false;
  PeAddr forward_to;
  TensorHandle scratch;
  static constexpr uint64_t logical_bytes() { return 4 + 1 + 4 + 8 + 1 + 4 + 8; }
};

using Command = std::variant<DmaReadCmd, DmaWriteCmd, GemmCmd, MathCmd, CopyCmd, CompositeCmd,
                             PeCpuOverheadCmd, IpcqOpenCmd, IpcqSendCmd, IpcqRecvCmd>;

uint64_t logical_bytes(const Command& c);
const char* command_name(const Command& c);  // "DmaRead", "Composite", ...
bool is_composite(const Command& c);

}  // namespace kb
