// Bad numbers in, clear errors out: integer parameters, knob units that
// would overflow simulated time, transfer sizes that do not fit a descriptor,
// and payload features the memories do not support.
#include <gtest/gtest.h>

#include <string>

#include "models/common/errors.h"
#include "models/memory/backing_store.h"
#include "models/memory/payload_access.h"
#include "platform/bench/bench.h"
#include "platform/config/topology_loader.h"

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
    EXPECT_NE(std::string(e.what()).find("must be <= 1e9 ns"), std::string::npos) << e.what();
  }
  try {
    load_default_topology({"sip.cube_link.bandwidth_gbps=1e-300"});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("between 0.001 and 1e6"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(load_default_topology({"pe.hbm.access_latency_ns=1e6"}));
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
