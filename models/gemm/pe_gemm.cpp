#include "models/gemm/pe_gemm.h"

#include "models/common/energy.h"
#include "models/common/sim_time.h"
#include "models/pe/pe_data.h"

namespace kb {

PeGemm::PeGemm(const sc_core::sc_module_name& name, const GemmConfig& cfg)
    : PeEngine(name, EngineKind::kGemm, {"gemm"}),
      energy_(cfg.energy),
      tile_flops_(uint64_t{2} * cfg.tile_m * cfg.tile_k * cfg.tile_n),
      native_tile_ns_(2.0 * cfg.tile_m * cfg.tile_k * cfg.tile_n / (cfg.peak_tflops * 1000.0)) {}

void PeGemm::report_lane_extras(StatsSink& out) const {
  out.count("native_tiles", native_tiles_, "", "native tiles executed (an edge tile is one)");
  out.count("executed_flops", executed_flops(), "flop",
            "flops the array executed: native tiles x 2*tile_m*tile_k*tile_n");
}

void PeGemm::report_energy(EnergySink& out) const {
  out.dynamic_pj(EnergyClass::kGemm, static_cast<double>(executed_flops()) * energy_.pj_per_flop);
  out.static_mw(EnergyClass::kGemm, energy_.static_mw);
}

sc_core::sc_time PeGemm::service_time(const Stage& stage) const {
  return ns_to_time(stage.native_tiles * native_tile_ns_);
}

NdArray matmul_fp32(const NdArray& a, const NdArray& b) {
  const int64_t m = a.shape.at(0), k = a.shape.at(1), n = b.shape.at(1);
  if (b.shape.at(0) != k) throw MathError("gemm: inner dimensions differ");
  NdArray c;
  c.shape = {m, n};
  c.data.assign(static_cast<size_t>(m * n), 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      const float av = a.data[static_cast<size_t>(i * k + p)];
      const float* brow = &b.data[static_cast<size_t>(p * n)];
      float* crow = &c.data[static_cast<size_t>(i * n)];
      for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];  // fp32 accumulate
    }
  return c;
}

void accumulate_into(NdArray& acc, const NdArray& x) {
  for (size_t i = 0; i < acc.data.size(); ++i) acc.data[i] += x.data[i];
}

void PeGemm::finish_service(TileToken& token, Stage& stage) {
  if (!data()) return;
  try {
    const StageOperands& o = stage.operands();
    NdArray p = matmul_fp32(data()->read(o.a_view), data()->read(o.b_view));
    const PeData::TileKey key{token.cmd_id, stage.mi, stage.ni};
    if (stage.single_op) {
      if (stage.accumulate_out) accumulate_into(p, data()->read(o.out_view));
      data()->accumulators()[key] = std::move(p);
    } else if (stage.accumulate_partial) {
      NdArray& acc = data()->accumulators()[key];
      if (stage.first_k || acc.data.empty())
        acc = std::move(p);
      else
        accumulate_into(acc, p);
    } else {
      data()->partials()[key] = std::move(p);
    }
  } catch (const MathError& e) {
    compute_fault(token, stage, e.what());
  }
}

}  // namespace kb
