// The elaboration budget: the thread count it assumes per PE is the count the
// platform really elaborates, and a topology past vm.max_map_count is refused
// before any module is built.
#include <gtest/gtest.h>

#include <functional>
#include <systemc>

#include "models/common/errors.h"
#include "models/common/thread_budget.h"
#include "platform/config/topology_loader.h"
#include "platform/fabric/elaboration_budget.h"
#include "platform/platform.h"

namespace kb {
namespace {

unsigned count_threads() {
  unsigned n = 0;
  std::function<void(sc_core::sc_object*)> walk = [&](sc_core::sc_object* o) {
    if (std::string(o->kind()) == "sc_thread_process") ++n;
    for (sc_core::sc_object* c : o->get_child_objects()) walk(c);
  };
  for (sc_core::sc_object* o : sc_core::sc_get_top_level_objects()) walk(o);
  return n;
}

TEST(ElaborationBudget, ThreadsPerPeMatchTheElaboratedProcesses) {
  const TopologyConfig cfg = load_topology_file(KB_SOURCE_DIR "/topologies/tiny.yaml");
  Platform p(cfg);
  p.finish_elaboration();
  EXPECT_EQ(count_threads(), cfg.total_pes() * threads_per_pe_at_elaboration());
  const ElaborationBudget b = elaboration_budget(cfg);
  EXPECT_EQ(b.threads, count_threads() + cfg.total_pes());  // and a kernel on every PE
  EXPECT_EQ(b.maps_needed, 2 * b.threads);
}

TEST(ElaborationBudget, ATopologyPastTheMapLimitIsAConfigErrorBeforeElaboration) {
  if (vm_max_map_count() <= 0) GTEST_SKIP() << "vm.max_map_count not readable";
  // Enough PEs to need more maps than the limit, whatever it is here.
  const uint64_t pes_needed =
      static_cast<uint64_t>(vm_max_map_count()) / (2 * (threads_per_pe_at_elaboration() + 1)) + 1;
  const unsigned per_cube = 64, cubes_side = 16;
  const unsigned sips = static_cast<unsigned>(
      (pes_needed + per_cube * cubes_side * cubes_side - 1) / (per_cube * cubes_side * cubes_side));
  if (sips > 64) GTEST_SKIP() << "vm.max_map_count too large to exceed";
  const TopologyConfig cfg = load_default_topology(
      {"system.n_sips=" + std::to_string(sips), "sip.cubes_x=16", "sip.cubes_y=16", "cube.pes=64"});
  try {
    Platform p(cfg);
    FAIL() << "elaborated " << cfg.total_pes() << " PEs";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("vm.max_map_count"), std::string::npos) << m;
    EXPECT_NE(m.find("sysctl -w vm.max_map_count="), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(cfg.total_pes()) + " PEs"), std::string::npos) << m;
  }
  EXPECT_TRUE(sc_core::sc_get_top_level_objects().empty());  // nothing was built
}

}  // namespace
}  // namespace kb
