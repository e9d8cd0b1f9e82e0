// How simspeed counts a child process's queue services from its JSON
// statistics (queue_services_in in platform/bench/simspeed_bench.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "platform/bench/simspeed_bench.h"

namespace kb {
namespace {

TEST(SimspeedCounts, QueueServicesSumEveryQueuesRequests) {
  const nlohmann::json stats = nlohmann::json::parse(R"({
    "system.sip0.cube0.pe0.hbm.pc0": {"busy_ns": 31.5, "bytes": 4096, "requests": 5},
    "system.sip0.cube0.pe0.tcm.dma_port.port": {"bytes": 2048, "requests": 2},
    "system.sip0.cube0.pe0_to_router.wire": {"requests": 7, "wire_bytes": 1024},
    "system.sip0.cube0.router": {"bytes": 512, "transactions": 11},
    "system.sip0.cube0.pe0.dma": {"bursts": 3, "transfers": 1}
  })");
  EXPECT_EQ(queue_services_in(stats), 14u);
}

TEST(SimspeedCounts, NoQueuesNoServices) {
  EXPECT_EQ(queue_services_in(nlohmann::json::object()), 0u);
  EXPECT_EQ(
      queue_services_in(nlohmann::json::parse(R"({"system.host.port": {"transactions": 4}})")), 0u);
}

}  // namespace
}  // namespace kb
