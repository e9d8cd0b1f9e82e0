#include "platform/bench/gemm_strategies.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "models/commands/commands.h"
#include "models/common/checked_math.h"
#include "models/common/errors.h"
#include "models/trace/op_log.h"
#include "platform/bench/gemm_study.h"
#include "platform/config/topology_config.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {

using fw::GemmOperands;

namespace {

constexpr uint64_t kAlign = 64;  // the TCM arena's allocation alignment

}  // namespace

// ---- study ------------------------------------------------------------------------

const std::vector<std::string>& gemm_strategy_names() {
  static const std::vector<std::string> names = {"composite", "async-full", "async-tiled"};
  return names;
}

std::string gemm_strategy_fit(const TopologyConfig& cfg, const GemmShape& s,
                              const std::string& strategy, const std::string& variant) {
  if (strategy == "composite") return gemm_fit(cfg, s, variant);
  const auto& g = cfg.pe.gemm;
  const uint64_t staging = (uint64_t{g.tile_m} * g.tile_k * 4 + uint64_t{g.tile_k} * g.tile_n * 4 +
                            uint64_t{g.tile_m} * g.tile_n * 4) *
                           cfg.pe.scheduler.staging_buffers;
  const uint64_t arena = cfg.pe.tcm.size_bytes > staging ? cfg.pe.tcm.size_bytes - staging : 0;
  auto sz = [](uint64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; };
  const uint64_t a_bytes = static_cast<uint64_t>(s.m * s.k) * 2,
                 w_bytes = static_cast<uint64_t>(s.k * s.n) * 2;
  const uint64_t acc_tile = sz(uint64_t{g.tile_m} * g.tile_n * 4),
                 c16_tile = sz(uint64_t{g.tile_m} * g.tile_n * 2);
  const auto out_tiles = static_cast<uint64_t>(ceil_div(s.m, g.tile_m) * ceil_div(s.n, g.tile_n));
  uint64_t need = 2 * c16_tile;
  if (strategy == "async-full") {
    need += sz(a_bytes) + sz(w_bytes) + out_tiles * acc_tile;  // whole operands, every accumulator
  } else {
    if (!gemm_streams_a(variant)) need += sz(a_bytes);
    if (!gemm_streams_b(variant)) need += sz(w_bytes);
    if (gemm_streams_a(variant)) need += 2 * sz(uint64_t{g.tile_m} * g.tile_k * 2);
    if (gemm_streams_b(variant)) need += 2 * sz(uint64_t{g.tile_k} * g.tile_n * 2);
    need += acc_tile;  // one accumulator at a time (recycled per output tile)
  }
  if (need <= arena) return "";
  return strategy + " needs " + std::to_string(need) + " bytes of TCM but the arena has " +
         std::to_string(arena);
}

namespace {

struct Interval {
  double a, b;
};

// The union of `v` clipped to [lo, hi], as sorted disjoint intervals.
std::vector<Interval> merged(std::vector<Interval> v, double lo, double hi) {
  std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.a < y.a; });
  std::vector<Interval> out;
  for (Interval iv : v) {
    iv.a = std::max(iv.a, lo);
    iv.b = std::min(iv.b, hi);
    if (iv.b <= iv.a) continue;
    if (!out.empty() && iv.a <= out.back().b)
      out.back().b = std::max(out.back().b, iv.b);
    else
      out.push_back(iv);
  }
  return out;
}

double length(const std::vector<Interval>& v) {
  double t = 0;
  for (const Interval& iv : v) t += iv.b - iv.a;
  return t;
}

// Length of (x minus y), both sorted and disjoint.
double length_minus(const std::vector<Interval>& x, const std::vector<Interval>& y) {
  double t = 0;
  size_t j = 0;
  for (const Interval& iv : x) {
    double cur = iv.a;
    while (j < y.size() && y[j].b <= cur) ++j;
    for (size_t k = j; k < y.size() && y[k].a < iv.b; ++k) {
      if (y[k].a > cur) t += y[k].a - cur;
      cur = std::max(cur, y[k].b);
      if (cur >= iv.b) break;
    }
    if (cur < iv.b) t += iv.b - cur;
  }
  return t;
}

// Window metrics shared by every strategy, from the op log records of the
// point's commands and their dispatch intervals.
void window_metrics(nlohmann::json& j, Platform& p, const GemmShape& s, double t0, double t1,
                    const std::set<uint64_t>& ids, const std::vector<Interval>& dispatch) {
  const TopologyConfig& c = p.config();
  const std::string pe_path = "system.sip0.cube0.pe0";
  std::map<std::string, std::vector<Interval>> by_stage;
  std::vector<Interval> any_stage;
  uint64_t dma_bytes = 0;
  for (const OpRecord& r : p.op_log().records()) {
    if (r.pe != pe_path || !ids.count(r.cmd_id)) continue;
    by_stage[r.stage].push_back({r.t_start_ns, r.t_end_ns});
    any_stage.push_back({r.t_start_ns, r.t_end_ns});
    if (r.stage == "DMA_READ" || r.stage == "DMA_WRITE") dma_bytes += r.bytes;
  }
  const double window = t1 - t0;
  const double flops = 2.0 * s.m * s.k * s.n;
  const double peak_flop_per_ns = c.pe.gemm.peak_tflops * 1000.0;
  const auto gemm = merged(by_stage["GEMM"], t0, t1);
  const auto disp = merged(dispatch, t0, t1);
  const double gemm_busy = length(gemm);
  const double cpu_bound = length_minus(disp, gemm);
  j["window_ns"] = window;
  j["tflops_per_pe"] = flops / window / 1000.0;
  j["mac_util"] = flops / (peak_flop_per_ns * window);
  j["hbm_bw_util"] = static_cast<double>(dma_bytes) / (c.pe_hbm_bandwidth_gbps() * window);
  j["dma_bytes"] = dma_bytes;
  j["stage_busy_ns"] = {{"dma_in", length(merged(by_stage["DMA_READ"], t0, t1))},
                        {"fetch", length(merged(by_stage["FETCH"], t0, t1))},
                        {"gemm", gemm_busy},
                        {"math", length(merged(by_stage["MATH"], t0, t1))},
                        {"store", length(merged(by_stage["STORE"], t0, t1))},
                        {"dma_out", length(merged(by_stage["DMA_WRITE"], t0, t1))}};
  // The window split by what the GEMM engine was doing: busy; idle while
  // PE_CPU was dispatching (cpu_bound: the CPU was the bottleneck); idle
  // otherwise (waiting for data, for a dependency, or the fill and drain).
  j["gemm_busy_ns"] = gemm_busy;
  j["cpu_bound_ns"] = cpu_bound;
  j["cpu_bound_share"] = cpu_bound / window;
  j["gemm_idle_other_ns"] = window - gemm_busy - cpu_bound;
  j["cpu_dispatching_ns"] = length(disp);
  // A stricter reading: PE_CPU dispatching while no engine serves any stage
  // of the point (the whole pipeline waits for the command being issued).
  // cpu_bound also counts dispatch that overlaps other engines' work (a
  // FETCH, a DMA) while the GEMM engine waits for that work, not for the CPU.
  const double starved = length_minus(disp, merged(any_stage, t0, t1));
  j["cpu_starved_ns"] = starved;
  j["cpu_starved_share"] = starved / window;
  j["t0_ns"] = t0;
  j["t1_ns"] = t1;
}

}  // namespace

nlohmann::json run_gemm_strategy_point(HostRuntime& rt, const GemmShape& s,
                                       const std::string& strategy, const std::string& variant,
                                       DepSync sync, IssueRecord* record_out) {
  Platform& p = rt.platform();
  const TopologyConfig& c = p.config();
  const PeId pe{0, 0, 0};
  PeCpu& cpu = p.pe(pe).cpu;
  const PeCpu::Stats before = cpu.stats();
  nlohmann::json j;

  if (strategy == "composite") {
    // The gemm study's own point; its window and dispatch come from the
    // composite's handle. The CPU-bound time is recomputed here from the
    // op log: the composite completes with its last stage, so the window is
    // [t1 - window_ns, t1] and its one dispatch interval opens it.
    const nlohmann::json g = run_gemm_point(rt, s, variant);
    const uint64_t id = g["cmd_id"].get<uint64_t>();
    double t1 = 0;
    for (const OpRecord& r : p.op_log().records())
      if (r.pe == "system.sip0.cube0.pe0" && r.cmd_id == id) t1 = std::max(t1, r.t_end_ns);
    const double t0 = t1 - g["window_ns"].get<double>();
    const double disp = g["dispatch_ns"].get<double>();
    window_metrics(j, p, s, t0, t1, {id}, {{t0, t0 + disp}});
    j["mac_util_analytic"] = g["mac_util_analytic"];
    j["window_ns_analytic"] = g["window_ns_analytic"];
    j["commands"] = 1;
    j["commands_by_kind"] = {{"Composite", 1}};
    j["dispatch_ns"] = disp;
    j["dispatch_ns_by_kind"] = {{"Composite", disp}};
    j["n_tiles"] = g["n_tiles"];
    j["cmd_id_first"] = id;
    j["cmd_id_last"] = id;
  } else {
    const uint64_t align = c.pe.hbm.interleave_bytes * c.pe.hbm.num_pcs;
    const fw::Tensor A = rt.alloc_hbm(pe, {s.m, s.k}, DType::kFp16, align);
    const fw::Tensor W = rt.alloc_hbm(pe, {s.k, s.n}, DType::kFp16, align);
    const fw::Tensor C = rt.alloc_hbm(pe, {s.m, s.n}, DType::kFp16, align);
    IssueRecord rec;
    std::vector<CommandHandle> pre;
    rt.launch([&](fw::Tl& tl) {
      // The variant's pre-loads, done before the window (as the gemm study).
      GemmOperands ops;
      ops.a = gemm_streams_a(variant) ? A : tl.load(A);
      ops.w = gemm_streams_b(variant) ? W : tl.load(W);
      for (const fw::Tensor* t : {&ops.a, &ops.w})
        if (t->pending) {
          pre.push_back(t->pending);
          tl.wait(*t);
        }
      ops.c = C;
      ops.tile_m = c.pe.gemm.tile_m;
      ops.tile_k = c.pe.gemm.tile_k;
      ops.tile_n = c.pe.gemm.tile_n;
      if (strategy == "async-full")
        fw::gemm_async_full(tl, ops, sync, rec);
      else
        fw::gemm_async_tiled(tl, ops, sync, rec);
    });
    rt.run();

    double t0 = rec.cmds.front()->dispatch_start_ns, t1 = 0, disp = 0;
    std::set<uint64_t> ids;
    std::vector<Interval> dispatch;
    std::map<std::string, uint64_t> count;
    std::map<std::string, double> disp_by_kind;
    for (const CommandHandle& h : rec.cmds) {
      t0 = std::min(t0, h->dispatch_start_ns);
      t1 = std::max(t1, h->done_ns);
      ids.insert(h->id);
      dispatch.push_back({h->dispatch_start_ns, h->issued_ns});
      disp += h->issued_ns - h->dispatch_start_ns;
      ++count[h->kind];
      disp_by_kind[h->kind] += h->issued_ns - h->dispatch_start_ns;
    }
    window_metrics(j, p, s, t0, t1, ids, dispatch);
    j["commands"] = rec.cmds.size();
    j["commands_by_kind"] = count;
    j["dispatch_ns"] = disp;
    j["dispatch_ns_by_kind"] = disp_by_kind;
    unsigned dots = 0;
    for (const CommandHandle& h : rec.cmds) dots += std::string(h->kind) == "Gemm";
    j["n_tiles"] = dots;
    j["cmd_id_first"] = *ids.begin();  // the point's commands are consecutive on the PE
    j["cmd_id_last"] = *ids.rbegin();
    if (record_out != nullptr) *record_out = rec;
  }

  // PE_CPU's own account of the point (pre-loads included): the dispatch
  // cost by the formula FIXED + logical_bytes x R, before SystemC rounds it
  // to the picosecond.
  const PeCpu::Stats& after = cpu.stats();
  j["pe_cpu_commands"] = after.commands - before.commands;
  j["pe_cpu_dispatch_ns"] = after.dispatch_ns - before.dispatch_ns;
  j["preload_commands"] = j["pe_cpu_commands"].get<uint64_t>() - j["commands"].get<uint64_t>();
  j["M"] = s.m;
  j["K"] = s.k;
  j["N"] = s.n;
  j["variant"] = variant;
  j["strategy"] = strategy;
  j["sync"] = strategy == "composite" ? "-" : to_string(sync);
  j["cost_per_command_ns"] = j["dispatch_ns"].get<double>() / j["commands"].get<double>();
  return j;
}

// run_gemm_strategy_point's point (window_metrics' fields, the composite's
// analytic ones included), the bench's window and ratio to the composite,
// or a skipped point's shape, variant, strategy and why.
std::vector<std::string> GemmStrategiesBench::point_fields() const {
  return {"M",
          "K",
          "N",
          "variant",
          "strategy",
          "sync",
          "window_ns",
          "tflops_per_pe",
          "mac_util",
          "hbm_bw_util",
          "dma_bytes",
          "stage_busy_ns",
          "gemm_busy_ns",
          "cpu_bound_ns",
          "cpu_bound_share",
          "gemm_idle_other_ns",
          "cpu_dispatching_ns",
          "cpu_starved_ns",
          "cpu_starved_share",
          "t0_ns",
          "t1_ns",
          "mac_util_analytic",
          "window_ns_analytic",
          "commands",
          "commands_by_kind",
          "dispatch_ns",
          "dispatch_ns_by_kind",
          "n_tiles",
          "cmd_id_first",
          "cmd_id_last",
          "pe_cpu_commands",
          "pe_cpu_dispatch_ns",
          "preload_commands",
          "cost_per_command_ns",
          "window_vs_composite",
          "skipped",
          "reason",
          PointWindows::kField};
}

std::vector<std::string> GemmStrategiesBench::metric_fields() const {
  return {"sync", "cost_model", "window_vs_composite"};
}

// ---- bench -----------------------------------------------------------------------

namespace {

void check_in(const std::string& key, const std::string& v, const std::vector<std::string>& ok) {
  if (std::find(ok.begin(), ok.end(), v) != ok.end()) return;
  std::string list;
  for (const auto& k : ok) list += (list.empty() ? "" : ", ") + k;
  throw UsageError("--param " + key + ": '" + v + "' is not one of " + list);
}

}  // namespace

std::vector<ParamSpec> GemmStrategiesBench::params() const {
  return {
      {"shapes", "32x64x32,32x256x32,32x1024x32,32x3072x32,128x1024x128,256x256x256,512x2048x512",
       "MxKxN shapes, comma-separated"},
      {"variants", "load_ref,ref_ref,load_load", "variants, comma-separated"},
      {"strategies", "composite,async-full,async-tiled", "strategies, comma-separated"},
      {"sync", "wait",
       "async kernels: wait (a dot waits for its accumulator's previous dot, a DMA into a reused "
       "buffer for its last reader: hazard-free) | nowait (neither: a dispatch-only bound)"}};
}

BenchResult GemmStrategiesBench::run(BenchContext& ctx) {
  std::vector<GemmShape> shapes;
  for (const std::string& t : ctx.params.list("shapes")) {
    shapes.push_back(parse_gemm_shape(t));
    check_gemm_size(ctx.platform.config(), shapes.back());
  }
  const std::vector<std::string> variants = ctx.params.list("variants");
  const std::vector<std::string> strategies = ctx.params.list("strategies");
  for (const auto& v : variants) check_in("variants", v, kGemmVariants);
  for (const auto& st : strategies) check_in("strategies", st, gemm_strategy_names());
  const std::string sync_text = ctx.params.str("sync");
  check_in("sync", sync_text, {"wait", "nowait"});
  const DepSync sync = sync_text == "wait" ? DepSync::kWait : DepSync::kNoWait;
  if (shapes.empty() || variants.empty() || strategies.empty())
    throw UsageError("--param shapes, variants and strategies must not be empty");

  HostRuntime rt(ctx.platform);
  PointWindows windows(ctx.platform);
  const auto& cm = ctx.platform.config().pe.cost_model;
  BenchResult res;
  SummaryTable t{"gemm-strategies on sip0.cube0.pe0 (sync=" + sync_text + "; cost model FIXED " +
                     fmt(cm.fixed_per_single_op_cmd_cycles, 0) + " single-op / " +
                     fmt(cm.fixed_per_composite_cycles, 0) + " composite cycles, R " +
                     fmt(cm.per_byte_cycles, 5) + " cycles/byte)",
                 {"M", "K", "N", "variant", "strategy", "window_ns", "TFLOP/s", "MAC util", "cmds",
                  "dispatch_ns", "ns/cmd", "cpu_bound", "cpu_starved", "gemm_busy",
                  "gemm_idle_other", "vs comp"},
                 {}};
  nlohmann::json ratios = nlohmann::json::object();
  for (const GemmShape& s : shapes)
    for (const std::string& v : variants) {
      double composite_window = 0;
      for (const std::string& st : strategies) {
        const std::string why = gemm_strategy_fit(ctx.platform.config(), s, st, v);
        const std::string shape =
            std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
        if (!why.empty()) {
          res.points.push_back({{"M", s.m},
                                {"K", s.k},
                                {"N", s.n},
                                {"variant", v},
                                {"strategy", st},
                                {"skipped", true},
                                {"reason", why}});
          t.rows.push_back({std::to_string(s.m), std::to_string(s.k), std::to_string(s.n), v, st,
                            "skipped: does not fit TCM"});
          continue;
        }
        nlohmann::json pt = run_gemm_strategy_point(rt, s, st, v, sync);
        windows.stamp(pt);
        const double w = pt["window_ns"].get<double>();
        if (st == "composite") composite_window = w;
        std::string vs = "-";
        if (composite_window > 0) {
          pt["window_vs_composite"] = w / composite_window;
          vs = fmt(w / composite_window, 2) + "x";
          ratios[shape + " " + v][st] = w / composite_window;
        }
        t.rows.push_back({std::to_string(s.m), std::to_string(s.k), std::to_string(s.n), v, st,
                          fmt(w, 1), fmt(pt["tflops_per_pe"], 3),
                          fmt(100.0 * pt["mac_util"].get<double>(), 1) + "%",
                          std::to_string(pt["commands"].get<uint64_t>()), fmt(pt["dispatch_ns"], 1),
                          fmt(pt["cost_per_command_ns"], 3),
                          fmt(100.0 * pt["cpu_bound_share"].get<double>(), 1) + "%",
                          fmt(100.0 * pt["cpu_starved_share"].get<double>(), 1) + "%",
                          fmt(pt["gemm_busy_ns"], 1), fmt(pt["gemm_idle_other_ns"], 1), vs});
        res.points.push_back(pt);
      }
    }
  res.metrics["sync"] = sync_text;
  res.metrics["cost_model"] = {
      {"fixed_per_single_op_cmd_cycles", cm.fixed_per_single_op_cmd_cycles},
      {"fixed_per_composite_cycles", cm.fixed_per_composite_cycles},
      {"per_byte_cycles", cm.per_byte_cycles}};
  res.metrics["window_vs_composite"] = ratios;
  res.tables.push_back(t);
  return res;
}

}  // namespace kb
