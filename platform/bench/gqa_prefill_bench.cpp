#include "platform/bench/gqa_prefill_bench.h"

#include <chrono>
#include <cmath>

#include "firmware/kernels/attention_ring_prefill.h"
#include "models/common/errors.h"
#include "models/tcm/tcm_arena.h"
#include "platform/analytic/attention_model.h"
#include "platform/bench/activity_counters.h"
#include "platform/bench/attention_reference.h"
#include "platform/config/topology_config.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {

std::vector<ParamSpec> GqaPrefillBench::params() const {
  return {{"S", "8192", "KV positions, the query chunk included (comma-separated for several)"},
          {"T_q", "128", "query tokens of the chunk (positions S-T_q .. S-1), at most S/C"},
          {"C", "8", "cubes = query heads of the KV head (one per cube)"},
          {"tile", "64", "KV positions per ring tile; S/C must be a multiple"},
          {"d_head", "128", "head dimension"},
          {"cube_start", "0", "first cube of the group (SIP 0)"},
          {"score_std", "10", "data mode: standard deviation of the scaled logits"}};
}

namespace {

// The cubes cube_start .. cube_start+C-1 in a ring whose neighbours are one
// cube link apart where the grid allows: row by row, every other row reversed.
std::vector<unsigned> snake(unsigned start, unsigned count, unsigned cubes_x) {
  std::vector<unsigned> order;
  for (unsigned row0 = start; row0 < start + count; row0 += cubes_x) {
    std::vector<unsigned> row;
    for (unsigned c = row0; c < std::min(start + count, row0 + cubes_x); ++c) row.push_back(c);
    if (((row0 - start) / cubes_x) % 2 == 1) std::reverse(row.begin(), row.end());
    order.insert(order.end(), row.begin(), row.end());
  }
  return order;
}

}  // namespace

// A point's fields, data mode's max_abs_err included (one point's metrics are the point).
std::vector<std::string> GqaPrefillBench::point_fields() const {
  return {"S",
          "T_q",
          "C",
          "tile",
          "latency_ns",
          "ipcq_ops",
          "dma_ops",
          "cube_link_bytes",
          "peak_tcm_bytes",
          "wall_s",
          "model_ns",
          "measured_over_model",
          "model",
          "max_abs_err",
          PointWindows::kField};
}

BenchResult GqaPrefillBench::run(BenchContext& ctx) {
  const BenchParams& p = ctx.params;
  Platform& platform = ctx.platform;
  const TopologyConfig& cfg = platform.config();
  const long long Tq = p.integer_within("T_q", kMaxPositions), C = p.integer_within("C", kMaxHeads);
  const long long T = p.integer_within("tile", kMaxTile);
  const long long d = p.integer_within("d_head", kMaxHeads);
  const long long start = p.integer_within("cube_start", kMaxHeads);
  const double score_std = p.number("score_std");
  if (Tq <= 0 || C <= 0 || T <= 0 || d <= 0 || start < 0)
    throw UsageError("gqa-prefill: T_q, C, tile and d_head must be > 0, cube_start >= 0");
  if (!(score_std > 0 && score_std <= 1000))
    throw UsageError("--param score_std must be in (0, 1000]");
  if (start + C > cfg.cubes_per_sip())
    throw UsageError("gqa-prefill: cubes " + std::to_string(start) + ".." +
                     std::to_string(start + C - 1) + " are more than the " +
                     std::to_string(cfg.cubes_per_sip()) + " cubes of a SIP");
  std::vector<long long> sizes;
  for (const long long S : p.integers("S")) {
    if (S > kMaxPositions || S < -kMaxPositions)
      throw UsageError("--param S=" + std::to_string(S) + ": out of range, at most " +
                       std::to_string(kMaxPositions));
    if (S <= 0) throw UsageError("--param S=" + std::to_string(S) + ": expected a positive size");
    if (S % (C * T) != 0)
      throw UsageError("gqa-prefill: S=" + std::to_string(S) + " is not a multiple of C x tile = " +
                       std::to_string(C * T) + ": every cube's block must be whole tiles");
    if (Tq > S / C)
      throw UsageError("gqa-prefill: T_q=" + std::to_string(Tq) + " is more than S/C=" +
                       std::to_string(S / C) + " (the chunk must fit in the last cube's block)");
    sizes.push_back(S);
  }
  if (sizes.empty()) throw UsageError("--param S is empty");
  // TCM per rank: Q, (m, l, O), two KV tiles, and a step's scratch.
  const auto need =
      static_cast<uint64_t>(Tq * d * 2 + Tq * (d + 2) * 4 + int64_t{2} * 2 * d * T * 2 +
                            Tq * T * (4 + 2) + Tq * 8 * 4 + Tq * d * 4) +
      uint64_t{64} * 32;
  if (need > tcm_arena_capacity(cfg))
    throw UsageError("gqa-prefill: T_q=" + std::to_string(Tq) + " and tile=" + std::to_string(T) +
                     " need about " + std::to_string(static_cast<long long>(need)) +
                     " bytes of TCM per rank; the arena has " +
                     std::to_string(static_cast<long long>(tcm_arena_capacity(cfg))));

  const std::vector<unsigned> cubes =
      snake(static_cast<unsigned>(start), static_cast<unsigned>(C), cfg.sip.cubes_x);
  HostRuntime rt(platform);
  PointWindows windows(platform);
  BenchResult res;
  SummaryTable table{"gqa-prefill: ring KV over " + std::to_string(C) + " cubes, T_q=" +
                         std::to_string(Tq) + ", tile=" + std::to_string(T) + ", causal",
                     {"S", "latency_us", "model_us", "meas/model", "ipcq_ops", "dma_ops",
                      "cube_link_MB", "peak_TCM_KiB", "wall_s", "max_abs_err"},
                     {}};
  for (long long S : sizes) {
    fw::RingPrefillArgs a;
    a.s = S;
    a.tile = T;
    a.scale = 1.0 / std::sqrt(static_cast<double>(d));
    const long long block = S / C;
    AttnData in;
    if (ctx.data_mode) in = random_attention_inputs(C * Tq, d, S, score_std, 0x70726566ull);
    for (long long c = 0; c < C; ++c) {
      const PeId pe{0, cubes[static_cast<size_t>(c)], 0};
      a.ranks.push_back({pe.sip, pe.cube, pe.pe});
      a.q.push_back(rt.alloc_hbm(pe, {Tq, d}));
      a.kt.push_back(rt.alloc_hbm(pe, {d, block}));
      a.v.push_back(rt.alloc_hbm(pe, {block, d}));
      a.out.push_back(rt.alloc_hbm(pe, {Tq, d}, DType::kFp32));
      if (ctx.data_mode) {
        rt.write(a.q.back(), rows(in.q, d, c * Tq, Tq));
        rt.write(a.kt.back(), columns(in.kt, d, S, c * block, block));
        rt.write(a.v.back(), rows(in.v, d, c * block, block));
      }
    }
    std::vector<PeId> pes;
    for (const PeAddr& r : a.ranks) {
      pes.push_back({r.sip, r.cube, r.pe});
      platform.pe(pes.back()).tcm.arena().reset_high_water();
    }
    const ActivityCounters before = ActivityCounters::take(platform);
    const double t0 = platform.now_ns();
    double t_end = t0;
    const auto wall0 = std::chrono::steady_clock::now();
    rt.launch_on(pes, [&a, &t_end](fw::Tl& tl) {
      fw::attention_ring_prefill(tl, a);
      t_end = std::max(t_end, tl.now_ns());
    });
    rt.run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const ActivityCounters act = ActivityCounters::take(platform).since(before);
    uint64_t peak = 0;
    for (const PeId& pe : pes) peak = std::max(peak, platform.pe(pe).tcm.arena().high_water());
    nlohmann::json pt = {{"S", S},
                         {"T_q", Tq},
                         {"C", C},
                         {"tile", T},
                         {"latency_ns", t_end - t0},
                         {"ipcq_ops", act.ipcq_ops},
                         {"dma_ops", act.dma_ops()},
                         {"cube_link_bytes", act.traffic.cube_link_bytes},
                         {"peak_tcm_bytes", peak},
                         {"wall_s", wall}};
    const AttentionModel model = ring_prefill_model(cfg, S, Tq, T, d, cubes);
    pt["model_ns"] = model.total_ns;
    pt["measured_over_model"] = (t_end - t0) / model.total_ns;
    pt["model"] = model.to_json();
    std::string err = "-";
    if (ctx.data_mode) {
      double worst = 0;
      AttnData head = in;  // K and V copied once; each head's own Q below
      head.rows = Tq;
      for (long long c = 0; c < C; ++c) {
        head.q = rows(in.q, d, c * Tq, Tq);
        const double e =
            attention_max_error(head, rt.read(a.out[static_cast<size_t>(c)]), a.scale, S - Tq);
        if (std::isnan(e) || e > worst) worst = e;
      }
      pt["max_abs_err"] = worst;
      err = fmt(worst, 5);
    }
    table.rows.push_back({std::to_string(S), fmt((t_end - t0) / 1e3, 2),
                          fmt(model.total_ns / 1e3, 2), fmt(pt["measured_over_model"], 4),
                          std::to_string(static_cast<long long>(act.ipcq_ops)),
                          std::to_string(static_cast<long long>(act.dma_ops())),
                          fmt(static_cast<double>(act.traffic.cube_link_bytes) / 1e6, 3),
                          fmt(static_cast<double>(peak) / 1024, 1), fmt(wall, 2), err});
    windows.stamp(pt);
    res.points.push_back(pt);
    rt.release_all();
  }
  res.tables.push_back(table);
  if (res.points.size() == 1) res.metrics = res.points[0];
  return res;
}

}  // namespace kb
