// Bench `milestone`, the default study: every registered study at a modest
// size on one elaborated platform, one after another, with one summary.
// Today: the probe (no contention points) and the GEMM study at 32x3072x32
// in every variant; each capability that adds a study adds it here.
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class MilestoneBench : public Bench {
 public:
  std::string name() const override { return "milestone"; }
  std::string description() const override {
    return "the default study: every registered study at a modest size, one summary";
  }
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
