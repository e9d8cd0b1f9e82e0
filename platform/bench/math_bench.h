// Bench `math`: single MATH ops on one PE's PE_MATH, operands and result in
// its TCM, so the window is the engine's (and the dispatch's) alone. It runs
// whichever implementation the topology gives that PE (pe.math.impl: tlm,
// rtl or scoreboard; see models/rtl/pe_math_rtl.h) and reports the MATH
// stage time beside the TLM model's ceil(elements / lanes) cycles, so the
// RTL's pipeline fill shows as the difference. With --data the operands are
// random fp32 and the result is compared bit for bit with the TLM numerics
// (math_eval): `mismatches` (any two NaNs are equal).
#pragma once

#include "platform/bench/bench.h"

namespace kb {

class MathBench : public Bench {
 public:
  std::string name() const override { return "math"; }
  std::string description() const override {
    return "single MATH ops (TCM operands) on one PE: stage time of the PE_MATH implementation "
           "(tlm | rtl | scoreboard) vs the TLM model";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<std::string> point_fields() const override;
  std::vector<std::string> metric_fields() const override;
  BenchResult run(BenchContext& ctx) override;
};

}  // namespace kb
