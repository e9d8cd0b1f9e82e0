// The all-reduce model: each term derived from the configuration, by hand,
// for the default SIP (4 x 4 cubes, torus unless said otherwise).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "firmware/kernels/allreduce.h"
#include "firmware/kernels/collective_group.h"
#include "platform/analytic/allreduce_model.h"
#include "platform/config/topology_loader.h"

namespace kb {
namespace {

using fw::AllReduceAlgo;
using fw::CollectiveGroup;

TopologyConfig with(const std::string& topology) {
  return load_default_topology({"sip.topology=" + topology});
}

AllReduceModel ring(const TopologyConfig& c, RingSpace buffer, uint64_t bytes) {
  return allreduce_model(c, AllReduceAlgo::kRing, CollectiveGroup(c.sip_shape(), 0, 1), buffer,
                         bytes);
}

// One 512 B chunk from a PE to the next cube's PE, added there in TCM:
//   DMA setup 2;
//   read of the own TCM: crossbar 0.5 + TCM 1 + 512 B at 512 GB/s 1 + crossbar 0.5 = 3;
//   write into the peer's TCM: crossbar 0.5 + PE link (2 + 512/256) + router 2
//     + cube link (5 + 512/128) + router 2 + PE link (2 + 2) + crossbar 0.5 + TCM 2 = 24;
//   its acknowledgement back, header only: 0.5 + 2 + 2 + 5 + 2 + 2 + 0.5 = 14;
//   the 32 B doorbell: 0.5 + 2.125 + 2 + 5.25 + 2 + 2.125 + 0.5 = 14.5;
//   the add of 128 fp32 on 64 lanes: 2.
TEST(AllReduceModel, HopLatencyIsTheSumOfTheConfiguredLatencies) {
  const AllReduceModel m = ring(with("torus2d"), RingSpace::kTcm, uint64_t{256} * 1024);
  EXPECT_DOUBLE_EQ(m.alpha_ns, 2 + 3 + 24 + 14 + 14.5 + 2);
}

// Streaming, a chunk's busiest resource in a TCM ring is the cube link: the
// chunk's 512 B and its 32 B doorbell at 128 GB/s (credits go the other way).
// With an HBM buffer every chunk touches its PE's HBM five times (arriving in
// the ring, staged to TCM with its partner from the vector, the sum written
// back, read again to forward it): 5 x 512 B at 256 GB/s. Queueing at the
// busy resources stretches the credit loop, so the chunk time is a little
// above the resource's, never below it.
TEST(AllReduceModel, ChunkTimeIsTheBusiestResourceOrTheCreditLoop) {
  const TopologyConfig c = with("torus2d");
  const AllReduceModel tcm = ring(c, RingSpace::kTcm, uint64_t{256} * 1024);
  ASSERT_EQ(tcm.phases.size(), 1u);
  EXPECT_DOUBLE_EQ(tcm.phases[0].resource_ns, (512 + 32) / 128.0);
  EXPECT_NE(tcm.phases[0].bottleneck.find("cube link"), std::string::npos)
      << tcm.phases[0].bottleneck;
  EXPECT_GE(tcm.phases[0].chunk_ns, tcm.phases[0].resource_ns);
  EXPECT_LT(tcm.phases[0].chunk_ns, 1.2 * tcm.phases[0].resource_ns);
  const AllReduceModel hbm = ring(c, RingSpace::kHbm, uint64_t{256} * 1024);
  EXPECT_DOUBLE_EQ(hbm.phases[0].resource_ns, 5 * 512 / 256.0);
  EXPECT_NE(hbm.phases[0].bottleneck.find("HBM"), std::string::npos) << hbm.phases[0].bottleneck;
  EXPECT_EQ(hbm.regime(), "bandwidth");
}

// With more credits than the loop ever needs, the chunk time is the busiest
// resource's, exactly.
TEST(AllReduceModel, EnoughCreditsLeaveTheBusiestResource) {
  TopologyConfig c = load_default_topology({"sip.topology=torus2d", "pe.ipcq.slots=512"});
  const AllReduceModel m = ring(c, RingSpace::kTcm, uint64_t{1024} * 1024);
  EXPECT_NEAR(m.phases[0].chunk_ns, m.phases[0].resource_ns, 1e-3 * m.phases[0].resource_ns);
}

// 30 steps of 32 chunks each: bandwidth-bound, the ring costs its fill, one
// hop, then every chunk of every step at the chunk time (the cube link's in
// the reduce-scatter and the all-gather alike, with credits to spare).
TEST(AllReduceModel, BandwidthBoundRingStreamsEveryChunk) {
  const AllReduceModel m =
      ring(load_default_topology({"sip.topology=torus2d", "pe.ipcq.slots=512"}), RingSpace::kTcm,
           uint64_t{256} * 1024);
  const AllReduceModel::Phase& ph = m.phases[0];
  EXPECT_EQ(ph.steps, 30u);
  EXPECT_EQ(ph.chunks, 32u);
  EXPECT_NEAR(m.total_ns, m.fill_ns + ph.hop_ns + 29 * 32 * ph.chunk_ns + 31 * ph.chunk_ns,
              1e-9 * m.total_ns);
  // Fill: dispatch of the open (8 + 11 B / 16 cycles), the grant's round
  // trip (14.5 there, 14 back), the send's dispatch (8 + 17 B / 16).
  EXPECT_DOUBLE_EQ(m.fill_ns, 8.6875 + 28.5 + 9.0625);
}

// Latency-bound (256 B per step), a step costs its hop; on a mesh the ring
// of a row wraps over three cube links, and a chunk crosses that wrap once
// per lap, not every step.
TEST(AllReduceModel, LatencyBoundStepsWalkTheRingsHops) {
  const TopologyConfig t = with("torus2d"), m = with("mesh");
  const auto two_d = [](const TopologyConfig& c) {
    return allreduce_model(c, AllReduceAlgo::kTwoD, CollectiveGroup(c.sip_shape(), 0, 1),
                           RingSpace::kTcm, 4096);
  };
  const AllReduceModel torus = two_d(t), mesh = two_d(m);
  EXPECT_EQ(torus.regime(), "latency");
  EXPECT_GT(mesh.total_ns, torus.total_ns);
  // A 3-step row phase on the mesh crosses the wrap at most once.
  const double short_hop = torus.phases[0].hop_ns, wrap = mesh.phases[0].hop_ns;
  EXPECT_GT(wrap, short_hop);
  EXPECT_LT(mesh.phases[0].ns, 3 * wrap);
}

// Eight PEs of a cube share its SRAM: the hierarchical all-reduce with SRAM
// buffers is bound by the SRAM, never faster than its bytes allow.
TEST(AllReduceModel, SharedSramBoundsTheHierarchicalAllReduce) {
  const TopologyConfig c = with("torus2d");
  const AllReduceModel m =
      allreduce_model(c, AllReduceAlgo::kHierarchical, CollectiveGroup(c.sip_shape(), 0, 8),
                      RingSpace::kSram, uint64_t{256} * 1024);
  EXPECT_NE(m.bottleneck.find("SRAM"), std::string::npos) << m.bottleneck;
  EXPECT_EQ(allreduce_model_gap(m, AllReduceAlgo::kHierarchical, RingSpace::kSram, 1.0), "");
  EXPECT_NE(allreduce_model_gap(m, AllReduceAlgo::kHierarchical, RingSpace::kSram, 1.3), "");
}

// ---- The collectives over ordered lists of PEs (the llm step's) ----------------

// The binomial tree over a group's members is the binomial all-reduce of the
// group, its rings already open.
TEST(OrderedCollectives, TheTreeOverAGroupsMembersIsItsBinomialAllReduce) {
  const TopologyConfig c = with("torus2d");
  const CollectiveGroup g(c.sip_shape(), 0, 8);
  const AllReduceModel a =
      allreduce_model(c, AllReduceAlgo::kBinomial, g, RingSpace::kTcm, uint64_t{16} * 1024);
  const AllReduceModel b =
      tree_allreduce_model(c, g.members(), RingSpace::kTcm, uint64_t{16} * 1024);
  ASSERT_EQ(a.phases.size(), b.phases.size());
  for (size_t i = 0; i < a.phases.size(); ++i) {
    EXPECT_EQ(a.phases[i].name, b.phases[i].name);
    EXPECT_DOUBLE_EQ(a.phases[i].ns, b.phases[i].ns) << a.phases[i].name;
  }
  EXPECT_DOUBLE_EQ(b.fill_ns, 9.0625);  // the first send's dispatch: (8 + 17/16) cycles
  EXPECT_LT(b.total_ns, a.total_ns);    // no ring opening
}

// Three PEs: the third sends to the root at once (it has no child), so the
// reduce takes the longer of the two sends, not their sum.
TEST(OrderedCollectives, ANonPowerOfTwoTreeOverlapsItsLevels) {
  const TopologyConfig c = with("torus2d");
  const PeAddr root{0, 0, 0}, near{0, 1, 0}, far{0, 2, 0};  // one and two cube hops
  auto level = [&](const std::vector<PeAddr>& order, size_t i) {
    return tree_allreduce_model(c, order, RingSpace::kTcm, 4096).phases.at(i).ns;
  };
  const double one = level({root, near}, 0), two = level({root, far}, 0);
  ASSERT_GT(two, one);
  EXPECT_DOUBLE_EQ(level({root, near, far}, 0), one);
  EXPECT_DOUBLE_EQ(level({root, near, far}, 0) + level({root, near, far}, 1), two);
}

// A hop across SIPs crosses the SIP link three times (the chunk's write, its
// acknowledgement, the doorbell) and a hub on each side each time.
TEST(OrderedCollectives, AHopAcrossSipsCrossesTheSipLinkThreeTimes) {
  auto alpha = [](const std::vector<std::string>& set) {
    const TopologyConfig c = load_default_topology(set);
    return tree_allreduce_model(c, {PeAddr{0, 0, 0}, PeAddr{1, 3, 1}}, RingSpace::kTcm, 512)
        .alpha_ns;
  };
  const double base = alpha({"system.n_sips=2"});
  EXPECT_NEAR(alpha({"system.n_sips=2", "system.sip_link.latency_ns=101"}) - base, 3.0, 1e-9);
  EXPECT_NEAR(alpha({"system.n_sips=2", "sip.hub_latency_ns=6"}) - base, 6.0, 1e-9);
  EXPECT_NEAR(alpha({"system.n_sips=2", "sip.io_link.latency_ns=11"}) - base, 6.0, 1e-9);
}

// Hierarchical over whole cubes: each cube's ring on the whole vector, the
// trees across the cubes on a segment each; on one cube only the rings.
TEST(OrderedCollectives, TheHierarchicalAllReduceOnOneCubeIsItsRing) {
  const TopologyConfig c = with("torus2d");
  std::vector<PeAddr> cube;
  for (unsigned p = 0; p < 8; ++p) cube.push_back({0, 0, p});
  const AllReduceModel one = cube_allreduce_model(c, cube, 8, RingSpace::kTcm, uint64_t{32} * 1024);
  ASSERT_EQ(one.phases.size(), 2U);
  EXPECT_EQ(one.phases[0].name, "cube reduce-scatter");
  EXPECT_EQ(one.phases[0].steps, 7U);
  EXPECT_EQ(one.phases[0].chunks, 8U);  // 4 KiB a step in 512 B slots
  EXPECT_EQ(one.phases[1].name, "cube all-gather");
  std::vector<PeAddr> two = cube;
  for (unsigned p = 0; p < 8; ++p) two.push_back({0, 1, p});
  const AllReduceModel both = cube_allreduce_model(c, two, 8, RingSpace::kTcm, uint64_t{32} * 1024);
  // The ring phases, the trees' first send, one reduce level, the broadcast.
  ASSERT_EQ(both.phases.size(), 5U);
  EXPECT_EQ(both.phases[2].name, "reduce level 1");
  EXPECT_EQ(both.phases[2].chunks, 8U);  // the 4 KiB segment
  EXPECT_GT(both.total_ns, one.total_ns);
}

// Across 4 cubes, halving and doubling: two levels each way on half, then a
// quarter, of the cube's segment; the trees move the whole segment per level.
TEST(OrderedCollectives, HalvingAcrossCubesMovesHalvesAndBeatsTheTrees) {
  const TopologyConfig c = with("torus2d");
  std::vector<PeAddr> four;
  for (unsigned q = 0; q < 4; ++q)
    for (unsigned p = 0; p < 8; ++p) four.push_back({0, q, p});
  const AllReduceModel tree =
      cube_allreduce_model(c, four, 8, RingSpace::kTcm, uint64_t{64} * 1024);
  const AllReduceModel halving = cube_allreduce_model(c, four, 8, RingSpace::kTcm,
                                                      uint64_t{64} * 1024, fw::CrossCube::kHalving);
  // The ring phases, the first send, two halving and two doubling levels.
  ASSERT_EQ(halving.phases.size(), 7U);
  EXPECT_EQ(halving.phases[1].name, "halving's first send dispatch");
  EXPECT_EQ(halving.phases[2].name, "halving level 1");
  EXPECT_EQ(halving.phases[2].chunks, 8U);  // half of the 8 KiB segment
  EXPECT_EQ(halving.phases[3].chunks, 4U);  // a quarter
  EXPECT_EQ(halving.phases[4].name, "doubling level 2");
  EXPECT_EQ(halving.phases[4].chunks, 4U);
  EXPECT_EQ(halving.phases[5].name, "doubling level 1");
  EXPECT_EQ(halving.phases[5].chunks, 8U);
  EXPECT_LT(halving.total_ns, tree.total_ns);
  // Not a power of two of cubes: the trees, whatever was asked.
  std::vector<PeAddr> three(four.begin(), four.begin() + 24);
  EXPECT_EQ(cube_allreduce_model(c, three, 8, RingSpace::kTcm, uint64_t{64} * 1024,
                                 fw::CrossCube::kHalving)
                .total_ns,
            cube_allreduce_model(c, three, 8, RingSpace::kTcm, uint64_t{64} * 1024).total_ns);
}

// The halves of the halving all-reduce: the reduce-scatter's phases are the
// all-reduce's up to its last halving level, the all-gather's its doubling
// levels and ring all-gather, and each costs less than the whole.
TEST(OrderedCollectives, TheHalvingReduceScatterAndAllGatherAreTheAllReducesHalves) {
  const TopologyConfig c = with("torus2d");
  std::vector<PeAddr> four;
  for (unsigned q = 0; q < 4; ++q)
    for (unsigned p = 0; p < 8; ++p) four.push_back({0, q, p});
  const uint64_t n = uint64_t{64} * 1024;
  const AllReduceModel all =
      cube_allreduce_model(c, four, 8, RingSpace::kTcm, n, fw::CrossCube::kHalving);
  const AllReduceModel rs = cube_half_model(c, four, 8, RingSpace::kTcm, n, true);
  const AllReduceModel ag = cube_half_model(c, four, 8, RingSpace::kTcm, n, false);
  ASSERT_EQ(rs.phases.size(), 4U);
  ASSERT_EQ(ag.phases.size(), 3U);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(rs.phases[i].name, all.phases[i].name);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(ag.phases[i].name, all.phases[4 + i].name);
  EXPECT_LT(rs.total_ns, all.total_ns);
  EXPECT_LT(ag.total_ns, all.total_ns);
  EXPECT_GT(rs.total_ns + ag.total_ns, 0.9 * all.total_ns);
  // Not a power of two of cubes: no halves.
  std::vector<PeAddr> three(four.begin(), four.begin() + 24);
  EXPECT_EQ(cube_half_model(c, three, 8, RingSpace::kTcm, n, true).total_ns, 0.0);
}

// Every position's shard, over every size of vector (smaller than the
// positions too), partitions the vector.
TEST(OrderedCollectives, TheCubeShardsPartitionTheVector) {
  for (const unsigned per_cube : {1U, 2U, 3U, 8U})
    for (const unsigned blocks : {2U, 4U, 8U})
      for (const int64_t n : {int64_t{1}, int64_t{5}, int64_t{37}, int64_t{1000}, int64_t{8193}}) {
        const size_t ranks = size_t{per_cube} * blocks;
        std::vector<int> covered(static_cast<size_t>(n), 0);
        for (unsigned i = 0; i < ranks; ++i) {
          const fw::Shard s = fw::cube_shard(n, ranks, i, per_cube);
          ASSERT_GE(s.count, 0);
          ASSERT_GE(s.first, 0);
          ASSERT_LE(s.first + s.count, n);
          for (int64_t e = s.first; e < s.first + s.count; ++e) ++covered[static_cast<size_t>(e)];
        }
        for (int64_t e = 0; e < n; ++e)
          EXPECT_EQ(covered[static_cast<size_t>(e)], 1)
              << "n " << n << " per_cube " << per_cube << " blocks " << blocks << " element " << e;
      }
}

}  // namespace
}  // namespace kb
