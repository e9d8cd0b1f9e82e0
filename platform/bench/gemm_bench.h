// Benches `gemm` (one point) and `gemm-sweep` (the standard shapes in every
// variant whose pre-loaded operands fit the TCM). See gemm_study.h.
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class GemmBench : public Bench {
 public:
  std::string name() const override { return "gemm"; }
  std::string description() const override {
    return "one composite GEMM on one PE (A[M,K] x W[K,N], fp16): window, TFLOP/s, MAC and HBM "
           "utilisation vs the analytic model, per-stage busy time";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<std::string> point_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

class GemmSweepBench : public Bench {
 public:
  std::string name() const override { return "gemm-sweep"; }
  std::string description() const override {
    return "the GEMM study over the standard shapes x {load_ref, ref_ref, load_load}";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<std::string> point_fields() const override;
  std::vector<std::string> metric_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

// Adds one point's row to a gemm summary table.
SummaryTable gemm_table(const std::string& title);
void add_gemm_row(SummaryTable& t, const nlohmann::json& pt);

}  // namespace kb
