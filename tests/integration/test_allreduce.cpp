// All-reduce kernels on PE_IPCQ: exact sums on every PE for every algorithm,
// topology and buffer kind; the model beside them; the ccl bench outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "firmware/kernels/allreduce.h"
#include "platform/bench/allreduce_bench.h"
#include "platform/bench/bench.h"
#include "platform/config/topology_loader.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

TopologyConfig topo(const std::string& file, const std::vector<std::string>& overrides = {}) {
  return load_topology_file(test::source_path("topologies/" + file), overrides);
}

BenchResult run_allreduce(Platform& p, const std::vector<std::string>& params, bool data) {
  AllReduceBench bench;
  BenchParams prm("allreduce", bench.params(), params);
  BenchContext ctx{p, prm, data, "", {}, ""};
  return bench.run(ctx);
}

// Every algorithm in every buffer kind at `sizes` on tiny.yaml with
// `cube_topology` cube links: 6 x 3 points per size.
BenchResult every_algorithm_and_buffer(const std::string& cube_topology, const std::string& sizes,
                                       bool data) {
  Platform p(topo("tiny.yaml", {"sip.topology=" + cube_topology}));
  p.set_data_mode(data);
  BenchResult r = run_allreduce(p,
                                {"algo=ring,ring_bidir,2d,hierarchical,chain,binomial",
                                 "buffer=tcm,hbm,sram", "bytes_per_pe=" + sizes},
                                data);
  EXPECT_EQ(r.points.size(), 6u * 3u * 3u);
  return r;
}

// Every algorithm, every buffer kind, at sizes that are a multiple of
// neither the slot size nor the PE count (1028 B, 37 KiB + 12 B) and one
// that spans many slots (192 KiB): every PE ends with the exact sum.
class AllReduceExact : public ::testing::TestWithParam<std::string> {};

TEST_P(AllReduceExact, EveryAlgorithmGivesTheExactSumOnEveryPe) {
  const BenchResult r = every_algorithm_and_buffer(GetParam(), "1028,37900,192KiB", true);
  ASSERT_EQ(r.points.size(), 6u * 3u * 3u);
  for (const auto& pt : r.points) {
    SCOPED_TRACE(pt.dump());
    ASSERT_FALSE(pt.contains("skipped"));
    EXPECT_TRUE(pt.at("correct").get<bool>());
    EXPECT_GT(pt.at("latency_ns").get<double>(), 0.0);
    EXPECT_GT(pt.at("ipcq_ops").get<uint64_t>(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Topologies, AllReduceExact, ::testing::Values("mesh", "ring", "torus2d"),
                         [](const auto& info) { return info.param; });

void expect_ratio_within(const BenchResult& r, double lo, double hi) {
  for (const auto& pt : r.points) {
    SCOPED_TRACE(pt.dump());
    const double ratio = pt.at("measured_over_analytic").get<double>();
    EXPECT_GE(ratio, lo);
    EXPECT_LE(ratio, hi);
    EXPECT_EQ(pt.contains("model_gap"), ratio < 0.9 || ratio > 1.1);
  }
}

// Latency-bound (one or two chunks per step), the model is the sum of the
// configured latencies along the critical path: within 1% in every buffer.
TEST(AllReduceTiming, LatencyBoundRingMatchesTheModelInEveryBuffer) {
  Platform p(load_default_topology({"sip.topology=ring"}));
  expect_ratio_within(
      run_allreduce(p, {"algo=ring", "buffer=tcm,hbm,sram", "bytes_per_pe=4KiB,16KiB"}, false),
      0.99, 1.01);
}

// Bandwidth-bound, within 10%: 2D on a torus with TCM and HBM buffers (the
// cube link and the HBM bound them), and hierarchical over all 128 PEs in
// every buffer (the cube's eight PEs share its SRAM) at 64 KiB per PE (the
// 2D case covers the larger sizes; 128 PEs at 256 KiB cost the sanitizer
// pass over a minute).
TEST(AllReduceTiming, BandwidthBoundTwoDIsWithinTenPercentOfTheModel) {
  Platform p(load_default_topology({"sip.topology=torus2d"}));
  expect_ratio_within(
      run_allreduce(p, {"algo=2d", "buffer=tcm,hbm", "bytes_per_pe=256KiB,512KiB"}, false), 0.9,
      1.1);
}

TEST(AllReduceTiming, HierarchicalIsWithinTenPercentOfTheModelInEveryBuffer) {
  Platform p(load_default_topology({"sip.topology=torus2d"}));
  expect_ratio_within(
      run_allreduce(p, {"algo=hierarchical", "buffer=tcm,hbm,sram", "bytes_per_pe=64KiB"}, false),
      0.9, 1.1);
}

// Every algorithm completes on the default 16-cube SIP (16 PEs, 128 for
// hierarchical) in every buffer kind with the exact sum on every PE, and the
// bench reports its figures.
TEST(AllReduceTiming, EveryAlgorithmCompletesOnTheDefaultSip) {
  Platform p(load_default_topology());
  p.set_data_mode(true);
  const BenchResult r = run_allreduce(p,
                                      {"algo=ring,ring_bidir,2d,hierarchical,chain,binomial",
                                       "buffer=tcm,hbm,sram", "bytes_per_pe=16900"},
                                      true);
  ASSERT_EQ(r.points.size(), 18u);
  for (const auto& pt : r.points) {
    SCOPED_TRACE(pt.dump());
    EXPECT_TRUE(pt.at("correct").get<bool>());
    EXPECT_GT(pt.at("latency_ns").get<double>(), 0);
    EXPECT_GT(pt.at("busbw_gbps").get<double>(), 0);
    EXPECT_GT(pt.at("cube_link_bytes").get<uint64_t>(), 0u);
    EXPECT_GT(pt.at("ipcq_ops").get<uint64_t>(), 0u);
  }
}

// The energy model prices every picojoule the platform spends on an
// all-reduce: each memory's bytes, each link direction's wire bytes, each
// router's data bytes, the DMA bursts, the doorbells, credits and grants, and
// the MATH adds. Where every segment is whole slots it matches each class to
// rounding; with small ragged segments it rounds each step's chunks from the
// mean segment, within a few percent in all.
class AllReduceEnergy : public ::testing::TestWithParam<std::string> {};

TEST_P(AllReduceEnergy, TheModelPricesEveryClassOfTheDynamicEnergy) {
  const BenchResult r = every_algorithm_and_buffer(GetParam(), "16KiB,96KiB,1028", false);
  ASSERT_EQ(r.points.size(), 6u * 3u * 3u);
  for (const auto& pt : r.points) {
    SCOPED_TRACE(pt.dump());
    const bool whole_slots = pt.at("bytes_per_pe").get<uint64_t>() % 1024 == 0;
    const double ratio = pt.at("dynamic_over_model").get<double>();
    EXPECT_NEAR(ratio, 1.0, whole_slots ? 1e-9 : 0.03);
    if (!whole_slots) continue;
    const nlohmann::json& model = pt.at("model_dynamic_pj_by_class");
    for (const auto& [cls, e] : pt.at("energy").at("by_class").items()) {
      const double measured = e.at("dynamic_pj").get<double>();
      const double modelled = model.contains(cls) ? model.at(cls).get<double>() : 0.0;
      EXPECT_NEAR(measured, modelled, 1e-9 * std::max(1.0, modelled)) << cls;
    }
    EXPECT_GT(model.at("link").get<double>(), 0.0);
    EXPECT_GT(model.at("ipcq").get<double>(), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Topologies, AllReduceEnergy, ::testing::Values("mesh", "ring", "torus2d"),
                         [](const auto& info) { return info.param; });

// ccl-sweep runs one child process per cube topology and merges them.
// A point whose vectors do not fit is skipped with its whole reason and what
// to try in a table of its own; a run whose every point is skipped simulated
// nothing and is a usage error (exit 2) saying so.
TEST(AllReduceSkipped, APointThatDoesNotFitSaysWhyAndARunOfNothingButSkipsFails) {
  const std::string hint = "--param buffer=hbm or buffer=sram";
  Platform p(topo("tiny.yaml"));
  const BenchResult r =
      run_allreduce(p, {"algo=ring", "buffer=tcm", "bytes_per_pe=4KiB,1MiB"}, false);
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_TRUE(r.points[1].contains("skipped"));
  ASSERT_GE(r.tables.size(), 2u);
  EXPECT_EQ(r.tables[1].title, "skipped points, and why");
  ASSERT_EQ(r.tables[1].rows.size(), 1u);
  EXPECT_NE(r.tables[1].rows[0].back().find("TCM overflow"), std::string::npos);
  EXPECT_NE(r.tables[1].rows[0].back().find(hint), std::string::npos);

  test::TempDir tmp;
  const test::RunResult all = test::run_kernbench(
      {"-t", test::kTiny, "-b", "allreduce", "-q", "-p", "bytes_per_pe=1MiB"}, tmp);
  EXPECT_EQ(all.exit_code, 2) << test::describe(all);
  EXPECT_NE(all.err.find("every point was skipped"), std::string::npos) << all.err;
  EXPECT_NE(all.err.find(hint), std::string::npos) << all.err;
}

TEST(CclSweep, MergesOneChildPerTopology) {
  Platform p(topo("tiny.yaml"));
  CclSweepBench bench;
  BenchParams prm("ccl-sweep", bench.params(),
                  {"algo=ring,2d", "buffer=tcm", "bytes_per_pe=4KiB,64KiB", "jobs=2"});
  BenchContext ctx{p, prm, false, test::source_path("topologies/tiny.yaml"), {}, KB_KERNBENCH_BIN};
  const BenchResult r = bench.run(ctx);
  ASSERT_EQ(r.points.size(), 3u * 2u * 2u);
  std::map<std::string, int> per_topology;
  for (const auto& pt : r.points) ++per_topology[pt.at("topology").get<std::string>()];
  EXPECT_EQ(per_topology, (std::map<std::string, int>{{"mesh", 4}, {"ring", 4}, {"torus2d", 4}}));
  ASSERT_EQ(r.tables.size(), 1u);
  EXPECT_EQ(r.tables[0].headers.back(), "torus2d");
  EXPECT_EQ(r.tables[0].rows.size(), 4u);
  // The children's simulated time is reported (this process simulates none).
  EXPECT_EQ(r.child_runs, 3u);
  double latencies = 0;
  for (const auto& pt : r.points) latencies += pt.at("latency_ns").get<double>();
  EXPECT_GE(r.child_sim_time_ns, latencies);
}

}  // namespace
}  // namespace kb
