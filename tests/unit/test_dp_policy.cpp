// DPPolicy: launch-grid programs -> physical PEs (firmware/tl.h).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "platform/config/topology_loader.h"
#include "platform/runtime/dp_policy.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

// tiny.yaml: one SIP of 2 x 2 cubes with 2 PEs each.
using test::tiny;

std::string str(const std::vector<PeId>& v) {
  std::string s;
  for (const PeId& p : v)
    s += (s.empty() ? "" : " ") + std::to_string(p.sip) + "." + std::to_string(p.cube) + "." +
         std::to_string(p.pe);
  return s;
}

std::string place_error(const DpPolicy& policy, const LaunchGrid& grid, const TopologyConfig& cfg) {
  try {
    policy.place(grid, cfg);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected std::invalid_argument";
  return "";
}

using test::contains;

TEST(DpPolicy, DefaultFillsCubesInOrder) {
  const TopologyConfig cfg = tiny();
  EXPECT_EQ(str(DpPolicy{}.place({1, 1, 1}, cfg)), "0.0.0");
  EXPECT_EQ(str(DpPolicy{}.place({8, 1, 1}, cfg)),
            "0.0.0 0.0.1 0.1.0 0.1.1 0.2.0 0.2.1 0.3.0 0.3.1");
}

TEST(DpPolicy, MultiDimensionalGridsAreNumberedRowMajor) {
  const TopologyConfig cfg = tiny();
  // 2 x 2 x 2 = 8 programs; program p = x + 2 (y + 2 z).
  EXPECT_EQ(str(DpPolicy{}.place({2, 2, 2}, cfg)),
            "0.0.0 0.0.1 0.1.0 0.1.1 0.2.0 0.2.1 0.3.0 0.3.1");
  EXPECT_EQ(DpPolicy{}.place({3, 2, 1}, cfg).size(), 6u);
}

TEST(DpPolicy, CubeStartShiftsTheSubMesh) {
  const TopologyConfig cfg = tiny();
  DpPolicy p;
  p.cube_start = 1;
  EXPECT_EQ(str(p.place({4, 1, 1}, cfg)), "0.1.0 0.1.1 0.2.0 0.2.1");
  p.cube_start = 3;
  EXPECT_EQ(str(p.place({2, 1, 1}, cfg)), "0.3.0 0.3.1");
}

TEST(DpPolicy, DisjointCubeGroupsSideBySide) {
  const TopologyConfig cfg = tiny();
  DpPolicy g0, g1;
  g0.cube_start = 0;
  g1.cube_start = 2;
  const auto a = g0.place({4, 1, 1}, cfg), b = g1.place({4, 1, 1}, cfg);
  EXPECT_EQ(str(a), "0.0.0 0.0.1 0.1.0 0.1.1");
  EXPECT_EQ(str(b), "0.2.0 0.2.1 0.3.0 0.3.1");
}

TEST(DpPolicy, PesPerCubeSpreadsProgramsAcrossCubes) {
  const TopologyConfig cfg = tiny();
  DpPolicy p;
  p.pes_per_cube = 1;
  EXPECT_EQ(str(p.place({4, 1, 1}, cfg)), "0.0.0 0.1.0 0.2.0 0.3.0");
  p.cube_start = 1;
  EXPECT_EQ(str(p.place({3, 1, 1}, cfg)), "0.1.0 0.2.0 0.3.0");
  p.pes_per_cube = 2;  // = all of tiny's PEs per cube
  p.cube_start = 2;
  EXPECT_EQ(str(p.place({3, 1, 1}, cfg)), "0.2.0 0.2.1 0.3.0");
}

TEST(DpPolicy, DefaultTopologyPlacement) {
  const TopologyConfig cfg = load_default_topology();  // 16 cubes x 8 PEs
  DpPolicy p;
  const auto all = p.place({128, 1, 1}, cfg);
  ASSERT_EQ(all.size(), 128u);
  EXPECT_EQ(str({all[7]}), "0.0.7");
  EXPECT_EQ(str({all[8]}), "0.1.0");
  EXPECT_EQ(str({all[127]}), "0.15.7");
  p.cube_start = 4;
  p.pes_per_cube = 4;
  const auto sub = p.place({16, 1, 1}, cfg);
  EXPECT_EQ(str({sub[0]}), "0.4.0");
  EXPECT_EQ(str({sub[3]}), "0.4.3");
  EXPECT_EQ(str({sub[4]}), "0.5.0");
  EXPECT_EQ(str({sub[15]}), "0.7.3");
}

TEST(DpPolicy, GridThatDoesNotFitIsAnError) {
  const TopologyConfig cfg = tiny();
  {
    const std::string msg = place_error(DpPolicy{}, {9, 1, 1}, cfg);
    EXPECT_TRUE(contains(msg, "9 programs")) << msg;
    EXPECT_TRUE(contains(msg, "needs cube 4")) << msg;
  }
  {
    DpPolicy p;
    p.cube_start = 3;
    const std::string msg = place_error(p, {3, 1, 1}, cfg);
    EXPECT_TRUE(contains(msg, "from cube 3")) << msg;
  }
  {
    DpPolicy p;
    p.cube_start = 4;  // past the last cube
    EXPECT_FALSE(place_error(p, {1, 1, 1}, cfg).empty());
  }
  {
    DpPolicy p;
    p.pes_per_cube = 1;
    EXPECT_FALSE(place_error(p, {5, 1, 1}, cfg).empty());
  }
}

TEST(DpPolicy, PesPerCubeLargerThanACubeIsAnError) {
  DpPolicy p;
  p.pes_per_cube = 3;
  const std::string msg = place_error(p, {1, 1, 1}, tiny());
  EXPECT_TRUE(contains(msg, "pes_per_cube 3")) << msg;
  EXPECT_TRUE(contains(msg, "2 PEs")) << msg;
}

TEST(DpPolicy, MissingSipIsAnError) {
  DpPolicy p;
  p.sip = 1;
  const std::string msg = place_error(p, {1, 1, 1}, tiny());
  EXPECT_TRUE(contains(msg, "sip 1")) << msg;
}

}  // namespace
}  // namespace kb
