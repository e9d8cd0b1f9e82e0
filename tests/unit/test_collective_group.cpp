// CollectiveGroup: ring orders that step over cube links, and the rings the
// all-reduce algorithms lay on a group.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "firmware/kernels/collective_group.h"
#include "models/topology/cube_grid.h"
#include "platform/bench/allreduce_bench.h"
#include "platform/config/topology_loader.h"

namespace kb {
namespace {

using fw::CollectiveGroup;

TopologyConfig grid_with(const std::string& topology, unsigned cx = 4, unsigned cy = 4) {
  return load_default_topology({"sip.topology=" + topology, "sip.cubes_x=" + std::to_string(cx),
                                "sip.cubes_y=" + std::to_string(cy)});
}

// Cube hops between ring neighbours (the ring closes).
std::vector<unsigned> neighbour_hops(const TopologyConfig& c, const CollectiveGroup& g) {
  CubeGrid grid(c.sip.cubes_x, c.sip.cubes_y, c.sip.topology);
  std::vector<unsigned> hops;
  for (unsigned r = 0; r < g.size(); ++r) {
    const PeAddr a = g.member(r), b = g.member((r + 1) % g.size());
    hops.push_back(a.cube == b.cube ? 0 : grid.hops(a.cube, b.cube));
  }
  return hops;
}

TEST(CollectiveGroup, RingOrderStepsOverOneCubeLinkOnEveryTopology) {
  for (const char* t : {"mesh", "torus2d", "ring"}) {
    for (auto [cx, cy] : {std::pair{4u, 4u}, {2u, 2u}, {4u, 3u}, {3u, 4u}, {2u, 6u}}) {
      SCOPED_TRACE(std::string(t) + " " + std::to_string(cx) + "x" + std::to_string(cy));
      const TopologyConfig c = grid_with(t, cx, cy);
      const CollectiveGroup g(c.sip_shape(), 0, 1);
      ASSERT_EQ(g.size(), cx * cy);
      std::set<unsigned> cubes;
      for (const PeAddr& m : g.members()) cubes.insert(m.cube);
      EXPECT_EQ(cubes.size(), cx * cy);  // every cube once
      for (unsigned h : neighbour_hops(c, g)) EXPECT_EQ(h, 1u);
    }
  }
}

TEST(CollectiveGroup, PesOfACubeAreConsecutiveInRingOrder) {
  const TopologyConfig c = grid_with("torus2d");
  const CollectiveGroup g(c.sip_shape(), 0, 8);
  ASSERT_EQ(g.size(), 128u);
  const auto hops = neighbour_hops(c, g);
  unsigned intra = 0, inter = 0;
  for (unsigned h : hops) (h == 0 ? intra : inter) += 1;
  EXPECT_EQ(intra, 16u * 7u);
  EXPECT_EQ(inter, 16u);
  EXPECT_EQ(g.rank_of(g.member(77)), 77u);
  EXPECT_THROW(g.rank_of({0, 0, 7 + 1}), std::invalid_argument);
  EXPECT_THROW(CollectiveGroup(c.sip_shape(), 0, 9), std::invalid_argument);
}

TEST(CollectiveGroup, RowsColumnsAndCubeRingsHaveTheRightNeighbours) {
  const TopologyConfig c = grid_with("torus2d");
  const CollectiveGroup g(c.sip_shape(), 0, 2);
  const PeAddr me{0, 5, 1};  // cube (1,1), PE 1
  const fw::RingView row = g.row_ring(me);
  EXPECT_EQ(row.size, 8u);  // 4 cubes x 2 PEs
  EXPECT_EQ(row.pos, 3u);
  EXPECT_EQ(row.left, (PeAddr{0, 5, 0}));
  EXPECT_EQ(row.right, (PeAddr{0, 6, 0}));
  const fw::RingView col = g.column_ring(me);
  EXPECT_EQ(col.size, 4u);
  EXPECT_EQ(col.left, (PeAddr{0, 1, 1}));
  EXPECT_EQ(col.right, (PeAddr{0, 9, 1}));
  const fw::RingView cube = g.cube_ring(me);
  EXPECT_EQ(cube.size, 2u);
  EXPECT_EQ(cube.left, (PeAddr{0, 5, 0}));
  const fw::RingView inter = g.inter_cube_row(me);
  EXPECT_EQ(inter.size, 4u);
  EXPECT_EQ(inter.right, (PeAddr{0, 6, 1}));
}

}  // namespace
}  // namespace kb
