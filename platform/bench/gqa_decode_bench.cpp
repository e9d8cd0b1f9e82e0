#include "platform/bench/gqa_decode_bench.h"

#include <cmath>
#include <sstream>

#include "firmware/kernels/attention_decode.h"
#include "models/common/errors.h"
#include "models/trace/op_log.h"
#include "platform/analytic/attention_model.h"
#include "platform/bench/attention_reference.h"
#include "platform/fabric/pe.h"
#include "platform/output/energy_report.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "platform/util/size_text.h"

namespace kb {

std::vector<ParamSpec> GqaDecodeBench::params() const {
  return {{"variant", "opt2", "opt1 | opt2 | opt3 (comma-separated to compare several)"},
          {"S_kv", "1024", "KV positions (any; a short last tile when not a multiple of tile)"},
          {"tile", "64", "KV positions per tile"},
          {"heads", "64", "query heads"},
          {"kv_heads", "8", "KV heads (G = heads / kv_heads query heads per KV head)"},
          {"d_head", "128", "head dimension"},
          {"score_std", "1",
           "data mode: standard deviation of the scaled scores q.k/sqrt(d) "
           "(10 spreads them over about +-30)"}};
}

namespace {

// --param variant: opt1, opt2 and/or opt3, comma-separated.
std::vector<std::string> parse_variants(const BenchParams& p) {
  std::vector<std::string> variants;
  std::stringstream ss(p.str("variant"));
  std::string v;
  while (std::getline(ss, v, ','))
    if (v == "opt1" || v == "opt2" || v == "opt3")
      variants.push_back(v);
    else
      throw UsageError("--param variant=" + v + ": expected opt1, opt2 or opt3");
  return variants;
}

// Data mode: random fp16 values for q, k and v, written to the kernel's inputs.
AttnData write_random_inputs(HostRuntime& rt, const fw::DecodeArgs& a, double score_std) {
  AttnData in = random_attention_inputs(a.q.shape()[0], a.q.shape()[1], a.kt.shape()[1], score_std,
                                        0x61747465ull);
  rt.write(a.q, in.q);
  rt.write(a.kt, in.kt);
  rt.write(a.v, in.v);
  return in;
}

// opt2, K before V: while a #2's prologue runs, no V-tile DMA may start.
bool k_before_v_holds(const std::vector<OpRecord>& recs, const fw::DecodeTrace& trace,
                      const fw::DecodeArgs& a) {
  bool holds = true;
  const uint64_t v_lo = a.v.addr(), v_hi = v_lo + a.v.h.bytes();
  for (const auto& h : trace.composite2) {
    double prologue_end = h->issued_ns, gemm_start = h->done_ns;
    for (const auto& r : recs)
      if (r.pe == "system.sip0.cube0.pe0" && r.cmd_id == h->id) {
        if (r.tile.rfind("prologue", 0) == 0) prologue_end = std::max(prologue_end, r.t_end_ns);
        if (r.stage == "GEMM") gemm_start = std::min(gemm_start, r.t_start_ns);
      }
    for (const auto& r : recs)
      if (r.pe == "system.sip0.cube0.pe0" && r.stage == "DMA_READ" && r.addr >= v_lo &&
          r.addr < v_hi && r.t_start_ns >= h->issued_ns && r.t_start_ns < prologue_end)
        holds = false;
    (void)gemm_start;
  }
  return holds;
}

}  // namespace

// A point's fields, data mode's max_abs_err included (one point's metrics are the point).
std::vector<std::string> GqaDecodeBench::point_fields() const {
  return {"variant",
          "S_kv",
          "tile",
          "G",
          "d_head",
          "latency_ns",
          "dispatch_ns_per_tile",
          "commands_per_tile",
          "k_before_v",
          "energy_per_step_pj",
          "energy",
          "model_ns",
          "measured_over_model",
          "model",
          "max_abs_err",
          PointWindows::kField};
}

BenchResult GqaDecodeBench::run(BenchContext& ctx) {
  const BenchParams& p = ctx.params;
  const int64_t S = p.integer_within("S_kv", kMaxPositions), T = p.integer_within("tile", kMaxTile);
  const int64_t heads = p.integer_within("heads", kMaxHeads);
  const int64_t kv = p.integer_within("kv_heads", kMaxHeads),
                d = p.integer_within("d_head", kMaxHeads);
  const double score_std = p.number("score_std");
  if (score_std <= 0) throw UsageError("--param score_std must be > 0");
  if (S <= 0 || T <= 0 || heads <= 0 || kv <= 0 || d <= 0)
    throw UsageError("gqa-decode: S_kv, tile, heads, kv_heads and d_head must be > 0");
  if (heads % kv != 0)
    throw UsageError("gqa-decode: heads=" + std::to_string(heads) +
                     " is not a multiple of kv_heads=" + std::to_string(kv));
  const int64_t G = heads / kv;
  const TopologyConfig& cfg = ctx.platform.config();
  // TCM: Q, 2 score buffers, 2 scratch sets, m, l, O (+ alignment).
  const uint64_t need = static_cast<uint64_t>(G * d * 2 + 2 * G * T * 4 +
                                              2 * (G * T * 2 + 4 * G * 4) + 2 * G * 4 + G * d * 4) +
                        uint64_t{64} * 16;
  if (need > tcm_arena_capacity(cfg))
    throw UsageError("gqa-decode: tile=" + std::to_string(T) + " needs " + std::to_string(need) +
                     " bytes of TCM; the arena has " + std::to_string(tcm_arena_capacity(cfg)) +
                     " (TCM " + std::to_string(cfg.pe.tcm.size_bytes) +
                     " minus staging buffers and IPCQ rings)");
  const std::vector<std::string> variants = parse_variants(p);

  HostRuntime rt(ctx.platform);
  PointWindows windows(ctx.platform);
  const PeId pe{0, 0, 0};
  BenchResult res;
  SummaryTable table{
      "gqa-decode on sip0.cube0.pe0: G=" + std::to_string(G) + ", d=" + std::to_string(d) +
          ", S_kv=" + std::to_string(S) + ", tile=" + std::to_string(T),
      {"variant", "latency_ns", "model_ns", "meas/model", "dispatch_ns/tile", "commands/tile",
       "k_before_v", "energy/step", EnergyReport::kDominantHeader, "max_abs_err"},
      {}};
  for (const std::string& variant : variants) {
    fw::DecodeArgs a;
    a.q = rt.alloc_hbm(pe, {G, d});
    a.kt = rt.alloc_hbm(pe, {d, S});
    a.v = rt.alloc_hbm(pe, {S, d});
    a.out = rt.alloc_hbm(pe, {G, d}, DType::kFp32);
    a.tile = T;
    a.scale = 1.0 / std::sqrt(static_cast<double>(d));
    a.variant = variant;
    AttnData in;
    if (ctx.data_mode) in = write_random_inputs(rt, a, score_std);
    fw::DecodeTrace trace;
    double t_start = 0, t_end = 0;
    const std::string pe_path = "system.sip0.cube0.pe0";
    const EnergySnapshot pe_before = ctx.platform.energy(pe_path);
    ctx.platform.name_next_run("gqa-decode " + variant);
    rt.launch([&](fw::Tl& tl) {
      t_start = tl.now_ns();
      fw::attention_decode(tl, a, &trace);
      t_end = tl.now_ns();
    });
    rt.run();
    // The decode step's energy: what the PE's blocks spent, static over its latency.
    const EnergyReport energy =
        EnergyReport::between(pe_before, ctx.platform.energy(pe_path), t_end - t_start);

    // Dispatch and commands per KV tile, averaged over the merge tiles (j >= 1).
    double dispatch = 0;
    size_t commands = 0, tiles = 0;
    for (size_t j = 1; j < trace.per_tile.size(); ++j, ++tiles)
      for (const auto& h : trace.per_tile[j]) {
        dispatch += h->issued_ns - h->dispatch_start_ns;
        ++commands;
      }
    const bool k_before_v =
        variant != "opt2" || k_before_v_holds(ctx.platform.op_log().records(), trace, a);
    nlohmann::json pt = {{"variant", variant},
                         {"S_kv", S},
                         {"tile", T},
                         {"G", G},
                         {"d_head", d},
                         {"latency_ns", t_end - t_start},
                         {"dispatch_ns_per_tile", tiles ? dispatch / tiles : 0.0},
                         {"commands_per_tile", tiles ? static_cast<double>(commands) / tiles : 0.0},
                         {"k_before_v", k_before_v},
                         {"energy_per_step_pj", energy.total_pj()},
                         {"energy", energy.to_json()}};
    const AttentionModel model = gqa_decode_model(cfg, G, d, S, T, variant);
    pt["model_ns"] = model.total_ns;
    pt["measured_over_model"] = (t_end - t_start) / model.total_ns;
    pt["model"] = model.to_json();
    std::string err = "-";
    if (ctx.data_mode) {
      const double e = attention_max_error(in, rt.read(a.out), a.scale);
      pt["max_abs_err"] = e;
      err = fmt(e, 5);
    }
    table.rows.push_back({variant, fmt(pt["latency_ns"], 1), fmt(model.total_ns, 1),
                          fmt(pt["measured_over_model"], 4), fmt(pt["dispatch_ns_per_tile"], 2),
                          fmt(pt["commands_per_tile"], 1), k_before_v ? "yes" : "NO",
                          energy_text(energy.total_pj() * 1e-12), energy.dominant(), err});
    windows.stamp(pt);
    res.points.push_back(pt);
  }
  res.tables.push_back(table);
  if (res.points.size() == 1) res.metrics = res.points[0];
  return res;
}

}  // namespace kb
