// The platform's routes through the fabric (platform/platform.h).
#include <gtest/gtest.h>

#include <string>

#include "models/common/address_map.h"
#include "platform/platform.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

using test::tiny;

TEST(PlatformRoute, PathsFollowTheRoutersAndBackdoorReachesEveryMemory) {
  Platform p(tiny());
  const AddressMap& m = p.address_map();
  EXPECT_EQ(p.route({0, 0, 0}, m.hbm(0, 0, 0)).links.size(), 0u);
  EXPECT_EQ(p.route({0, 0, 0}, m.hbm(0, 0, 0)).endpoint, "system.sip0.cube0.pe0.hbm");
  EXPECT_EQ(p.route({0, 0, 0}, m.hbm(0, 3, 1)).links.size(), 4u);  // up, 2 cube hops, down
  EXPECT_EQ(p.route({0, 0, 0}, m.sram(0, 1)).endpoint, "system.sip0.cube1.sram");
  EXPECT_EQ(p.route({0, 0, 0}, m.host(0)).endpoint, "system.host.memory");
  EXPECT_EQ(p.route({0, 1, 1}, m.host(0)).links.back()->name(), std::string("system.d2h"));
}

}  // namespace
}  // namespace kb
