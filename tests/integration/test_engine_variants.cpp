// An engine variant registered from outside the platform's sources
// (platform/fabric/engine_variants.h) and selected by a YAML value: built on
// the PEs pe.math.rtl_pes selects, listed by the schema, its typos answered
// with the nearest name. Each test runs in its own process, so each registers
// afresh before it loads a topology.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "models/common/errors.h"
#include "models/trace/op_log.h"
#include "platform/config/topology_loader.h"
#include "platform/fabric/engine_variants.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

using test::kTiny;

// PE_MATH at half the rate of the TLM model: twice its stage time.
class HalfRateMath : public PeMath {
 public:
  using PeMath::PeMath;
  const char* impl_name() const override { return "half_rate"; }

 protected:
  sc_core::sc_time service_time(const Stage& stage) const override {
    return 2 * PeMath::service_time(stage);
  }
};

void register_half_rate() {
  register_math_engine("half_rate",
                       [](const sc_core::sc_module_name& n, const MathConfig& c, double ghz) {
                         return std::make_unique<HalfRateMath>(n, c, ghz);
                       });
}

double relu_ns(Platform& p, const PeId& pe) {
  HostRuntime rt(p);
  const fw::Tensor x = rt.alloc_tcm(pe, {64, 64}, DType::kFp32);
  rt.launch_on({pe}, [&](fw::Tl& tl) { tl.wait(tl.math("relu", {x})); });
  rt.run();
  const std::string path = "system.sip" + std::to_string(pe.sip) + ".cube" +
                           std::to_string(pe.cube) + ".pe" + std::to_string(pe.pe);
  double ns = -1;
  for (const OpRecord& r : p.op_log().records())
    if (r.pe == path && r.engine == "math") ns = r.t_end_ns - r.t_start_ns;
  return ns;
}

TEST(EngineVariants, ARegisteredMathEngineRunsOnTheSelectedPesOnly) {
  register_half_rate();
  Platform p(load_topology_file(kTiny, {"pe.math.impl=half_rate", "pe.math.rtl_pes=0.0.1"}));
  const double tlm = relu_ns(p, {0, 0, 0});
  const double variant = relu_ns(p, {0, 0, 1});
  EXPECT_DOUBLE_EQ(tlm, 4096.0 / 64 / p.config().pe.clock_ghz);  // ceil(elements / lanes) cycles
  EXPECT_DOUBLE_EQ(variant, 2 * tlm);
  EXPECT_EQ(p.stats()["system.sip0.cube0.pe1.math.stages"]["stages"], 1);
}

TEST(EngineVariants, TheSchemaListsItAndATypoGetsTheNearestName) {
  register_half_rate();
  try {
    load_topology_file(kTiny, {"pe.math.impl=half_rat"});
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("tlm, rtl, scoreboard, half_rate"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean 'half_rate'"), std::string::npos) << m;
  }
  EXPECT_NE(describe_topology_knobs().find("<tlm|rtl|scoreboard|half_rate>"), std::string::npos);
}

TEST(EngineVariants, BuiltInNamesAndLateRegistrationAreRefused) {
  EXPECT_THROW(register_math_engine("rtl", nullptr), std::invalid_argument);
  load_topology_file(kTiny);  // the schema is built now
  EXPECT_THROW(register_half_rate(), std::logic_error);
}

}  // namespace
}  // namespace kb
