// PE_MATH: the vector engine. Latency = ceil(elements / lanes) cycles at the
// PE clock; the op_kind is an opaque label to the engine.
#pragma once

#include "models/pe/pe_engine.h"
#include "platform/config/topology_config.h"

namespace kb {

class PeMath : public PeEngine {
 public:
  PeMath(const sc_core::sc_module_name& name, const MathConfig& cfg, double clock_ghz);
  double stage_ns(uint64_t elements) const;

 protected:
  sc_core::sc_time service_time(const Stage& stage) const override;
  // Data mode: evaluates the op kind (models/math/math_eval.h) on TCM
  // tensors, or on the current GEMM tile for epilogue ops.
  void serve(TileToken& token, Stage& stage) override;

 private:
  unsigned lanes_;
  double clock_ghz_;
};

}  // namespace kb
