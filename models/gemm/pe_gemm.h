// PE_GEMM: the matrix engine. A stage covering `native_tiles` native tiles
// (tile_m x tile_k x tile_n) takes native_tiles * 2*tile_m*tile_k*tile_n / peak:
// an edge tile costs a full tile. 32x64x32 at 8 TFLOP/s = 16.384 ns.
#pragma once

#include "models/gemm/gemm_config.h"
#include "models/math/math_eval.h"
#include "models/pe/pe_engine.h"

namespace kb {

class PeGemm : public PeEngine {
 public:
  PeGemm(const sc_core::sc_module_name& name, const GemmConfig& cfg);
  double native_tile_ns() const { return native_tile_ns_; }
  // Flops the array has executed: native tiles served x 2*tile_m*tile_k*tile_n.
  uint64_t executed_flops() const { return native_tiles_ * tile_flops_; }

  void report_energy(EnergySink& out) const override;

 protected:
  sc_core::sc_time service_time(const Stage& stage) const override;
  // Data mode: the tile's product, accumulated in fp32 into the output tile.
  void finish_service(TileToken& token, Stage& stage) override;
  void count_served(const Stage& stage) override { native_tiles_ += stage.native_tiles; }
  double stage_energy_pj(const Stage& stage) const override {
    return static_cast<double>(stage.native_tiles * tile_flops_) * energy_.pj_per_flop;
  }
  void report_lane_extras(StatsSink& out) const override;

 private:
  GemmEnergyConfig energy_;
  uint64_t tile_flops_;
  double native_tile_ns_;
  uint64_t native_tiles_ = 0;
};

// C = A·B with fp32 accumulation (data mode).
NdArray matmul_fp32(const NdArray& a, const NdArray& b);
void accumulate_into(NdArray& acc, const NdArray& x);

}  // namespace kb
