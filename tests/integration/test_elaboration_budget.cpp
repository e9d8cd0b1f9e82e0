// The elaboration budget: the thread count it assumes per PE is the count a PE
// really starts once it uses every engine (and none before), and a topology
// past vm.max_map_count is refused before any module is built.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <systemc>

#include "firmware/tl.h"
#include "models/common/errors.h"
#include "models/common/thread_budget.h"
#include "platform/config/topology_loader.h"
#include "platform/fabric/elaboration_budget.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {
namespace {

// The processes of `kind` (threads by default) under `root` (every object
// when null) whose names pass `keep`.
unsigned count_threads(sc_core::sc_object* root = nullptr,
                       const std::function<bool(const std::string&)>& keep = {},
                       const std::string& kind = "sc_thread_process") {
  unsigned n = 0;
  std::function<void(sc_core::sc_object*)> walk = [&](sc_core::sc_object* o) {
    if (o->kind() == kind && (!keep || keep(o->basename()))) ++n;
    for (sc_core::sc_object* c : o->get_child_objects()) walk(c);
  };
  if (root) {
    walk(root);
  } else {
    for (sc_core::sc_object* o : sc_core::sc_get_top_level_objects()) walk(o);
  }
  return n;
}

TEST(ElaborationBudget, APeStartsItsThreadsWhenUsedAndAsManyAsTheBudgetCounts) {
  const TopologyConfig cfg = load_topology_file(KB_SOURCE_DIR "/topologies/tiny.yaml");
  Platform p(cfg);
  p.finish_elaboration();
  EXPECT_EQ(count_threads(), 0u);  // an idle platform keeps no coroutine stack
  const ElaborationBudget b = elaboration_budget(cfg);
  EXPECT_EQ(b.threads, cfg.total_pes() * (threads_per_pe_in_use() + 1));  // and a kernel each
  EXPECT_EQ(b.maps_needed, 2 * b.threads);

  // A composite GEMM with a MATH epilogue uses every engine's lanes (DMA
  // read and write channels, TCM fetch and store, GEMM, MATH) and the
  // scheduler's feeder: of these only the DMA channels are processes.
  HostRuntime rt(p);
  const PeId pe{0, 0, 0};
  const fw::Tensor a = rt.alloc_hbm(pe, {64, 128}), w = rt.alloc_hbm(pe, {128, 64}),
                   c = rt.alloc_hbm(pe, {64, 64});
  rt.launch_on({pe}, [&](fw::Tl& tl) {
    fw::CompositeArgs g;
    g.a = a;
    g.b = w;
    g.out = c;
    g.epilogue.push_back({"relu", Scope::kOutputTile, {}, {}, std::nullopt});
    tl.wait(tl.composite(g));
  });
  rt.run();
  // The PE's own threads: not its DMA burst workers, not the kernel.
  const auto own = [](const std::string& n) {
    return n == "feeder" || n == "read_channel" || n == "write_channel" || n.rfind("lane_", 0) == 0;
  };
  EXPECT_EQ(count_threads(&p.pe(pe), own), threads_per_pe_in_use());
  // Both DMA channels ran, as methods; the feeder runs from the calendar.
  EXPECT_EQ(count_threads(&p.pe(pe), own, "sc_method_process"), 2u);
  EXPECT_EQ(count_threads(&p.pe({0, 1, 0}), own), 0u);  // another PE did nothing
  EXPECT_EQ(count_threads(&p.pe({0, 1, 0}), own, "sc_method_process"), 0u);
}

// The events under `root` whose names pass `keep`.
unsigned count_events(sc_core::sc_object* root,
                      const std::function<bool(const std::string&)>& keep) {
  unsigned n = 0;
  std::function<void(sc_core::sc_object*)> walk = [&](sc_core::sc_object* o) {
    for (const sc_core::sc_event* e : o->get_child_events()) n += keep(e->basename()) ? 1 : 0;
    for (sc_core::sc_object* c : o->get_child_objects()) walk(c);
  };
  walk(root);
  return n;
}

// An engine's lane events (thread lanes only) and its zero-time timers'
// event are made at first use: an idle PE has none, a 64-SIP system saves
// tens of thousands of named events.
TEST(ElaborationBudget, AnIdlePeKeepsNoLaneOrDueTimerEvents) {
  const TopologyConfig cfg = load_topology_file(KB_SOURCE_DIR "/topologies/tiny.yaml");
  Platform p(cfg);
  p.finish_elaboration();
  const auto lazy = [](const std::string& n) {
    return n.find("_arrived") != std::string::npos || n == "lanes_due_now" ||
           n == "message_delivered" || n == "async_burst_ended";
  };
  EXPECT_EQ(count_events(&p.pe({0, 0, 0}), lazy), 0u);
  EXPECT_GT(count_events(&p.pe({0, 0, 0}), [](const std::string&) { return true; }), 0u);
}

TEST(ElaborationBudget, ATopologyPastTheMapLimitIsAConfigErrorBeforeElaboration) {
  if (vm_max_map_count() <= 0) GTEST_SKIP() << "vm.max_map_count not readable";
  // Enough PEs to need more maps than the limit, whatever it is here.
  const uint64_t pes_needed =
      static_cast<uint64_t>(vm_max_map_count()) / (uint64_t{2} * (threads_per_pe_in_use() + 1)) + 1;
  const uint64_t per_sip = uint64_t{64} * 16 * 16;  // cube.pes=64 on 16 x 16 cubes
  const auto sips = static_cast<unsigned>((pes_needed + per_sip - 1) / per_sip);
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
