// GEMM issue strategies: the composite against the primitive
// single-op kernels async-full and async-tiled on the default topology.
// Timing only (data mode is another issue). Each test elaborates one Platform
// (or none: the cost-model test spawns kernbench, one process per
// configuration, as a sweep over hardware knobs must: SystemC elaborates once per process).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "models/commands/commands.h"
#include "models/commands/cost_model.h"
#include "models/trace/op_log.h"
#include "platform/bench/gemm_strategies.h"
#include "platform/config/topology_loader.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {
namespace {

const GemmShape kShape{32, 3072, 32};
const std::string kPe = "system.sip0.cube0.pe0";
// SystemC time has picosecond resolution: every dispatch interval is the
// formula's cost rounded to the picosecond, so sums over n commands agree
// with the formula to n x 0.5 ps.
constexpr double kPs = 1e-3;

double num(const nlohmann::json& j, const char* key) {
  return j.at(key).get<double>();
}

// The op log records of the commands [first, last] of PE 0, by command id.
std::map<uint64_t, std::vector<OpRecord>> records_by_cmd(Platform& p, const nlohmann::json& pt) {
  const uint64_t first = pt["cmd_id_first"].get<uint64_t>();
  const uint64_t last = pt["cmd_id_last"].get<uint64_t>();
  std::map<uint64_t, std::vector<OpRecord>> out;
  for (const OpRecord& r : p.op_log().records())
    if (r.pe == kPe && r.cmd_id >= first && r.cmd_id <= last) out[r.cmd_id].push_back(r);
  return out;
}

// The command descriptor a command id stood for, rebuilt from the stages the
// op log recorded for it (the logical_bytes rules only depend on its kind,
// and for a MathCmd on its operand count and extras: the cast has one input
// and none).
Command command_from_stages(const std::vector<OpRecord>& stages) {
  const OpRecord& r = stages.front();
  if (r.tile != "op") {  // a composite's tile tokens: the study's one-op GEMM composite
    CompositeCmd c;
    OpSpec g;
    g.kind = "gemm";
    g.scope = Scope::kKernel;
    g.operands = {{"a", {}}, {"b", {}}};
    g.out = TensorHandle{};
    g.extra = {{"m", int64_t{0}}, {"k", int64_t{0}}, {"n", int64_t{0}}};
    c.ops.push_back(g);
    return c;
  }
  for (const OpRecord& s : stages)
    if (s.stage == "GEMM") return GemmCmd{};
  if (r.stage == "DMA_READ") return DmaReadCmd{};
  if (r.stage == "DMA_WRITE") return DmaWriteCmd{};
  MathCmd m;
  m.kind = r.op_kind;
  m.inputs.resize(1);
  return m;
}

// Length of the union of [a, b) intervals.
double union_ns(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  double total = 0, a = 0, b = -1;
  for (const auto& [x, y] : v) {
    if (x > b) {
      if (b > a) total += b - a;
      a = x;
      b = y;
    } else {
      b = std::max(b, y);
    }
  }
  if (b > a) total += b - a;
  return total;
}

// Time inside [t0, t1] during which some stage of the point was in service.
double pipeline_busy_ns(Platform& p, const nlohmann::json& pt) {
  const double t0 = num(pt, "t0_ns"), t1 = num(pt, "t1_ns");
  std::vector<std::pair<double, double>> v;
  for (const auto& [id, stages] : records_by_cmd(p, pt))
    for (const OpRecord& r : stages)
      v.emplace_back(std::max(t0, r.t_start_ns), std::min(t1, r.t_end_ns));
  return union_ns(v);
}

// --- the acceptance point ---------------------------------------------------------

TEST(GemmStrategies, CompositeIsFasterThanAsyncTiledAt32x3072x32LoadRef) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const nlohmann::json comp = run_gemm_strategy_point(rt, kShape, "composite", "load_ref");
  const nlohmann::json tiled = run_gemm_strategy_point(rt, kShape, "async-tiled", "load_ref");
  EXPECT_LT(num(comp, "window_ns"), num(tiled, "window_ns"))
      << "composite " << comp.dump() << "\nasync-tiled " << tiled.dump();
  EXPECT_GT(num(comp, "tflops_per_pe"), num(tiled, "tflops_per_pe"));
  // The figures the acceptance asks to see, beside each other.
  RecordProperty("composite_window_ns", std::to_string(num(comp, "window_ns")));
  RecordProperty("async_tiled_window_ns", std::to_string(num(tiled, "window_ns")));
  RecordProperty("composite_dispatch_ns", std::to_string(num(comp, "dispatch_ns")));
  RecordProperty("async_tiled_dispatch_ns", std::to_string(num(tiled, "dispatch_ns")));
  RecordProperty("async_tiled_commands", std::to_string(tiled["commands"].get<int>()));
}

// With the tl contract (a dot waits for its accumulator's producer), the 48
// dots of the one output tile form a chain: each dot's dispatch starts when
// the previous dot completes, and each dot then runs alone through FETCH
// (A, W and the fp32 accumulator), GEMM and STORE (the accumulator). The
// window is the CPU's dispatch of the chain's commands plus the engines' time
// on it; the op log accounts for every nanosecond, so the gap to the composite
// splits exactly into a dispatch part (command count x cost per command of the
// commands on the critical path) and an engine part (the serialized
// accumulator round trip). The DMAs of the W tiles are dispatched while a dot
// runs and cost the window nothing.
TEST(GemmStrategies, AsyncTiledGapSplitsIntoCriticalPathDispatchAndAccumulatorChain) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const CostModel cost(p.config().pe.cost_model, p.config().pe.clock_ghz);
  const nlohmann::json comp = run_gemm_strategy_point(rt, kShape, "composite", "load_ref");
  IssueRecord rec;
  const nlohmann::json tiled =
      run_gemm_strategy_point(rt, kShape, "async-tiled", "load_ref", DepSync::kWait, &rec);
  const auto recs = records_by_cmd(p, tiled);

  std::vector<CommandHandle> dots, dmas, tail;
  for (const CommandHandle& h : rec.cmds) {
    const std::string kind = h->kind;
    (kind == "Gemm" ? dots : kind == "DmaRead" ? dmas : tail).push_back(h);
  }
  ASSERT_EQ(dots.size(), 48u);
  ASSERT_EQ(dmas.size(), 48u);
  ASSERT_EQ(tail.size(), 2u);  // the cast and the store
  for (size_t k = 0; k < dots.size(); ++k) {
    // Each dot runs alone: issue to completion = its FETCH + GEMM + STORE.
    double stages = 0;
    for (const OpRecord& r : recs.at(dots[k]->id)) stages += r.t_end_ns - r.t_start_ns;
    EXPECT_NEAR(dots[k]->done_ns - dots[k]->issued_ns, stages, kPs) << "dot " << k;
    // The chain: dot k is dispatched the moment dot k-1 completes.
    if (k > 0) {
      EXPECT_NEAR(dots[k]->dispatch_start_ns, dots[k - 1]->done_ns, kPs) << "dot " << k;
    }
  }
  // W-tile DMAs after the first are dispatched while a dot is in service.
  for (size_t i = 1; i < dmas.size(); ++i) {
    bool hidden = false;
    for (const CommandHandle& d : dots)
      hidden = hidden || (dmas[i]->dispatch_start_ns >= d->issued_ns - kPs &&
                          dmas[i]->issued_ns <= d->done_ns + kPs);
    EXPECT_TRUE(hidden) << "DMA " << i;
  }

  // The critical path's dispatch: the first DMA, the 48 dots, the cast and
  // the store, each at FIXED + logical_bytes x R.
  MathCmd cast;
  cast.kind = "cast";
  cast.inputs.resize(1);
  const double critical_formula = cost.dispatch_ns(DmaReadCmd{}) +
                                  48 * cost.dispatch_ns(GemmCmd{}) + cost.dispatch_ns(cast) +
                                  cost.dispatch_ns(DmaWriteCmd{});
  const double starved_async = num(tiled, "cpu_starved_ns");
  const double starved_comp = num(comp, "cpu_starved_ns");
  EXPECT_NEAR(starved_async, critical_formula, 51 * kPs);
  EXPECT_NEAR(starved_comp, num(comp, "dispatch_ns"), kPs);  // its one dispatch opens the window

  // Every nanosecond of each window: the CPU dispatching with the pipeline
  // empty, some stage in service, or the DMA engine's per-transfer setup
  // (pe.dma.setup_ns, before the op log's record starts) of the first read
  // and of the final write. Nothing else: no slack in either window.
  const double setup = p.config().pe.dma.setup_ns;
  const double busy_async = pipeline_busy_ns(p, tiled), busy_comp = pipeline_busy_ns(p, comp);
  EXPECT_NEAR(num(tiled, "window_ns"), starved_async + busy_async + 2 * setup, 0.01);
  EXPECT_NEAR(num(comp, "window_ns"), starved_comp + busy_comp + 2 * setup, 0.01);

  const double gap = num(tiled, "window_ns") - num(comp, "window_ns");
  const double dispatch_part = critical_formula - num(comp, "dispatch_ns");
  const double engine_part = busy_async - busy_comp;
  EXPECT_GT(gap, 0);
  EXPECT_NEAR(gap, dispatch_part + engine_part, 0.1);
  // The engine part is the accumulator chain: 47 dots that FETCH 12 KiB
  // (A, W, accumulator) at 512 GB/s and STORE 4 KiB, one after the other,
  // where the composite pipelines its 48 tiles behind the GEMM engine.
  EXPECT_GT(engine_part, 0);
  RecordProperty("gap_ns", std::to_string(gap));
  RecordProperty("gap_dispatch_ns", std::to_string(dispatch_part));
  RecordProperty("gap_engine_ns", std::to_string(engine_part));
  RecordProperty("dispatch_total_ns", std::to_string(num(tiled, "dispatch_ns")));
}

// The dispatch-only bound (DepSync::kNoWait: no CPU wait on the accumulator
// chain or on buffer reuse). The composite still wins; the gap is the time
// the GEMM engine waits while PE_CPU dispatches (cpu_bound), up to the two
// windows' other GEMM idle time (fill and drain), which the op log gives.
TEST(GemmStrategies, DispatchOnlyBoundGapIsGemmIdleWhileTheCpuDispatches) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const nlohmann::json comp = run_gemm_strategy_point(rt, kShape, "composite", "load_ref");
  const nlohmann::json bound =
      run_gemm_strategy_point(rt, kShape, "async-tiled", "load_ref", DepSync::kNoWait);
  const nlohmann::json strict =
      run_gemm_strategy_point(rt, kShape, "async-tiled", "load_ref", DepSync::kWait);
  EXPECT_LT(num(comp, "window_ns"), num(bound, "window_ns"));
  EXPECT_LT(num(bound, "window_ns"), num(strict, "window_ns"));
  // Same commands either way; only the waits differ.
  EXPECT_EQ(bound["commands_by_kind"], strict["commands_by_kind"]);
  EXPECT_NEAR(num(bound, "dispatch_ns"), num(strict, "dispatch_ns"), kPs);
  // The GEMM engine does the same work (48 native tiles) in every window.
  EXPECT_NEAR(num(bound, "gemm_busy_ns"), 48 * 16.384, 1e-6);
  EXPECT_NEAR(num(comp, "gemm_busy_ns"), 48 * 16.384, 1e-6);
  const double gap = num(bound, "window_ns") - num(comp, "window_ns");
  const double cpu = num(bound, "cpu_bound_ns") - num(comp, "cpu_bound_ns");
  const double other = num(bound, "gemm_idle_other_ns") - num(comp, "gemm_idle_other_ns");
  EXPECT_NEAR(gap, cpu + other, 1e-6);
  // The tolerance: the fill and drain of each window (GEMM idle with the CPU
  // not dispatching), each under 100 ns here; their difference is what the
  // CPU-bound time leaves unexplained.
  EXPECT_LT(num(comp, "gemm_idle_other_ns"), 100.0);
  EXPECT_LT(num(bound, "gemm_idle_other_ns"), 100.0);
  EXPECT_LE(std::abs(other), 0.1 * gap) << bound.dump();
  RecordProperty("bound_window_ns", std::to_string(num(bound, "window_ns")));
  RecordProperty("bound_cpu_bound_ns", std::to_string(num(bound, "cpu_bound_ns")));
}

// --- command counts and dispatch accounting -----------------------------------------

TEST(GemmStrategies, AsyncStrategiesIssueTheExpectedCommands) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  // Per variant: DMA reads in the window, pre-loads before it. Every point
  // issues 48 dots, one cast and one store (one output tile).
  struct Want {
    const char* strategy;
    const char* variant;
    unsigned dma_reads, preloads;
  };
  const std::vector<Want> wants = {
      {"async-tiled", "load_ref", 48, 1}, {"async-tiled", "ref_ref", 96, 0},
      {"async-tiled", "load_load", 0, 2}, {"async-full", "load_ref", 1, 1},
      {"async-full", "ref_ref", 2, 0},    {"async-full", "load_load", 0, 2}};
  for (const Want& w : wants) {
    const nlohmann::json pt = run_gemm_strategy_point(rt, kShape, w.strategy, w.variant);
    const std::string what = std::string(w.strategy) + " " + w.variant;
    nlohmann::json kinds = {{"Gemm", 48}, {"Math", 1}, {"DmaWrite", 1}};
    if (w.dma_reads) kinds["DmaRead"] = w.dma_reads;
    EXPECT_EQ(pt["commands_by_kind"], kinds) << what;
    EXPECT_EQ(pt["commands"].get<unsigned>(), w.dma_reads + 50) << what;
    EXPECT_EQ(pt["preload_commands"].get<unsigned>(), w.preloads) << what;
    EXPECT_EQ(pt["pe_cpu_commands"].get<unsigned>(), w.dma_reads + 50 + w.preloads) << what;
    // Each command left its stages in the op log, and nothing else did.
    EXPECT_EQ(records_by_cmd(p, pt).size(), w.dma_reads + 50) << what;
    EXPECT_EQ(pt["n_tiles"].get<unsigned>(), 48u) << what;
    EXPECT_NEAR(num(pt, "gemm_busy_ns"), 48 * 16.384, 1e-6) << what;
  }
}

// The dispatch total a point reports equals the sum over its commands of
// FIXED + logical_bytes x R, with the commands recovered from the op log.
TEST(GemmStrategies, DispatchTotalEqualsTheCostFormulaOverTheOpLog) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const CostModel cost(p.config().pe.cost_model, p.config().pe.clock_ghz);
  for (const std::string strategy : {"composite", "async-full", "async-tiled"})
    for (const std::string variant : {"load_ref", "ref_ref"}) {
      const nlohmann::json pt = run_gemm_strategy_point(rt, kShape, strategy, variant);
      double formula = 0;
      std::map<std::string, int> kinds;
      for (const auto& [id, stages] : records_by_cmd(p, pt)) {
        const Command c = command_from_stages(stages);
        formula += cost.dispatch_ns(c);
        ++kinds[command_name(c)];
      }
      const unsigned n = pt["commands"].get<unsigned>();
      const std::string what = strategy + " " + variant;
      EXPECT_EQ(nlohmann::json(kinds), pt["commands_by_kind"]) << what;
      // Measured on the handles (picosecond-rounded waits) ...
      EXPECT_NEAR(num(pt, "dispatch_ns"), formula, n * 0.5 * kPs) << what;
      // ... and PE_CPU's own sum of the formula, less the pre-loads (DMA reads).
      const double preload = pt["preload_commands"].get<double>() * cost.dispatch_ns(DmaReadCmd{});
      EXPECT_NEAR(num(pt, "pe_cpu_dispatch_ns") - preload, formula, 1e-9) << what;
      EXPECT_NEAR(num(pt, "cost_per_command_ns"), num(pt, "dispatch_ns") / n, 1e-12) << what;
    }
}

// The window starts with the first command of the strategy, after the
// variant's pre-loads, and the throughput figures follow from it.
TEST(GemmStrategies, WindowExcludesPreloadsAndDefinesThroughput) {
  Platform p(load_default_topology());
  HostRuntime rt(p);
  const double peak = p.config().pe.gemm.peak_tflops;
  const double flops = 2.0 * kShape.m * kShape.k * kShape.n;
  for (const std::string strategy : {"async-full", "async-tiled"}) {
    const double before = p.now_ns();
    const nlohmann::json pt = run_gemm_strategy_point(rt, kShape, strategy, "load_load");
    // Two whole-operand pre-loads (192 KiB each at <= 256 GB/s) come first.
    EXPECT_GT(num(pt, "t0_ns") - before, 2 * 196608 / 256.0) << strategy;
    EXPECT_EQ(pt["stage_busy_ns"]["dma_in"].get<double>(), 0.0) << strategy;
    const double w = num(pt, "window_ns");
    EXPECT_NEAR(w, num(pt, "t1_ns") - num(pt, "t0_ns"), 1e-9);
    EXPECT_NEAR(num(pt, "tflops_per_pe"), flops / w / 1000.0, 1e-9);
    EXPECT_NEAR(num(pt, "mac_util"), num(pt, "tflops_per_pe") / peak, 1e-9);
    EXPECT_GE(num(pt, "cpu_bound_ns"), num(pt, "cpu_starved_ns") - 1e-9);
    EXPECT_LE(num(pt, "cpu_bound_ns"), num(pt, "dispatch_ns") + 1e-9);
  }
}

// --- the cost model: one process per configuration ---------------------------------

// Runs kernbench with `args`; returns its JSON result.
nlohmann::json run_strategies_kernbench(const std::vector<std::string>& args,
                                        const std::string& json_path) {
  std::vector<std::string> all = {KB_KERNBENCH_BIN};
  all.insert(all.end(), args.begin(), args.end());
  all.emplace_back("--json");
  all.push_back(json_path);
  all.emplace_back("--quiet");
  std::vector<char*> argv;
  argv.reserve(all.size() + 1);
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot spawn " + all[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("kernbench failed: status " + std::to_string(status));
  std::ifstream in(json_path);
  nlohmann::json j;
  in >> j;
  std::remove(json_path.c_str());
  return j;
}

// Raising fixed_per_single_op_cmd_cycles from 8 to 40 widens the gap between
// async-tiled and the composite (whose one command pays the composite FIXED).
TEST(GemmStrategies, RaisingTheSingleOpFixedCostWidensTheGap) {
  std::map<std::string, double> ratio;  // "<sync> <fixed>" -> async-tiled / composite window
  for (int fixed : {8, 40})
    for (const std::string sync : {"wait", "nowait"}) {
      const std::string path = "/tmp/kb_gemm_strategies_" + std::to_string(getpid()) + "_" + sync +
                               std::to_string(fixed) + ".json";
      const nlohmann::json j = run_strategies_kernbench(
          {"--bench", "gemm-strategies", "--set",
           "pe.cost_model.fixed_per_single_op_cmd_cycles=" + std::to_string(fixed), "--param",
           "shapes=32x3072x32", "--param", "variants=load_ref", "--param",
           "strategies=composite,async-tiled", "--param", "sync=" + sync},
          path);
      ASSERT_EQ(j["points"].size(), 2u);
      const nlohmann::json& comp = j["points"][0];
      const nlohmann::json& tiled = j["points"][1];
      ASSERT_EQ(comp["strategy"], "composite");
      ASSERT_EQ(tiled["strategy"], "async-tiled");
      const double r = num(tiled, "window_ns") / num(comp, "window_ns");
      EXPECT_NEAR(num(tiled, "window_vs_composite"), r, 1e-12);
      // The composite's cost does not move; async-tiled's commands each pay
      // the new FIXED (48 DmaRead, 48 Gemm, 1 cast, 1 DmaWrite).
      TopologyConfig cfg = load_default_topology();
      cfg.pe.cost_model.fixed_per_single_op_cmd_cycles = fixed;
      const CostModel cost(cfg.pe.cost_model, cfg.pe.clock_ghz);
      MathCmd cast;
      cast.kind = "cast";
      cast.inputs.resize(1);
      const double want = 48 * cost.dispatch_ns(DmaReadCmd{}) + 48 * cost.dispatch_ns(GemmCmd{}) +
                          cost.dispatch_ns(cast) + cost.dispatch_ns(DmaWriteCmd{});
      EXPECT_NEAR(num(tiled, "dispatch_ns"), want, 98 * 0.5 * kPs) << sync << " " << fixed;
      EXPECT_NEAR(num(comp, "dispatch_ns"), 42.875, kPs);
      ratio[sync + " " + std::to_string(fixed)] = r;
      RecordProperty("ratio_" + sync + "_fixed" + std::to_string(fixed), std::to_string(r));
    }
  EXPECT_GT(ratio["wait 8"], 1.0);
  EXPECT_GT(ratio["nowait 8"], 1.0);
  EXPECT_GT(ratio["wait 40"], ratio["wait 8"]);
  EXPECT_GT(ratio["nowait 40"], ratio["nowait 8"]);
}

}  // namespace
}  // namespace kb
