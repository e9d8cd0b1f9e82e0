// Bench `gqa-decode`: attention decode for one KV-head group of Llama-70B
// shapes on PE sip0.cube0.pe0 (firmware/kernels/attention_decode.h), in the
// variants opt1, opt2 and opt3.
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class GqaDecodeBench : public Bench {
 public:
  std::string name() const override { return "gqa-decode"; }
  std::string description() const override {
    return "GQA decode of one KV-head group (G query heads folded into M, d_head 128): latency, "
           "PE_CPU dispatch and commands per KV tile, K-before-V, and with --data the error vs a "
           "double-precision reference";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<std::string> point_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
