// GEMM issue strategies: the GEMM of the gemm study
// (gemm_study.h: C = A·W, A [M,K], W [K,N], C [M,N] fp16 in the HBM of PE
// sip0.cube0.pe0) issued three ways, to show what the composite command buys
// the PE_CPU:
//
//   composite    one CompositeCmd; PE_SCHEDULER tiles it (run_gemm_point).
//   async-full   primitive single-op commands, whole operands loaded first
//   async-tiled  primitive single-op commands, K tiles streamed
//                (both kernels: firmware/kernels/gemm_async.h)
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

#include "firmware/kernels/gemm_async.h"
#include "platform/bench/bench.h"
#include "platform/bench/gemm_study.h"

namespace kb {

class HostRuntime;

using fw::DepSync;
using fw::IssueRecord;

const std::vector<std::string>& gemm_strategy_names();  // composite, async-full, async-tiled

// "" when the strategy's TCM-resident data fits the arena, else why not.
std::string gemm_strategy_fit(const TopologyConfig& cfg, const GemmShape& s,
                              const std::string& strategy, const std::string& variant);

// Runs one point on PE sip0.cube0.pe0 and returns its metrics: M, K, N,
// variant, strategy, window_ns, tflops_per_pe, mac_util, commands,
// commands_by_kind, dispatch_ns, dispatch_ns_by_kind, cpu_bound_ns,
// cpu_bound_share, cpu_starved_ns, gemm_busy_ns, gemm_idle_other_ns,
// stage_busy_ns, window_ns_analytic, cmd_id_first/last ... `record_out`, when
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
  std::vector<std::string> point_fields() const override;
  std::vector<std::string> metric_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
