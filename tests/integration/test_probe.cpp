// The probe bench on the default topology: the calibration and invariants of
// the platform foundation, checked on simulated time (exact).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "platform/bench/bench.h"
#include "platform/bench/probe_bench.h"
#include "platform/config/topology_loader.h"
#include "platform/platform.h"

namespace kb {
namespace {

struct ProbeRun {
  BenchResult result;
  std::map<std::string, std::map<uint64_t, nlohmann::json>> by_class;
};

ProbeRun run_probe(const TopologyConfig& cfg) {
  static auto* platform = new Platform(cfg);  // one elaboration per process
  ProbeBench probe;
  BenchParams params("probe", probe.params(), {});
  BenchContext ctx{*platform, params, false, "", {}, ""};
  ProbeRun r;
  r.result = probe.run(ctx);
  for (const auto& pt : r.result.points)
    r.by_class[pt["hop_class"].get<std::string>()][pt["bytes"].get<uint64_t>()] = pt;
  return r;
}

TEST(ProbeDefaultTopology, LocalHbm32KiBIsCalibratedTo141ns) {
  ProbeRun r = run_probe(load_default_topology());
  const double lat = r.by_class["local_hbm"][32768]["latency_ns"];
  EXPECT_NEAR(lat, 141.0, 141.0 * 0.05);
}

TEST(ProbeDefaultTopology, LatencyGrowsWithHopClassAndInvariantsHold) {
  ProbeRun r = run_probe(load_default_topology());
  for (uint64_t bytes : {32768u, 1048576u}) {
    const double local = r.by_class["local_hbm"][bytes]["latency_ns"];
    const double same = r.by_class["same_cube_hbm"][bytes]["latency_ns"];
    const double near = r.by_class["neighbor_cube_hbm"][bytes]["latency_ns"];
    const double far = r.by_class["far_cube_hbm"][bytes]["latency_ns"];
    EXPECT_LT(local, same) << bytes;
    EXPECT_LT(same, near) << bytes;
    EXPECT_LT(near, far) << bytes;
    EXPECT_GE(r.by_class["d2h"][bytes]["latency_ns"].get<double>(),
              r.by_class["h2d"][bytes]["latency_ns"].get<double>());
  }
  EXPECT_EQ(r.by_class["local_hbm"][32768]["hops"], 0);
  EXPECT_EQ(r.by_class["same_cube_hbm"][32768]["hops"], 2);
  EXPECT_EQ(r.by_class["neighbor_cube_hbm"][32768]["hops"], 3);
  EXPECT_EQ(r.by_class["far_cube_hbm"][32768]["hops"], 6);  // 2 + 2 torus hops + 2 PE links
  const auto& inv = r.result.metrics["invariants"];
  EXPECT_TRUE(inv["latency_grows_with_hop_class"].get<bool>());
  EXPECT_TRUE(inv["d2h_not_faster_than_h2d"].get<bool>());
  EXPECT_TRUE(inv["best_cross_cube_faster_than_worst"].get<bool>());
}

TEST(ProbeDefaultTopology, OneMiBSaturatesTheNarrowestEdge) {
  ProbeRun r = run_probe(load_default_topology());
  for (auto& [cls, by_size] : r.by_class) {
    const auto& pt = by_size[1048576];
    const double bw = pt["bandwidth_gbps"], bottleneck = pt["bottleneck_gbps"];
    EXPECT_NEAR(bw, bottleneck, 0.05 * bottleneck) << cls;
    EXPECT_LE(bw, bottleneck * 1.0001) << cls;
  }
}

TEST(ProbeDefaultTopology, PseudoChannelContentionScalesWithReaders) {
  ProbeRun r = run_probe(load_default_topology());
  for (const auto& c : r.result.metrics["contention"]) {
    const double ratio = c["ratio"], n = c["readers"].get<double>();
    if (c["pattern"] == "same_pc")
      EXPECT_NEAR(ratio, n, 0.1 * n) << c.dump();
    else
      EXPECT_NEAR(ratio, 1.0, 0.1) << c.dump();
  }
}

TEST(ProbeMultiSip, OtherSipIsSlowerThanFarCube) {
  ProbeRun r = run_probe(load_topology_file(KB_SOURCE_DIR "/topologies/llama70b_4sip.yaml"));
  ASSERT_TRUE(r.by_class.count("other_sip_hbm"));
  for (uint64_t bytes : {32768u, 1048576u})
    EXPECT_GT(r.by_class["other_sip_hbm"][bytes]["latency_ns"].get<double>(),
              r.by_class["far_cube_hbm"][bytes]["latency_ns"].get<double>());
}

}  // namespace
}  // namespace kb
