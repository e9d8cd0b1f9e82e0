// PE_MATH: the vector engine. Latency = ceil(elements / lanes) cycles at the
// PE clock (a registered op kind: that times its passes, models/math/math_ops.h);
// otherwise the op_kind is an opaque label to the engine.
//
// The RTL co-simulation bridge (models/rtl/pe_math_rtl.h) derives from it and
// replaces serve() (its lanes are threads): same sockets, same op log lane, same data-mode operand
// gathering (compute()), only the arithmetic and the timing come from RTL.
#pragma once

#include <array>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/commands/op_kinds.h"
#include "models/math/math_config.h"
#include "models/math/math_eval.h"
#include "models/pe/pe_engine.h"

namespace kb {

class PeMath : public PeEngine {
 public:
  PeMath(const sc_core::sc_module_name& name, const MathConfig& cfg, double clock_ghz);
  double stage_ns(uint64_t elements) const;
  // "tlm", or the bridge's "rtl" / "scoreboard".
  virtual const char* impl_name() const { return "tlm"; }
  // Output elements served, by op class (models/commands/op_kinds.h).
  uint64_t elements(MathOpClass c) const { return elements_[static_cast<unsigned>(c)]; }

  void report_energy(EnergySink& out) const override;

 protected:
  sc_core::sc_time service_time(const Stage& stage) const override;
  // Data mode: evaluates the op kind (models/math/math_eval.h) on TCM
  // tensors, or on the current GEMM tile for epilogue ops.
  void finish_service(TileToken& token, Stage& stage) override;
  void count_served(const Stage& stage) override;
  double stage_energy_pj(const Stage& stage) const override;
  void report_lane_extras(StatsSink& out) const override;

  // Evaluates one op kind on gathered operands (math_eval, or the RTL).
  using Evaluator =
      std::function<NdArray(const std::string& kind, const std::vector<NdArray>& inputs,
                            const std::vector<std::pair<std::string, ExtraValue>>& extra)>;
  // Data mode: reads the stage's operands, evaluates them with `eval` and
  // writes the result back (output tensor, or the GEMM tile's partial or
  // accumulator). A MathError becomes compute_fault().
  void compute(TileToken& token, Stage& stage, const Evaluator& eval);

  double clock_ghz() const { return clock_ghz_; }
  unsigned lanes() const { return lanes_; }

 private:
  double pj_per_element(MathOpClass c) const;

  unsigned lanes_;
  double clock_ghz_;
  MathEnergyConfig energy_;
  std::array<uint64_t, kNumMathOpClasses> elements_{};
};

}  // namespace kb
