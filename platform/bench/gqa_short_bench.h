// Bench `gqa-short` (short context): decode with every cube
// owning whole KV heads (kv_per_cube of them), no cube-level sequence
// parallelism. The PEs of a cube are split evenly over its KV heads; each
// head's PEs split its sequence (PE-SP) and chain-reduce (m, l, O) to the
// group's first PE (firmware/kernels/attention_long_decode.h).
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class GqaShortBench : public Bench {
 public:
  std::string name() const override { return "gqa-short"; }
  std::string description() const override {
    return "short-context GQA decode: each cube owns kv_per_cube whole KV heads (1, 2, 4, 8), "
           "PE-parallel heads with an intra-cube chain reduce; latency, KV bytes per cube, IPCQ "
           "and DMA ops, and with --data the error vs a double-precision reference";
  }
  std::vector<ParamSpec> params() const override;
  bool uses_op_log() const override { return false; }
  std::vector<std::string> point_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
