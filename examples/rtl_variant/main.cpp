// deep_unit.sv (the vector unit with two more pipeline stages) behind the
// platform's RTL bridge: `rtl_variant --set pe.math.impl=deep_rtl` runs it on
// every PE's PE_MATH, timed by its own clock cycles, with every bench and
// output of the CLI (here the math bench by default).
#include <Vdeep_unit.h>

#include <memory>

#include "models/rtl/verilated_unit.h"
#include "platform/bench/bench.h"
#include "platform/cli/kernbench_app.h"
#include "platform/fabric/engine_variants.h"

int sc_main(int argc, char* argv[]) {
  kb::register_math_engine("deep_rtl", [](const sc_core::sc_module_name& name,
                                          const kb::MathConfig& cfg, double clock_ghz) {
    auto unit = std::make_unique<kb::PeMathRtl>(name, cfg, clock_ghz, kb::PeMathRtl::Mode::kRtl,
                                                kb::verilated_unit<Vdeep_unit>);
    unit->set_impl_name("deep_rtl");
    return unit;
  });
  return kb::kernbench_main(argc, argv, kb::BenchRegistry::with_builtin_benches(), "math");
}
