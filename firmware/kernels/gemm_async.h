// A GEMM issued as primitive single-op commands, the two ways the gemm study
// compares with one composite command (the gemm-strategies bench):
//
//   async-full   the kernel loads whole operands with single-op DMA, then
//                issues one primitive `dot` (GemmCmd) per native tile on TCM
//                views of the loaded operands, casts and stores each C tile.
//   async-tiled  the kernel streams K tiles itself: per K tile a single-op
//                DmaRead of the W tile (and of the A tile when A is in HBM)
//                into one of two TCM buffers and a `dot` accumulating into the
//                output tile; the DMA of tile k+1 overlaps the dot of tile k.
//
// C = A·W, A [M,K], W [K,N], C [M,N] fp16 in HBM; an operand already in TCM
// is read in place, one in HBM is moved by the kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "firmware/tl.h"

namespace kb {
namespace fw {

// What a strategy kernel computes on. `a` and `w` are either HBM tensors (the
// variant streams them: the kernel moves them inside the window) or TCM
// tensors the variant pre-loaded before the window; `c` is the fp16 output in
// HBM.
struct GemmOperands {
  Tensor a, w, c;
  int64_t tile_m = 32, tile_k = 64, tile_n = 32;  // the GEMM engine's native tile (pe.gemm)
};

// Every command a strategy kernel issued inside the window, in issue order.
struct IssueRecord {
  std::vector<CommandHandle> cmds;
  void add(const Tensor& t) { cmds.push_back(t.pending); }
  void add(const CommandHandle& h) { cmds.push_back(h); }
};

// How a kernel orders a command after an earlier one it depends on.
//   kWait      the tl contract (firmware/tl.h): a consumer waits for the command
//              that produces its input; a DMA into a reused TCM buffer waits
//              for the command that last read it. Hazard-free by construction.
//   kNoWait    the accumulator chain (dot after dot on one output tile) and
//              the reuse of TCM buffers (the streamed-tile buffers, the fp16
//              staging tiles) are left to the order in which the engines
//              happen to serve the commands: no CPU wait on them. A
//              dispatch-only bound, not a valid kernel: nothing in the model
//              orders a dot's FETCH of the accumulator after the previous
//              dot's STORE of it, nor a DMA into a buffer after the dot that
//              reads it (in data mode it would race). The other waits (a dot
//              on its operands' DMA, the cast on the last dot, the store on
//              the cast) stay.
enum class DepSync { kWait, kNoWait };
const char* to_string(DepSync s);

// async-full: see the file comment and the step-by-step comments in the .cpp.
void gemm_async_full(Tl& tl, const GemmOperands& ops, DepSync sync, IssueRecord& rec);
// async-tiled: see the file comment and the step-by-step comments in the .cpp.
void gemm_async_tiled(Tl& tl, const GemmOperands& ops, DepSync sync, IssueRecord& rec);

}  // namespace fw
}  // namespace kb
