// The `fidelity` bench: the fast setting's error against the exact model
// (platform/config/fidelity.h). Each workload runs twice in child processes,
// with --fidelity exact and --fidelity fast: every point's latency (a GEMM
// window, an all-reduce, an attention, an llm step), the whole run's
// simulated time and its energy side by side, the largest relative error,
// and the wall-time ratio. The table docs/ARCHITECTURE.md §1.6 quotes.
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class FidelityBench : public Bench {
 public:
  std::string name() const override { return "fidelity"; }
  std::string description() const override {
    return "the fast fidelity's error against the exact model: gemm-sweep, all-reduces of 4 KiB "
           "to 1 MiB on the three cube topologies, the gqa benches, one Llama-3-70B layer at "
           "batch 1, 8 and 32 and a 64-token prefill, each run exact and fast in child processes "
           "(latency and energy error, wall-time ratio)";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<std::string> point_fields() const override;
  std::vector<std::string> metric_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
