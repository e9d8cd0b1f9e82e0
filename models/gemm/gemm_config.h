// Parameters of PE_GEMM (models/gemm/pe_gemm.h). Defaults and bounds:
// platform/config/topology_schema.cpp.
#pragma once

namespace kb {

struct GemmConfig {
  double peak_tflops = 0;  // TFLOP/s (1 TFLOP/s = 1000 flop/ns)
  unsigned tile_m = 0;     // native tile rows (M)
  unsigned tile_k = 0;     // native tile depth (K)
  unsigned tile_n = 0;     // native tile columns (N)
};

}  // namespace kb
