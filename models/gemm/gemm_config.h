// Parameters of PE_GEMM (models/gemm/pe_gemm.h). Each field's default, unit
// and bound: visit() below (models/common/knob_spec.h).
#pragma once

#include "models/common/knob_spec.h"

namespace kb {

struct GemmConfig {
  double peak_tflops = 8;
  unsigned tile_m = 32;
  unsigned tile_k = 64;
  unsigned tile_n = 32;

  template <class V>
  void visit(V& v) {
    v.real(peak_tflops,
           {"peak_tflops", "peak throughput, TFLOP/s (a native tile takes 2*m*k*n / peak)",
            Bound::kPositive});
    v.count(tile_m, {"tile_m", "native tile rows (M)", Bound::kAtLeastOne});
    v.count(tile_k, {"tile_k", "native tile depth (K)", Bound::kAtLeastOne});
    v.count(tile_n, {"tile_n", "native tile columns (N)", Bound::kAtLeastOne});
  }
};

}  // namespace kb
