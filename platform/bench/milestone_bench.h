// Bench `milestone`, the default study: every registered study at a modest
// size on one elaborated platform, one after another, with one summary.
// Today: the probe (no contention points), the GEMM study at 32x3072x32 in
// every variant, gqa-decode (S_kv 1024, opt1/opt2/opt3), gqa-long (one KV
// head on up to 8 cubes, S_kv 8192, cases 3 and 4) and the all-reduce
// of the topology's natural algorithm at 96 KiB per PE; each capability that
// adds a study adds it here.
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class MilestoneBench : public Bench {
 public:
  std::string name() const override { return "milestone"; }
  std::string description() const override {
    return "the default study: every registered study at a modest size, one summary";
  }
  std::vector<std::string> point_fields() const override;
  std::vector<std::string> metric_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
