// Bench `gqa-prefill` (long context): ring-KV prefill of one KV
// head's G query heads, one query head per cube on C cubes
// (firmware/kernels/attention_ring_prefill.h), for a chunk of T_q query
// tokens at the end of S positions with the causal mask. Reports latency,
// IPCQ and DMA ops, the ranks' peak TCM, and with --data the error of every
// head against a double-precision causal reference.
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class GqaPrefillBench : public Bench {
 public:
  std::string name() const override { return "gqa-prefill"; }
  std::string description() const override {
    return "ring-KV GQA prefill: one query head per cube on C cubes, KV rotated over IPCQ a tile "
           "at a time, causal mask; latency, IPCQ/DMA ops, peak TCM per rank (bounded in S), and "
           "with --data the error vs a double-precision reference";
  }
  std::vector<ParamSpec> params() const override;
  bool uses_op_log() const override { return false; }
  std::vector<std::string> point_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
