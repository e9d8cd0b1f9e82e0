// Bad numbers in, clear errors out: integer parameters, knob units that
// would overflow simulated time, transfer sizes that do not fit a descriptor,
// and payload features the memories do not support.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "firmware/tl.h"
#include "models/common/errors.h"
#include "models/common/sim_time.h"
#include "models/memory/backing_store.h"
#include "models/memory/payload_access.h"
#include "platform/bench/bench.h"
#include "platform/config/topology_loader.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {
namespace {

TEST(InputBounds, IntegerParamsAreDecimalOrHexNeverOctal) {
  const std::vector<ParamSpec> specs = {{"n", "0", ""}};
  EXPECT_EQ(BenchParams("b", specs, {"n=010"}).integer("n"), 10);
  EXPECT_EQ(BenchParams("b", specs, {"n=0x10"}).integer("n"), 16);
  EXPECT_EQ(BenchParams("b", specs, {"n=-7"}).integer("n"), -7);
  EXPECT_THROW(BenchParams("b", specs, {"n=08x"}).integer("n"), UsageError);
  EXPECT_THROW(BenchParams("b", specs, {"n=0x"}).integer("n"), UsageError);
}

TEST(InputBounds, IntegerListParamsReadEachItemLikeOneInteger) {
  const std::vector<ParamSpec> specs = {{"n", "", ""}};
  EXPECT_EQ(BenchParams("b", specs, {"n=010,0x10,-7,2KiB"}).integers("n"),
            (std::vector<long long>{10, 16, -7, 2048}));
  EXPECT_TRUE(BenchParams("b", specs, {}).integers("n").empty());
  // An empty item is a typo, not a value to skip.
  try {
    BenchParams("b", specs, {"n=4KiB,,8KiB"}).integers("n");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("an empty item in the list"), std::string::npos)
        << e.what();
  }
  // A size too large for 63 bits is out of range, not wrapped.
  try {
    BenchParams("b", specs, {"n=16777216TiB"}).integers("n");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("n=16777216TiB"), std::string::npos) << e.what();
  }
  try {
    BenchParams("b", specs, {"n=4,four"}).integers("n");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--param n=four: expected an integer"), std::string::npos)
        << e.what();
  }
}

TEST(InputBounds, DurationsAndBandwidthsThatWouldOverflowSimulatedTimeAreRejected) {
  try {
    load_default_topology({"pe.hbm.access_latency_ns=1e300"});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("out of range [0, 1e9]"), std::string::npos) << e.what();
  }
  try {
    load_default_topology({"sip.cube_link.bandwidth_gbps=1e-300"});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("out of range [0.001, 1e6]"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(load_default_topology({"pe.hbm.access_latency_ns=1e6"}));
}

// Every knob that turns into simulated time has a range in the schema, and a
// value outside it (or past a double) is "out of range" with the range,
// wherever it comes from.
TEST(InputBounds, ClocksCyclesAndThroughputsHaveARange) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"pe.clock_ghz=0.0001", "out of range [0.001, 100]"},
      {"pe.clock_ghz=250", "out of range [0.001, 100]"},
      {"pe.cost_model.fixed_per_single_op_cmd_cycles=2e6", "out of range [0, 1e6]"},
      {"pe.cost_model.per_byte_cycles=5000", "out of range [0, 1000]"},
      {"pe.gemm.peak_tflops=1e-5", "out of range [0.001, 10000]"},
      {"pe.dma.setup_ns=1e999", "out of range [0, 1e9]"},
      {"host.h2d.bandwidth_gbps=1e-310", "out of range [0.001, 1e6]"},
      {"pe.dma.energy.pj_per_burst=2e308", "out of range"},
  };
  for (const auto& [set, want] : cases) {
    try {
      load_default_topology({set});
      ADD_FAILURE() << set << " was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << set << ": " << e.what();
      EXPECT_EQ(std::string(e.what()).find("expected a number"), std::string::npos) << e.what();
    }
  }
  // A value below a double's smallest normal one is judged by the range.
  EXPECT_NO_THROW(load_default_topology({"pe.dma.setup_ns=1e-315"}));
  // In a file, the error names the line and column.
  try {
    load_topology_text("pe:\n  cost_model:\n    fixed_per_composite_cycles: 3e7\n", "t.yaml", {});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:3:33: pe.cost_model.fixed_per_composite_cycles: "
                                         "out of range [0, 1e6]"),
              std::string::npos)
        << e.what();
  }
  // A native GEMM tile longer than a second (products of knobs in range).
  try {
    load_default_topology({"pe.gemm.peak_tflops=0.01", "pe.gemm.tile_k=4096", "pe.gemm.tile_m=2048",
                           "pe.gemm.tile_n=2048"});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("more than a second"), std::string::npos) << e.what();
  }
}

// The central conversion refuses a duration the kernel cannot hold (2^63 ps)
// instead of wrapping it, and a transfer names its size and bandwidth.
TEST(InputBounds, ADurationPastTheTimeLimitIsAFaultNotAWrap) {
  EXPECT_EQ(ns_to_ps(1e15), uint64_t{1000000000000000000});
  EXPECT_EQ(ns_to_ps(std::numeric_limits<double>::quiet_NaN()), 0u);
  for (const double ns : {1e16, 1e300, std::numeric_limits<double>::infinity()}) {
    try {
      ns_to_time(ns);
      ADD_FAILURE() << ns << " ns was accepted";
    } catch (const sc_core::sc_report& r) {
      EXPECT_NE(std::string(r.get_msg()).find("past the simulated time a run can hold"),
                std::string::npos)
          << r.get_msg();
    }
  }
  try {
    transfer_time(uint64_t{1} << 50, 0.01);
    FAIL();
  } catch (const sc_core::sc_report& r) {
    EXPECT_NE(std::string(r.get_msg()).find("1125899906842624 bytes at 0.01 GB/s"),
              std::string::npos)
        << r.get_msg();
  }
}

// A command whose dispatch alone is past the limit is a fault naming the
// command, its cycles and the clock; and a run whose events would pass the
// limit (each one within it) stops there with a fault, not a wrapped clock.
TEST(InputBounds, ADispatchPastTheTimeLimitIsAFaultNamingTheCommand) {
  Platform p(load_default_topology({"cube.pes=1", "sip.cubes_x=1", "sip.cubes_y=1"}));
  HostRuntime rt(p);
  rt.launch([](fw::Tl& tl) { tl.overhead(3e19); });
  try {
    rt.run();
    FAIL();
  } catch (const sc_core::sc_report& r) {
    const std::string m = r.get_msg();
    EXPECT_NE(m.find("command #"), std::string::npos) << m;
    EXPECT_NE(m.find("3e+19 cycles at pe.clock_ghz = 1"), std::string::npos) << m;
    EXPECT_NE(m.find("past the simulated time a run can hold"), std::string::npos) << m;
  }
}

TEST(InputBounds, ARunThatWouldPassTheTimeLimitStopsThere) {
  Platform p(load_default_topology({"cube.pes=1", "sip.cubes_x=1", "sip.cubes_y=1"}));
  HostRuntime rt(p);
  rt.launch([](fw::Tl& tl) {
    for (int i = 0; i < 12; ++i) tl.overhead(1e15);  // 1e15 ns each at 1 GHz: 1.2e16 in all
  });
  try {
    rt.run();
    FAIL();
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("events still to come"), std::string::npos) << e.what();
  }
  EXPECT_LE(p.now_ns(), kTimeLimitNs);
}

TEST(InputBounds, MemoriesRefuseByteEnablesAndStreamingWithTheTlmError) {
  BackingStore store;
  unsigned char data[8] = {}, be[8] = {0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0};
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_address(0);
  t.set_data_ptr(data);
  t.set_data_length(8);
  t.set_streaming_width(8);
  EXPECT_EQ(unsupported_payload_status(t), tlm::TLM_INCOMPLETE_RESPONSE);
  t.set_byte_enable_ptr(be);
  t.set_byte_enable_length(8);
  EXPECT_EQ(unsupported_payload_status(t), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  EXPECT_EQ(debug_access(t, store, 4096), 0u);
  EXPECT_EQ(t.get_response_status(), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  t.set_byte_enable_ptr(nullptr);
  t.set_byte_enable_length(0);
  t.set_streaming_width(4);
  EXPECT_EQ(unsupported_payload_status(t), tlm::TLM_BURST_ERROR_RESPONSE);
  t.set_byte_enable_ptr(nullptr);  // the payload does not own these buffers
  t.set_data_ptr(nullptr);
}

}  // namespace
}  // namespace kb
