#include <gtest/gtest.h>

#include "models/topology/cube_grid.h"

namespace kb {
namespace {

TEST(CubeGridRouting, MeshIsDimensionOrderXThenYWithoutWrap) {
  CubeGrid g(4, 4, CubeTopology::kMesh);
  EXPECT_EQ(g.neighbors(0), (std::vector<unsigned>{1, 4}));
  EXPECT_EQ(g.neighbors(5), (std::vector<unsigned>{1, 4, 6, 9}));
  // 0 (0,0) -> 15 (3,3): X first along row 0, then Y down column 3.
  EXPECT_EQ(g.path(0, 15), (std::vector<unsigned>{1, 2, 3, 7, 11, 15}));
  EXPECT_EQ(g.hops(0, 15), 6u);
  EXPECT_EQ(g.hops(3, 0), 3u);  // no wrap link
  EXPECT_EQ(g.path(15, 0), (std::vector<unsigned>{14, 13, 12, 8, 4, 0}));
}

TEST(CubeGridRouting, TorusTakesTheShorterWayRoundTiesToPlus) {
  CubeGrid g(4, 4, CubeTopology::kTorus2d);
  EXPECT_EQ(g.neighbors(0), (std::vector<unsigned>{1, 3, 4, 12}));
  EXPECT_EQ(g.path(0, 3), (std::vector<unsigned>{3}));     // wrap, 1 hop
  EXPECT_EQ(g.path(0, 2), (std::vector<unsigned>{1, 2}));  // tie (2 vs 2) -> +x
  EXPECT_EQ(g.path(2, 0), (std::vector<unsigned>{3, 0}));  // tie -> +x, through the wrap
  EXPECT_EQ(g.path(0, 12), (std::vector<unsigned>{12}));   // wrap in y
  EXPECT_EQ(g.hops(0, 10), 4u);                            // farthest: 2 + 2
  unsigned max_hops = 0;
  for (unsigned a = 0; a < 16; ++a)
    for (unsigned b = 0; b < 16; ++b)
      if (a != b) max_hops = std::max(max_hops, g.hops(a, b));
  EXPECT_EQ(max_hops, 4u);
}

TEST(CubeGridRouting, TorusOfSizeTwoHasOneLinkPerPair) {
  CubeGrid g(2, 2, CubeTopology::kTorus2d);
  EXPECT_EQ(g.neighbors(0), (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(g.hops(0, 3), 2u);
}

TEST(CubeGridRouting, RingFollowsTheSnakeOrderShorterDirection) {
  CubeGrid g(4, 4, CubeTopology::kRing);
  EXPECT_EQ(g.ring_order(),
            (std::vector<unsigned>{0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12}));
  EXPECT_EQ(g.neighbors(0), (std::vector<unsigned>{1, 12}));
  EXPECT_EQ(g.neighbors(7), (std::vector<unsigned>{3, 6}));
  EXPECT_EQ(g.path(0, 12), (std::vector<unsigned>{12}));  // closing link
  EXPECT_EQ(g.path(0, 4), (std::vector<unsigned>{1, 2, 3, 7, 6, 5, 4}));
  EXPECT_EQ(g.hops(0, 8), 8u);  // opposite point: tie, ring order
  EXPECT_EQ(g.path(0, 8).front(), 1u);
}

TEST(CubeGridRouting, OnePathPerPairAndNeighboursAreLinked) {
  for (auto topo : {CubeTopology::kMesh, CubeTopology::kTorus2d, CubeTopology::kRing}) {
    CubeGrid g(4, 4, topo);
    for (unsigned a = 0; a < 16; ++a)
      for (unsigned b = 0; b < 16; ++b) {
        if (a == b) continue;
        EXPECT_EQ(g.path(a, b), g.path(a, b));
        unsigned prev = a;
        for (unsigned c : g.path(a, b)) {
          const auto& n = g.neighbors(prev);
          EXPECT_NE(std::find(n.begin(), n.end(), c), n.end())
              << to_string(topo) << " " << a << "->" << b;
          prev = c;
        }
      }
  }
}

TEST(SipGraphRouting, RingAndFull) {
  SipGraph ring(4, SipTopology::kRing);
  EXPECT_EQ(ring.neighbors(0), (std::vector<unsigned>{1, 3}));
  EXPECT_EQ(ring.next_hop(0, 3), 3u);
  EXPECT_EQ(ring.hops(0, 2), 2u);
  SipGraph full(4, SipTopology::kFull);
  EXPECT_EQ(full.neighbors(0).size(), 3u);
  EXPECT_EQ(full.hops(0, 2), 1u);
}

}  // namespace
}  // namespace kb
