// The fabric's routing decision (models/topology/fabric_route.h), node by
// node and as whole paths.
#include <gtest/gtest.h>

#include <vector>

#include "models/topology/fabric_route.h"

namespace kb {
namespace {

using Exit = RouteExit;

// Two SIPs in a ring, 2 x 2 mesh cubes, the I/O cube 0, the host on SIP 1.
FabricRouting two_sips() {
  return FabricRouting(2, 2, CubeTopology::kMesh, 0, 2, SipTopology::kRing, 1);
}

std::vector<Exit> exits(const std::vector<RouteStep>& path) {
  std::vector<Exit> e;
  for (const RouteStep& s : path) e.push_back(s.hop.exit);
  return e;
}

TEST(FabricRoute, CrossbarDeliversItsOwnMemoriesAndSendsTheRestUp) {
  const Location self{Space::kHbm, 1, 2, 3, 0};
  for (Space s : {Space::kHbm, Space::kTcm, Space::kIpcq})
    EXPECT_EQ(FabricRouting::xbar_hop(self, {s, 1, 2, 3, 0}).exit, Exit::kDeliver);
  EXPECT_EQ(FabricRouting::xbar_hop(self, {Space::kSram, 1, 2, 0, 0}).exit, Exit::kPeUp);
  EXPECT_EQ(FabricRouting::xbar_hop(self, {Space::kHbm, 1, 2, 2, 0}).exit, Exit::kPeUp);
  EXPECT_EQ(FabricRouting::xbar_hop({Space::kHbm, 0, 0, 0, 0}, {Space::kHost, 0, 0, 0, 0}).exit,
            Exit::kPeUp);
}

TEST(FabricRoute, CubeRouterDeliversSramAndGoesDimensionOrderTowardsTheIoCube) {
  const FabricRouting r = two_sips();
  EXPECT_EQ(r.cube_hop(0, 3, {Space::kSram, 0, 3, 0, 0}).exit, Exit::kDeliver);
  const RouteHop down = r.cube_hop(0, 3, {Space::kTcm, 0, 3, 1, 0});
  EXPECT_EQ(down.exit, Exit::kPeDown);
  EXPECT_EQ(down.to, 1u);
  EXPECT_EQ(r.cube_hop(0, 3, {Space::kHbm, 0, 0, 0, 0}).to, 2u);  // X first
  EXPECT_EQ(r.cube_hop(0, 3, {Space::kHbm, 1, 3, 0, 0}).to, 2u);  // another SIP: the I/O cube
  EXPECT_EQ(r.cube_hop(0, 0, {Space::kHbm, 1, 3, 0, 0}).exit, Exit::kHubUp);
  EXPECT_EQ(r.cube_hop(0, 0, {Space::kHost, 0, 0, 0, 0}).exit, Exit::kHubUp);
}

TEST(FabricRoute, HubGoesDownHomeToTheHostOrOverASipLink) {
  const FabricRouting r = two_sips();
  EXPECT_EQ(r.hub_hop(0, {Space::kHbm, 0, 3, 0, 0}).exit, Exit::kHubDown);
  const RouteHop over = r.hub_hop(0, {Space::kHbm, 1, 3, 0, 0});
  EXPECT_EQ(over.exit, Exit::kSip);
  EXPECT_EQ(over.to, 1u);
  EXPECT_EQ(r.hub_hop(0, {Space::kHost, 0, 0, 0, 0}).to, 1u);  // the host is on SIP 1
  EXPECT_EQ(r.hub_hop(1, {Space::kHost, 0, 0, 0, 0}).exit, Exit::kToHost);
  EXPECT_EQ(FabricRouting::host_port_hop({Space::kHost, 0, 0, 0, 0}).exit, Exit::kDeliver);
  EXPECT_EQ(FabricRouting::host_port_hop({Space::kHbm, 0, 0, 0, 0}).exit, Exit::kFromHost);
}

TEST(FabricRoute, PathsCrossTheSipsThroughTheIoCubesAndHubs) {
  const FabricRouting r = two_sips();
  const auto p = r.path(RouteNode::xbar(0, 3, 0), {Space::kHbm, 1, 3, 1, 0});
  EXPECT_EQ(exits(p), (std::vector<Exit>{Exit::kPeUp, Exit::kCube, Exit::kCube, Exit::kHubUp,
                                         Exit::kSip, Exit::kHubDown, Exit::kCube, Exit::kCube,
                                         Exit::kPeDown, Exit::kDeliver}));
  EXPECT_EQ(p[1].next, RouteNode::cube_router(0, 2));
  EXPECT_EQ(p[2].next, RouteNode::cube_router(0, 0));
  EXPECT_EQ(p[4].next, RouteNode::hub(1));
  EXPECT_EQ(p[5].next, RouteNode::cube_router(1, 0));
  EXPECT_EQ(p.back().at, RouteNode::xbar(1, 3, 1));
  for (size_t i = 0; i + 1 < p.size(); ++i) EXPECT_EQ(p[i].next, p[i + 1].at);

  // Own memory: the crossbar alone; the cube's SRAM: up and delivered.
  EXPECT_EQ(exits(r.path(RouteNode::xbar(0, 1, 1), {Space::kTcm, 0, 1, 1, 0})),
            (std::vector<Exit>{Exit::kDeliver}));
  EXPECT_EQ(exits(r.path(RouteNode::xbar(0, 1, 1), {Space::kSram, 0, 1, 0, 0})),
            (std::vector<Exit>{Exit::kPeUp, Exit::kDeliver}));
  // The host from SIP 0: over the SIP link to the host SIP's hub, then d2h.
  EXPECT_EQ(
      exits(r.path(RouteNode::xbar(0, 0, 0), {Space::kHost, 0, 0, 0, 0})),
      (std::vector<Exit>{Exit::kPeUp, Exit::kHubUp, Exit::kSip, Exit::kToHost, Exit::kDeliver}));
  // The host into a PE: h2d into SIP 1's hub.
  EXPECT_EQ(exits(r.path(RouteNode::host_port(), {Space::kTcm, 1, 1, 0, 0})),
            (std::vector<Exit>{Exit::kFromHost, Exit::kHubDown, Exit::kCube, Exit::kPeDown,
                               Exit::kDeliver}));
}

TEST(FabricRoute, LinkKindOfEachExit) {
  EXPECT_EQ(link_kind(Exit::kDeliver), LinkKind::kNone);
  EXPECT_EQ(link_kind(Exit::kPeUp), LinkKind::kPe);
  EXPECT_EQ(link_kind(Exit::kPeDown), LinkKind::kPe);
  EXPECT_EQ(link_kind(Exit::kCube), LinkKind::kCube);
  EXPECT_EQ(link_kind(Exit::kHubUp), LinkKind::kIo);
  EXPECT_EQ(link_kind(Exit::kHubDown), LinkKind::kIo);
  EXPECT_EQ(link_kind(Exit::kSip), LinkKind::kSip);
  EXPECT_EQ(link_kind(Exit::kToHost), LinkKind::kHost);
  EXPECT_EQ(link_kind(Exit::kFromHost), LinkKind::kHost);
}

}  // namespace
}  // namespace kb
