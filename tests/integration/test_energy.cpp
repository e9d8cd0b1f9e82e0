// Energy accounting on a platform: exact event counts times the energy
// knobs, static power times simulated time, and per-module values that add
// up to the total (models/common/energy.h, platform/output/energy_report.h).
#include <gtest/gtest.h>

#include <cmath>
#include <systemc>

#include "models/dma/dma_transfer.h"
#include "platform/config/topology_loader.h"
#include "platform/fabric/cube.h"
#include "platform/fabric/pe.h"
#include "platform/fabric/sip.h"
#include "platform/fabric/system.h"
#include "platform/platform.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

using test::tiny;

double cls(const EnergyReport& r, EnergyClass c) {
  return r.dynamic_pj[static_cast<unsigned>(c)];
}

// Runs one DMA of `bytes` from PE 0's HBM (at `offset`) to its TCM.
void local_dma(Platform& p, uint64_t bytes, uint64_t offset, uint64_t cmd) {
  const AddressMap& m = p.address_map();
  p.pe({0, 0, 0}).dma.submit(
      DmaTransfer::contiguous(m.hbm(0, 0, 0, offset), m.tcm(0, 0, 0, 0), bytes, cmd),
      [](const DmaTransfer&, const DmaResult&) {});
  p.run();
}

}  // namespace

// N bytes from the PE's own HBM into its TCM: N HBM reads, N TCM writes and
// one DMA burst per burst_bytes; nothing crosses a link. The crossbar's
// energy is set to 0 here so the sum is exactly the three; its share is
// checked on its own below.
TEST(Energy, LocalDmaCostsItsBytesAtHbmReadPlusTcmWritePlusItsBursts) {
  Platform p(tiny({"pe.xbar_energy.pj_per_bit=0"}));
  const TopologyConfig& c = p.config();
  const uint64_t n = 10 * 1024 + 512;  // 11 bursts of at most 1 KiB
  const EnergySnapshot before = p.energy();
  local_dma(p, n, 0, 1);
  const EnergyReport r = EnergyReport::between(before, p.energy(), 0);
  const double bursts = std::ceil(static_cast<double>(n) / c.pe.dma.burst_bytes);
  const double hbm = static_cast<double>(n) * c.pe.hbm.energy.read_pj_per_byte;
  const double tcm = static_cast<double>(n) * c.pe.tcm.energy.write_pj_per_byte;
  const double dma = bursts * c.pe.dma.energy.pj_per_burst;
  EXPECT_DOUBLE_EQ(cls(r, EnergyClass::kHbm), hbm);
  EXPECT_DOUBLE_EQ(cls(r, EnergyClass::kTcm), tcm);
  EXPECT_DOUBLE_EQ(cls(r, EnergyClass::kDma), dma);
  EXPECT_DOUBLE_EQ(r.dynamic_total_pj(), hbm + tcm + dma);
  EXPECT_EQ(cls(r, EnergyClass::kLink), 0.0);
  EXPECT_GT(c.pe.hbm.energy.read_pj_per_byte, 0.0);
  EXPECT_GT(c.pe.tcm.energy.write_pj_per_byte, 0.0);
  EXPECT_GT(c.pe.dma.energy.pj_per_burst, 0.0);
}

// With the default crossbar energy, each byte crosses PE 0's crossbar twice
// (DMA -> HBM, DMA -> TCM).
TEST(Energy, TheCrossbarChargesEveryBitItRoutes) {
  Platform p(tiny());
  const uint64_t n = 4096;
  const EnergySnapshot before = p.energy();
  local_dma(p, n, 0, 1);
  const EnergyReport r = EnergyReport::between(before, p.energy(), 0);
  EXPECT_DOUBLE_EQ(cls(r, EnergyClass::kRouter),
                   2.0 * 8.0 * n * p.config().pe.xbar_energy.pj_per_bit);
}

TEST(Energy, DoublingTheBytesDoublesTheDynamicEnergy) {
  Platform p(tiny());
  const uint64_t n = uint64_t{8} * 1024;
  const EnergySnapshot e0 = p.energy();
  local_dma(p, n, 0, 1);
  const EnergySnapshot e1 = p.energy();
  local_dma(p, 2 * n, uint64_t{1} << 20, 2);
  const EnergySnapshot e2 = p.energy();
  const double once = EnergyReport::between(e0, e1, 0).dynamic_total_pj();
  const double twice = EnergyReport::between(e1, e2, 0).dynamic_total_pj();
  EXPECT_GT(once, 0.0);
  EXPECT_DOUBLE_EQ(twice, 2.0 * once);
}

// Nothing runs: no dynamic energy, and static energy is the platform's
// static power times the simulated time, linear in it.
TEST(Energy, AnIdlePlatformAccruesOnlyStaticEnergyLinearInTime) {
  Platform p(tiny());
  auto idle_for = [&](double ns) {
    sc_core::sc_spawn([ns] { sc_core::wait(sc_core::sc_time(ns, sc_core::SC_NS)); });
    p.run();
  };
  idle_for(1000);
  const EnergySnapshot a = p.energy();
  ASSERT_DOUBLE_EQ(a.now_ns, 1000);
  const EnergyReport ra = EnergyReport::since_start(a);
  EXPECT_EQ(ra.dynamic_total_pj(), 0.0);
  EXPECT_GT(a.tally.static_total_mw(), 0.0);
  EXPECT_DOUBLE_EQ(ra.static_total_pj(), a.tally.static_total_mw() * 1000);
  EXPECT_DOUBLE_EQ(a.idle_static_mw, a.tally.static_total_mw());  // every module is idle
  idle_for(2000);
  const EnergyReport rb = EnergyReport::since_start(p.energy());
  EXPECT_EQ(rb.dynamic_total_pj(), 0.0);
  EXPECT_DOUBLE_EQ(rb.static_total_pj(), 3.0 * ra.static_total_pj());
  // A PE's static power is the sum of its blocks'.
  const TopologyConfig& c = p.config();
  const double pe_mw = c.pe.hbm.energy.static_mw + c.pe.tcm.energy.static_mw +
                       c.pe.dma.energy.static_mw + c.pe.cpu.static_mw + c.pe.gemm.energy.static_mw +
                       c.pe.math.energy.static_mw + c.pe.ipcq.energy.static_mw +
                       c.pe.xbar_energy.static_mw;
  EXPECT_DOUBLE_EQ(p.energy("system.sip0.cube0.pe0").tally.static_total_mw(), pe_mw);
}

// Traffic across cubes touches links, routers, an HBM slice, TCMs and a
// cube SRAM: the energy each module reports in stats(), plus the
// static energy of the modules stats() leaves out, is the total.
TEST(Energy, PerModuleValuesSumToTheTotal) {
  Platform p(tiny());
  const AddressMap& m = p.address_map();
  p.pe({0, 0, 0}).dma.submit(
      DmaTransfer::contiguous(m.hbm(0, 3, 1, 0), m.tcm(0, 0, 0, 0), uint64_t{64} * 1024, 1),
      [](const DmaTransfer&, const DmaResult&) {});
  p.pe({0, 1, 0}).dma.submit(
      DmaTransfer::contiguous(m.tcm(0, 1, 0, 0), m.sram(0, 2, 0), uint64_t{16} * 1024, 2),
      [](const DmaTransfer&, const DmaResult&) {});
  p.run();
  const nlohmann::json stats = p.stats();
  const EnergySnapshot e = p.energy();
  const EnergyReport total = EnergyReport::since_start(e);
  double sum = e.idle_static_mw * e.now_ns;
  unsigned groups = 0;
  for (const auto& [name, group] : stats.items()) {
    if (!group.contains("energy_dynamic_pj")) continue;
    ++groups;
    sum += group["energy_dynamic_pj"].get<double>() + group["energy_static_pj"].get<double>();
  }
  EXPECT_GE(groups, 10u);  // HBM, TCM, SRAM, DMAs, crossbars, routers, links
  EXPECT_GT(cls(total, EnergyClass::kLink), 0.0);
  EXPECT_GT(cls(total, EnergyClass::kSram), 0.0);
  EXPECT_NEAR(sum, total.total_pj(), 1e-9 * total.total_pj());
}

// --set reaches the models' energy: a 4 KiB read of a remote HBM slice at
// 1000 pJ/B costs exactly 4096 x 1000 pJ of HBM energy.
TEST(Energy, EnergyKnobsSetOnTheCommandLineReachTheModels) {
  Platform p(tiny({"pe.hbm.energy.read_pj_per_byte=1000"}));
  const AddressMap& m = p.address_map();
  p.pe({0, 0, 0}).dma.submit(DmaTransfer::contiguous(m.hbm(0, 3, 1, 0), m.tcm(0, 0, 0, 0), 4096, 1),
                             [](const DmaTransfer&, const DmaResult&) {});
  p.run();
  const EnergyReport r = EnergyReport::since_start(p.energy());
  EXPECT_DOUBLE_EQ(cls(r, EnergyClass::kHbm), 4096.0 * 1000);
  EXPECT_DOUBLE_EQ(
      EnergyReport::since_start(p.energy("system.sip0.cube3.pe1.hbm")).dynamic_total_pj(),
      4096.0 * 1000);
}

// Power over time: the energy a cube's meter draws is the energy its HBM and
// TCM spent (to the rounding of each service's power to a microwatt), and
// at the end the cube is back at its static power.
TEST(Energy, ACubesPowerTrackDrawsTheEnergyItsBlocksSpent) {
  Platform p(tiny({"pe.xbar_energy.pj_per_bit=0"}));
  p.enable_power_meters();
  const uint64_t n = uint64_t{64} * 1024;
  local_dma(p, n, 0, 1);
  const std::vector<Platform::PowerTrack> tracks = p.power_tracks();
  ASSERT_EQ(tracks.size(), 4u);  // tiny: 2x2 cubes
  EXPECT_EQ(tracks[0].cube, "system.sip0.cube0");
  double drawn = 0;
  for (double pj : tracks[0].bins_pj) drawn += pj;
  const EnergyReport r = EnergyReport::since_start(p.energy("system.sip0.cube0"));
  const double spent = cls(r, EnergyClass::kHbm) + cls(r, EnergyClass::kTcm);
  EXPECT_NEAR(drawn, spent, 1e-6 * spent);
  // Its static power: the cube's blocks and the links leaving it (two cube
  // links on tiny's 2x2 torus, and the io link: cube 0 is the io cube).
  const TopologyConfig& c = p.config();
  EXPECT_DOUBLE_EQ(tracks[0].static_mw, p.energy("system.sip0.cube0").tally.static_total_mw() +
                                            2 * c.sip.cube_link.energy.static_mw +
                                            c.sip.io_link.energy.static_mw);
  EXPECT_DOUBLE_EQ(p.system().sip(0).cube(0).power.power_mw(), tracks[0].static_mw);
  for (size_t k = 1; k < tracks.size(); ++k)
    for (double pj : tracks[k].bins_pj) EXPECT_EQ(pj, 0.0) << k;
}

}  // namespace kb
