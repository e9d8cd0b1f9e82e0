#include "models/math/pe_math.h"

#include "models/common/sim_time.h"

namespace kb {

PeMath::PeMath(const sc_core::sc_module_name& name, const MathConfig& cfg, double clock_ghz)
    : PeEngine(name, EngineKind::kMath, {"math"}), lanes_(cfg.lanes), clock_ghz_(clock_ghz) {}

double PeMath::stage_ns(uint64_t elements) const {
  const uint64_t cycles = (elements + lanes_ - 1) / lanes_;
  return static_cast<double>(cycles) / clock_ghz_;
}

sc_core::sc_time PeMath::service_time(const Stage& stage) const {
  return ns_to_time(stage_ns(stage.elements));
}

}  // namespace kb
