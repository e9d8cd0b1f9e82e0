#include "models/gemm/pe_gemm.h"

#include "models/common/sim_time.h"

namespace kb {

PeGemm::PeGemm(const sc_core::sc_module_name& name, const GemmConfig& cfg)
    : PeEngine(name, EngineKind::kGemm, {"gemm"}),
      native_tile_ns_(2.0 * cfg.tile_m * cfg.tile_k * cfg.tile_n / (cfg.peak_tflops * 1000.0)) {}

sc_core::sc_time PeGemm::service_time(const Stage& stage) const {
  return ns_to_time(stage.native_tiles * native_tile_ns_);
}

}  // namespace kb
