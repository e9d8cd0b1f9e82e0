// GEMM issue strategies: the GEMM of the gemm study
// (gemm_study.h: C = A·W, A [M,K], W [K,N], C [M,N] fp16 in the HBM of PE
// sip0.cube0.pe0) issued three ways, to show what the composite command buys
// the PE_CPU:
//
//   composite    one CompositeCmd; PE_SCHEDULER tiles it (run_gemm_point).
//   async-full   the kernel loads whole operands with single-op DMA, then
//                issues one primitive `dot` (GemmCmd) per native tile on TCM
//                views of the loaded operands, casts and stores each C tile.
//   async-tiled  the kernel streams K tiles itself: per K tile a single-op
//                DmaRead of the W tile (and of the A tile for ref_ref) into
//                one of two TCM buffers and a `dot` accumulating into the
//                output tile; the DMA of tile k+1 overlaps the dot of tile k.
//
// Same shapes and operand-staging variants as gemm-sweep (load_ref, ref_ref,
// load_load; what each means for each strategy is spelt out in the kernels).
// Pre-loaded operands are loaded before the window, as in the gemm study.
//
// Per point: the window (first measured command's dispatch start -> last
// completion), TFLOP/s, MAC utilisation, the PE_CPU dispatch total, command
// count and cost per command, and the CPU-bound share of the window: the time
// the GEMM engine was idle while PE_CPU was dispatching one of the point's
// commands, from the op log's GEMM intervals and each command's dispatch
// interval [dispatch_start_ns, issued_ns]; beside it the stricter
// cpu_starved share (dispatching while no engine serves any of the point's
// stages), which is the CPU's share of the critical path.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "firmware/tl.h"
#include "platform/bench/bench.h"
#include "platform/bench/gemm_study.h"

namespace kb {

class HostRuntime;

// What a strategy kernel computes on. `a` and `w` are either HBM tensors (the
// variant streams them: the kernel moves them inside the window) or TCM
// tensors the variant pre-loaded before the window; `c` is the fp16 output in
// HBM.
struct GemmOperands {
  fw::Tensor a, w, c;
  int64_t tile_m = 32, tile_k = 64, tile_n = 32;  // the GEMM engine's native tile (pe.gemm)
};

// Every command a strategy kernel issued inside the window, in issue order.
struct IssueRecord {
  std::vector<CommandHandle> cmds;
  void add(const fw::Tensor& t) { cmds.push_back(t.pending); }
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
void gemm_async_full_kernel(fw::Tl& tl, const GemmOperands& ops, DepSync sync, IssueRecord& rec);
// async-tiled: see the file comment and the step-by-step comments in the .cpp.
void gemm_async_tiled_kernel(fw::Tl& tl, const GemmOperands& ops, DepSync sync, IssueRecord& rec);

const std::vector<std::string>& gemm_strategy_names();  // composite, async-full, async-tiled

// "" when the strategy's TCM-resident data fits the arena, else why not.
std::string gemm_strategy_fit(const TopologyConfig& cfg, const GemmShape& s,
                              const std::string& strategy, const std::string& variant);

// Runs one point on PE sip0.cube0.pe0 and returns its metrics: M, K, N,
// variant, strategy, window_ns, tflops_per_pe, mac_util, commands,
// commands_by_kind, dispatch_ns, dispatch_ns_formula, cost_per_command_ns,
// cpu_bound_ns, cpu_bound_share, gemm_busy_ns, gemm_idle_other_ns,
// stage_busy_ns, preload_commands, cmd_id_first/last ... `record_out`, when
// given, receives the handles of the async kernels' commands.
nlohmann::json run_gemm_strategy_point(HostRuntime& rt, const GemmShape& s,
                                       const std::string& strategy, const std::string& variant,
                                       DepSync sync = DepSync::kWait,
                                       IssueRecord* record_out = nullptr);

class GemmStrategiesBench : public Bench {
 public:
  std::string name() const override { return "gemm-strategies"; }
  std::string description() const override {
    return "the GEMM study issued as one composite vs primitive single-op commands (async-full, "
           "async-tiled): window, TFLOP/s, PE_CPU dispatch total, commands, CPU-bound share";
  }
  std::vector<ParamSpec> params() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
