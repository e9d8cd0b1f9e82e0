// Bench `llm`: one decode step or one prefill of a whole Llama model on the
// platform, every layer's kernels running as firmware on every PE of the
// mapping (firmware/kernels/transformer_{decode,prefill,pipeline}.h,
// platform/llm/): latency per token and tokens/s or the time to first
// token, the per-layer time by op class, HBM and link traffic, each beside
// its roofline bound or model (platform/analytic/llm_roofline.h); with --data the
// logits against a double-precision reference forward pass.
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class LlmBench : public Bench {
 public:
  std::string name() const override { return "llm"; }
  std::string description() const override {
    return "a whole Llama model (llama3_70b, llama3_8b or any shape) on the platform: one decode "
           "step or one prefill, every layer as firmware on the PEs (tensor parallel, or pipeline "
           "stages of it), latency per token and tokens/s or the time to first token, and the "
           "per-layer op-class breakdown beside the roofline bound; with --data the logits vs a "
           "double-precision reference";
  }
  std::vector<ParamSpec> params() const override;
  bool uses_op_log() const override { return false; }
  std::string default_topology(const BenchParams& params) const override;
  // A whole model: the fast setting, whose error the fidelity table in
  // docs/ARCHITECTURE.md §1.6 measures.
  Fidelity default_fidelity() const override { return Fidelity::kFast; }
  std::vector<std::string> point_fields() const override;
  std::vector<std::string> metric_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
