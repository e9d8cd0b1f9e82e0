// The platform's routes through the fabric (platform/platform.h), and what
// Platform::describe says a kernel gets of each PE's memories.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "models/common/address_map.h"
#include "models/topology/fabric_route.h"
#include "platform/config/topology_config.h"
#include "platform/fabric/pe.h"
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

// The name of the link a hop of the fabric's routing crosses, as the
// platform names its Link modules (docs/ARCHITECTURE.md §1.1).
std::string link_name(const RouteStep& s) {
  const std::string sip = "system.sip" + std::to_string(s.at.sip) + ".";
  switch (s.hop.exit) {
    case RouteExit::kPeUp:
      return sip + "cube" + std::to_string(s.at.cube) + ".pe" + std::to_string(s.at.pe) +
             "_to_router";
    case RouteExit::kPeDown:
      return sip + "cube" + std::to_string(s.at.cube) + ".router_to_pe" + std::to_string(s.hop.to);
    case RouteExit::kCube:
      return sip + "cube" + std::to_string(s.at.cube) + "_to_cube" + std::to_string(s.hop.to);
    case RouteExit::kHubUp:
      return sip + "cube" + std::to_string(s.at.cube) + "_to_hub";
    case RouteExit::kHubDown:
      return sip + "hub_to_cube" + std::to_string(s.next.cube);
    case RouteExit::kSip:
      return "system.sip" + std::to_string(s.at.sip) + "_to_sip" + std::to_string(s.hop.to);
    case RouteExit::kToHost:
      return "system.d2h";
    case RouteExit::kFromHost:
      return "system.h2d";
    case RouteExit::kDeliver:
      break;
  }
  return "";
}

// The routers' policies take the fabric's routing (models/topology/fabric_route.h)
// hop for hop: from every crossbar to every memory of a platform of four SIPs
// in a ring, whose I/O cube is not cube 0 and whose host is not on SIP 0.
TEST(PlatformRoute, RoutersTakeTheFabricRoutingHopForHop) {
  const TopologyConfig cfg = tiny({"system.n_sips=4", "system.host_sip=1", "sip.cubes_x=3",
                                   "sip.topology=mesh", "sip.io_cube=4", "cube.pes=2"});
  Platform p(cfg);
  const AddressMap& m = p.address_map();
  const FabricRouting routing = cfg.routing();
  struct Dest {
    uint64_t addr;
    Location loc;
  };
  std::vector<Dest> dests{{m.host(0), {Space::kHost, 0, 0, 0, 0}}};
  for (unsigned s = 0; s < cfg.system.n_sips; ++s)
    for (unsigned c = 0; c < cfg.cubes_per_sip(); ++c) {
      dests.push_back({m.sram(s, c), {Space::kSram, s, c, 0, 0}});
      for (unsigned e = 0; e < cfg.cube.pes; ++e) {
        dests.push_back({m.hbm(s, c, e), {Space::kHbm, s, c, e, 0}});
        dests.push_back({m.tcm(s, c, e), {Space::kTcm, s, c, e, 0}});
        dests.push_back({m.ipcq(s, c, e), {Space::kIpcq, s, c, e, 0}});
      }
    }
  size_t links = 0;
  for (unsigned s = 0; s < cfg.system.n_sips; ++s)
    for (unsigned c = 0; c < cfg.cubes_per_sip(); ++c)
      for (unsigned e = 0; e < cfg.cube.pes; ++e)
        for (const Dest& d : dests) {
          const FabricPath got = p.route({s, c, e}, d.addr);
          const std::vector<RouteStep> want = routing.path(RouteNode::xbar(s, c, e), d.loc);
          ASSERT_EQ(got.links.size() + 1, want.size()) << format_address(d.addr);
          for (size_t i = 0; i < got.links.size(); ++i)
            ASSERT_EQ(got.links[i]->name(), link_name(want[i])) << format_address(d.addr);
          links += got.links.size();
        }
  EXPECT_GT(links, 0u);
}

// The rows describe() prints for `cfg`, each checked against the knobs:
// the TCM split into the arena, PE_IPCQ's rings and the staging slots from
// offset 0 up; the HBM slice and the cube SRAM less the rings at their tops.
void expect_limits_of(const std::string& text, const TopologyConfig& cfg) {
  const uint64_t tcm = cfg.pe.tcm.size_bytes, ring = cfg.pe.ipcq.ring_bytes;
  const uint64_t arena = test::expected_tcm_arena(cfg);
  const uint64_t staging =
      cfg.pe.scheduler.staging_buffers * test::expected_staging_slot_bytes(cfg);
  const uint64_t hbm = cfg.pe.hbm.size_bytes, sram = cfg.cube.sram.size_bytes;
  const uint64_t sram_rings = cfg.cube.pes * std::min(ring, sram / (2 * cfg.cube.pes));
  struct Row {
    const char* label;
    uint64_t bytes, from;
  };
  for (const Row& r :
       {Row{"TCM arena", arena, 0}, Row{"TCM IPCQ", ring, arena},
        Row{"TCM staging", staging, tcm - staging}, Row{"HBM tensors", hbm - ring, 0},
        Row{"HBM IPCQ", ring, hbm - ring}, Row{"SRAM tensors", sram - sram_rings, 0},
        Row{"SRAM IPCQ", sram_rings, sram - sram_rings}}) {
    const test::DescribedRegion d = test::described_region(text, r.label);
    ASSERT_TRUE(d.found) << r.label << " in\n" << text;
    EXPECT_EQ(d.bytes, r.bytes) << r.label << " in\n" << text;
    EXPECT_EQ(d.from, r.from) << r.label;
    EXPECT_EQ(d.to, r.from + r.bytes) << r.label;
  }
}

// describe() shows each PE's TCM split, computed from the configuration, and
// the PEs are built that way: the arena a kernel allocates from is the one
// it shows.
TEST(PlatformDescribe, ShowsWhatAKernelGetsOfEachPesMemories) {
  const TopologyConfig cfg = tiny();
  Platform p(cfg);
  const std::string text = p.describe();
  expect_limits_of(text, cfg);
  EXPECT_EQ(test::described_region(text, "TCM arena").bytes, 622592u) << text;  // tiny.yaml
  EXPECT_NE(text.find("8 slots x 20480 B"), std::string::npos) << text;
  PeTcm& tcm = p.pe({0, 1, 1}).tcm;
  EXPECT_EQ(tcm.arena().capacity(), test::expected_tcm_arena(cfg));
  EXPECT_EQ(tcm.ipcq_offset(), test::expected_tcm_arena(cfg));
  EXPECT_EQ(tcm.staging_offset(), test::expected_tcm_arena(cfg) + cfg.pe.ipcq.ring_bytes);
}

// Knobs that move every boundary move the rows with them (no elaboration:
// the limits are the configuration's), the cube SRAM's rings capped at half
// a PE's share.
TEST(PlatformDescribe, TheLimitsFollowTheKnobs) {
  const TopologyConfig cfg =
      tiny({"pe.scheduler.staging_buffers=3", "pe.ipcq.ring_bytes=64KiB", "pe.hbm.size_bytes=32MiB",
            "cube.sram.size_bytes=128KiB", "pe.tcm.size_bytes=512KiB"});
  const std::string text = describe_pe_memory(cfg, "  ");
  expect_limits_of(text, cfg);
  const PeMemoryLimits m = pe_memory_limits(cfg);
  EXPECT_EQ(m.tcm.arena_bytes, 512u * 1024 - 3 * 20480 - 64 * 1024);
  EXPECT_EQ(m.sram_ipcq_bytes, 2u * 32 * 1024);  // 128 KiB / 2 PEs / 2, not the 64 KiB ring
  EXPECT_EQ(tcm_arena_capacity(cfg), m.tcm.arena_bytes);
}

}  // namespace
}  // namespace kb
