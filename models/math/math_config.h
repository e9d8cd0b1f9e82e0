// Parameters of PE_MATH (models/math/pe_math.h, and the RTL bridge
// models/rtl/pe_math_rtl.h). Each field's default, unit and bound: visit()
// below (models/common/knob_spec.h); the rtl_pes selector syntax is checked by
// the loader (platform/config/topology_config.h, rtl_pes_error).
#pragma once

#include <string>

#include "models/common/knob_spec.h"

namespace kb {

// The built-in implementations of a PE's PE_MATH stages: the TLM model, the
// verilated RTL vector unit behind a bridge, or the RTL with the TLM numerics
// checked beside it on every stage (scoreboard). A program may register more
// (platform/fabric/engine_variants.h, register_math_engine).
constexpr const char* kMathImplBuiltins[] = {"tlm", "rtl", "scoreboard"};

// Energy of PE_MATH: per output element, by op class
// (models/commands/op_kinds.h, math_op_class), and its static power.
struct MathEnergyConfig {
  double elementwise_pj_per_element = 3.7;
  double reduction_pj_per_element = 0.9;
  double transcendental_pj_per_element = 37;
  double static_mw = 50;
};

struct MathConfig {
  unsigned lanes = 64;
  std::string impl = "tlm";  // of the PEs rtl_pes selects (the others: tlm)
  std::string rtl_pes = "*";
  MathEnergyConfig energy;

  template <class V>
  void visit(V& v) {
    v.count(lanes, {"lanes", "elements per cycle (latency = ceil(elements / lanes) cycles)",
                    Bound::kAtLeastOne});
    // Its own label: the description names the block itself.
    v.open_choice(impl, kMathImplBuiltins,
                  {"impl",
                   "PE_MATH implementation: tlm (the TLM model), rtl (the verilated "
                   "models/rtl/vector_unit.sv behind a bridge; timing from its clock cycles), "
                   "scoreboard (rtl, with the TLM numerics run beside it on every stage; a "
                   "mismatch is a simulation fault), or an engine variant the program "
                   "registered (kb::register_math_engine). rtl and scoreboard need a build with "
                   "Verilator"});
    v.text(rtl_pes, {"rtl_pes",
                     "the PEs that get pe.math.impl (the others keep tlm): * for all, or a "
                     "comma-separated list of S.C.P selectors, each field a number or *, e.g. "
                     "\"0.0.0, 0.1.*\""});
    v.section("energy", "PE_MATH energy", [&] {
      v.real(energy.elementwise_pj_per_element,
             {"elementwise_pj_per_element",
              "per output element of an elementwise op (add, mul, scale, relu, copy, cast, ...), "
              "pJ (default 3.7: one fp32 multiply, Horowitz, ISSCC 2014, 45 nm)",
              Bound::kNonNegative});
      v.real(energy.reduction_pj_per_element,
             {"reduction_pj_per_element",
              "per output element of a reduction (rmax, rsum, reduce_add), pJ (default 0.9: one "
              "fp32 add, Horowitz, ISSCC 2014)",
              Bound::kNonNegative});
      v.real(energy.transcendental_pj_per_element,
             {"transcendental_pj_per_element",
              "per output element of exp, exp_diff, div, recip, rsqrt, gelu or silu, pJ "
              "(default 37: ten fp32 multiplies, a polynomial or Newton evaluation, Horowitz, "
              "ISSCC 2014)",
              Bound::kNonNegative});
      v.real(energy.static_mw,
             {"static_mw", "static power, mW (default 50: an estimate)", Bound::kNonNegative});
    });
  }
};

}  // namespace kb
