// A PE_MATH with a pipeline: every stage pays `kFill` cycles before the
// elements stream at the lanes' rate. One class and one registration; then
//   math_variant --bench math --set pe.math.impl=pipelined
// builds it on the PEs pe.math.rtl_pes selects (all by default), and every
// bench, output and --set works as for the built-in models.
#include <cmath>
#include <memory>
#include <systemc>

#include "platform/bench/bench.h"
#include "platform/cli/kernbench_app.h"
#include "platform/fabric/engine_variants.h"

class PipelinedMath : public kb::PeMath {
 public:
  static constexpr double kFill = 8;  // cycles
  using kb::PeMath::PeMath;
  const char* impl_name() const override { return "pipelined"; }

 protected:
  sc_core::sc_time service_time(const kb::Stage& stage) const override {
    return kb::PeMath::service_time(stage) + sc_core::sc_time(kFill / clock_ghz(), sc_core::SC_NS);
  }
};

int sc_main(int argc, char* argv[]) {
  kb::register_math_engine("pipelined", [](const sc_core::sc_module_name& name,
                                           const kb::MathConfig& cfg, double clock_ghz) {
    return std::make_unique<PipelinedMath>(name, cfg, clock_ghz);
  });
  return kb::kernbench_main(argc, argv, kb::BenchRegistry::with_builtin_benches(), "math");
}
