// Parameters of PE_GEMM (models/gemm/pe_gemm.h). Each field's default, unit
// and bound: visit() below (models/common/knob_spec.h).
#pragma once

#include "models/common/knob_spec.h"

namespace kb {

// Energy of PE_GEMM: per flop the array executes (an edge tile executes a
// whole native tile), and its static power.
struct GemmEnergyConfig {
  double pj_per_flop = 0.75;
  double static_mw = 200;
};

struct GemmConfig {
  double peak_tflops = 8;
  unsigned tile_m = 32;
  unsigned tile_k = 64;
  unsigned tile_n = 32;
  GemmEnergyConfig energy;

  template <class V>
  void visit(V& v) {
    v.real(peak_tflops,
           KnobSpec{"peak_tflops", "peak throughput, TFLOP/s (a native tile takes 2*m*k*n / peak)",
                    Bound::kPositive}
               .range(1e-3, 1e4, "TFLOP/s: 1 GFLOP/s to 10 PFLOP/s"));
    v.count(tile_m, {"tile_m", "native tile rows (M)", Bound::kAtLeastOne});
    v.count(tile_k, {"tile_k", "native tile depth (K)", Bound::kAtLeastOne});
    v.count(tile_n, {"tile_n", "native tile columns (N)", Bound::kAtLeastOne});
    v.section("energy", "PE_GEMM energy", [&] {
      v.real(energy.pj_per_flop,
             {"pj_per_flop",
              "per flop executed (a MAC is 2; an edge tile executes a whole native tile), pJ "
              "(default 0.75: fp16 multiply 1.1 pJ + add 0.4 pJ per MAC, Horowitz, ISSCC 2014, "
              "45 nm)",
              Bound::kNonNegative});
      v.real(energy.static_mw,
             {"static_mw", "static power, mW (default 200: an estimate)", Bound::kNonNegative});
    });
  }
};

}  // namespace kb
