// The GEMM study on the default topology: the gemm-sweep
// shapes through run_gemm_point, measured against the analytic model and
// against the acceptance invariants of the three operand-staging variants.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/trace/op_log.h"
#include "platform/bench/gemm_bench.h"
#include "platform/bench/gemm_study.h"
#include "platform/config/topology_loader.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "tests/support/cli_run.h"

namespace kb {
namespace {

const std::vector<std::string> kVariants = {"load_ref", "ref_ref", "load_load"};

// The shapes the acceptance names (gemm-sweep covers at least these).
const std::vector<GemmShape> kSweep = {{32, 64, 32},    {32, 256, 32},    {32, 1024, 32},
                                       {32, 3072, 32},  {128, 1024, 128}, {256, 256, 256},
                                       {512, 2048, 512}};

std::string label(const GemmShape& s, const std::string& v) {
  return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) + " " + v;
}

using test::contains;

TEST(GemmStudy, SweepCoversTheAcceptanceShapes) {
  std::string shapes;
  for (const ParamSpec& p : GemmSweepBench().params())
    if (p.name == "shapes") shapes = "," + p.default_value + ",";
  for (const GemmShape& s : kSweep) {
    const std::string x =
        "," + std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) + ",";
    EXPECT_TRUE(contains(shapes, x)) << x << " not in " << shapes;
  }
}

TEST(GemmStudy, FitReportsPreloadedOperandsThatDoNotFitTheTcm) {
  const TopologyConfig cfg = load_default_topology();
  for (const GemmShape& s : kSweep)
    for (const std::string& v : kVariants) {
      const std::string why = gemm_fit(cfg, s, v);
      const bool big = s.m == 512 && s.k == 2048 && s.n == 512;
      if (big && v != "ref_ref") {
        EXPECT_FALSE(why.empty()) << label(s, v);
        EXPECT_TRUE(contains(why, "TCM")) << label(s, v) << ": " << why;
        EXPECT_TRUE(contains(why, "bytes")) << label(s, v) << ": " << why;
      } else {
        EXPECT_EQ(why, "") << label(s, v);  // ref_ref streams both: always fits
      }
    }
}

// Every point that fits, on one platform: measured MAC utilisation within 1
// percentage point of the analytic model.
TEST(GemmStudy, MacUtilisationMatchesTheAnalyticModelAtEveryPoint) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  unsigned run = 0, skipped = 0;
  for (const GemmShape& s : kSweep)
    for (const std::string& v : kVariants) {
      if (!gemm_fit(p.config(), s, v).empty()) {
        ++skipped;
        continue;
      }
      const nlohmann::json pt = run_gemm_point(rt, s, v);
      ++run;
      const double mu = pt["mac_util"].get<double>(), ma = pt["mac_util_analytic"].get<double>();
      EXPECT_LE(std::abs(mu - ma), 0.01)
          << label(s, v) << ": measured " << mu << " analytic " << ma << " window "
          << pt["window_ns"] << " vs " << pt["window_ns_analytic"] << " (" << pt["analytic"].dump()
          << ")";
      EXPECT_GT(mu, 0) << label(s, v);
      EXPECT_LE(mu, 1.0) << label(s, v);
      const uint64_t tiles = ((s.m + 31) / 32) * ((s.k + 63) / 64) * ((s.n + 31) / 32);
      EXPECT_EQ(pt["n_tiles"].get<uint64_t>(), tiles) << label(s, v);
      EXPECT_DOUBLE_EQ(pt["dispatch_ns"].get<double>(), 42.875) << label(s, v);
    }
  EXPECT_EQ(run, 7u * 3 - 2);
  EXPECT_EQ(skipped, 2u);
}

// The three variants at 32x3072x32 (acceptance).
TEST(GemmStudy, LoadRefAt32x3072x32IsGemmBound) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const nlohmann::json pt = run_gemm_point(rt, {32, 3072, 32}, "load_ref");
  const double window = pt["window_ns"].get<double>();
  const double gemm = pt["stage_busy_ns"]["gemm"].get<double>();
  EXPECT_GE(gemm, 0.85 * window) << pt.dump();
  EXPECT_EQ(pt["analytic"]["bottleneck"], "gemm") << pt.dump();
  // 48 native tiles of 16.384 ns each.
  EXPECT_NEAR(gemm, 48 * 16.384, 1e-6) << pt.dump();
}

TEST(GemmStudy, RefRefAt32x3072x32IsDmaBound) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const nlohmann::json pt = run_gemm_point(rt, {32, 3072, 32}, "ref_ref");
  const double window = pt["window_ns"].get<double>();
  EXPECT_GE(pt["stage_busy_ns"]["dma_in"].get<double>(), 0.85 * window) << pt.dump();
  EXPECT_LT(pt["stage_busy_ns"]["gemm"].get<double>(), 0.85 * window) << pt.dump();
}

TEST(GemmStudy, LoadLoadAt32x3072x32MovesNoDmaInBytesInsideTheWindow) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const nlohmann::json pt = run_gemm_point(rt, {32, 3072, 32}, "load_load");
  EXPECT_EQ(pt["stage_busy_ns"]["dma_in"].get<double>(), 0.0) << pt.dump();
  // Only the 2 KiB output goes out.
  EXPECT_EQ(pt["dma_bytes"].get<uint64_t>(), 32u * 32 * 2) << pt.dump();
  // No DMA_READ of this PE, of any command, overlaps the window.
  const uint64_t id = pt["cmd_id"].get<uint64_t>();
  double t0 = 1e300, t1 = -1;
  for (const OpRecord& r : p.op_log().records())
    if (r.pe == "system.sip0.cube0.pe0" && r.cmd_id == id) {
      t0 = std::min(t0, r.t_start_ns);
      t1 = std::max(t1, r.t_end_ns);
    }
  ASSERT_LT(t0, t1);
  for (const OpRecord& r : p.op_log().records())
    if (r.pe == "system.sip0.cube0.pe0" && r.stage == "DMA_READ") {
      EXPECT_FALSE(r.t_end_ns > t0 && r.t_start_ns < t1)
          << "DMA_READ of command #" << r.cmd_id << " [" << r.t_start_ns << ", " << r.t_end_ns
          << "] inside the window [" << t0 << ", " << t1 << "]";
    }
}

// The launch's dynamic energy is what the energy model derives from the shape
// (bytes each memory moves, PE_DMA bursts, native tiles), on ragged shapes too
// (edge tiles, strided rows that burst row by row). A launch that moved or
// computed anything the tile plan does not would break the equality.
void expect_dynamic_energy_is_the_model(uint64_t burst_bytes) {
  TopologyConfig cfg = load_default_topology();
  cfg.pe.dma.burst_bytes = burst_bytes;
  Platform p(cfg);
  HostRuntime rt(p);
  for (const GemmShape& s :
       {GemmShape{32, 3072, 32}, GemmShape{40, 200, 70}, GemmShape{100, 130, 33}})
    for (const std::string& v : kVariants) {
      const nlohmann::json pt = run_gemm_point(rt, s, v);
      const GemmEnergyModel em = gemm_energy_model(cfg, s, v);
      const double measured = pt["energy"]["dynamic_pj"].get<double>();
      EXPECT_NEAR(measured, em.dynamic_pj(), 1e-9 * em.dynamic_pj())
          << label(s, v) << " burst " << burst_bytes << ": " << pt["energy"].dump();
      const auto& by = pt["energy"]["by_class"];
      EXPECT_NEAR(by["gemm"]["dynamic_pj"].get<double>(), em.gemm_pj, 1e-6) << label(s, v);
      EXPECT_NEAR(by["hbm"]["dynamic_pj"].get<double>(), em.hbm_pj, 1e-6) << label(s, v);
      EXPECT_NEAR(by["tcm"]["dynamic_pj"].get<double>(), em.tcm_pj, 1e-6) << label(s, v);
      EXPECT_NEAR(by["router"]["dynamic_pj"].get<double>(), em.xbar_pj, 1e-6) << label(s, v);
      EXPECT_NEAR(by["dma"]["dynamic_pj"].get<double>(), em.dma_pj, 1e-6) << label(s, v);
      EXPECT_NEAR(pt["dynamic_energy_over_model"].get<double>(), 1.0, 1e-9) << label(s, v);
    }
}

TEST(GemmStudy, DynamicEnergyIsTheEnergyModelOfTheShape) {
  expect_dynamic_energy_is_the_model(1024);
}

// A burst smaller than a row: each strided row takes two bursts.
TEST(GemmStudy, DynamicEnergyIsTheEnergyModelWithBurstsSmallerThanARow) {
  expect_dynamic_energy_is_the_model(96);
}

TEST(GemmStudy, SmallestLoadLoadWindowIsTheSerialChain) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const nlohmann::json pt = run_gemm_point(rt, {32, 64, 32}, "load_load");
  const double window = pt["window_ns"].get<double>();
  const auto& sb = pt["stage_busy_ns"];
  EXPECT_DOUBLE_EQ(pt["dispatch_ns"].get<double>(), 42.875);
  EXPECT_GT(window, 42.875 + 16.384) << pt.dump();
  // One token: dispatch, FETCH, GEMM, STORE and DMA_WRITE one after the other.
  EXPECT_EQ(pt["n_tiles"].get<unsigned>(), 1u);
  EXPECT_NEAR(sb["gemm"].get<double>(), 16.384, 1e-9) << pt.dump();
  EXPECT_NEAR(sb["fetch"].get<double>(), (32 * 64 + 64 * 32) * 2 / 512.0, 1e-9) << pt.dump();
  EXPECT_NEAR(sb["store"].get<double>(), 32 * 32 * 2 / 512.0, 1e-9) << pt.dump();
  EXPECT_GT(sb["dma_out"].get<double>(), 0) << pt.dump();
  EXPECT_EQ(sb["dma_in"].get<double>(), 0) << pt.dump();
  const double chain = 42.875 + sb["fetch"].get<double>() + sb["gemm"].get<double>() +
                       sb["store"].get<double>() + sb["dma_out"].get<double>();
  EXPECT_GE(window, chain - 1e-9) << pt.dump();
}

}  // namespace
}  // namespace kb
