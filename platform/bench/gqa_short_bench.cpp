#include "platform/bench/gqa_short_bench.h"

#include "models/common/errors.h"
#include "platform/analytic/attention_model.h"
#include "platform/bench/gqa_long_bench.h"
#include "platform/config/topology_config.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {

std::vector<ParamSpec> GqaShortBench::params() const {
  return {{"kv_per_cube", "1,2,4,8", "KV heads each cube owns (comma-separated for several)"},
          {"S_kv", "4096", "KV positions (any: the PEs of a head hold near-equal blocks)"},
          {"kv_heads", "8", "KV heads (Llama-70B: 8)"},
          {"heads", "64", "query heads (G = heads / kv_heads per KV head, folded into M)"},
          {"d_head", "128", "head dimension"},
          {"tile", "64", "KV positions per tile"},
          {"score_std", "10", "data mode: standard deviation of the scaled logits"},
          {"variant", "opt2", "decode loop of every PE: opt1 | opt2 | opt3"},
          {"kv_layout", "tiled", "KV in HBM: tiled (native GEMM blocks) | rowmajor"}};
}

// run_decode_heads' point with the cubes' share of the heads (one point's
// metrics are the point).
std::vector<std::string> GqaShortBench::point_fields() const {
  return with_fields(decode_heads_point_fields(),
                     {PointWindows::kField, "kv_per_cube", "cubes", "pes_per_head"});
}

BenchResult GqaShortBench::run(BenchContext& ctx) {
  const BenchParams& p = ctx.params;
  const TopologyConfig& cfg = ctx.platform.config();
  DecodeShape shape;
  const long long kv_heads = p.integer_within("kv_heads", kMaxHeads);
  const long long heads = p.integer_within("heads", kMaxHeads);
  shape.d_head = p.integer_within("d_head", kMaxHeads);
  shape.s_kv = p.integer_within("S_kv", kMaxPositions);
  shape.tile = p.integer_within("tile", kMaxTile);
  shape.score_std = p.number("score_std");
  shape.variant = p.str("variant");
  shape.tiled_kv = parse_kv_layout(p);
  if (kv_heads <= 0 || heads <= 0 || shape.d_head <= 0 || shape.s_kv <= 0 || shape.tile <= 0 ||
      kv_heads > 4096)
    throw UsageError("gqa-short: kv_heads, heads, d_head, S_kv and tile must be > 0");
  if (heads % kv_heads != 0)
    throw UsageError("gqa-short: heads=" + std::to_string(heads) +
                     " is not a multiple of kv_heads=" + std::to_string(kv_heads));
  if (!(shape.score_std > 0 && shape.score_std <= 1000))
    throw UsageError("--param score_std must be in (0, 1000]");
  if (shape.variant != "opt1" && shape.variant != "opt2" && shape.variant != "opt3")
    throw UsageError("--param variant=" + shape.variant + ": expected opt1, opt2 or opt3");
  shape.g = heads / kv_heads;
  check_tiled_kv(shape, cfg, "gqa-short");
  const unsigned pes = cfg.cube.pes, cps = cfg.cubes_per_sip();
  const unsigned total_cubes = cps * cfg.system.n_sips;

  // Every point is checked before the first one runs.
  std::vector<std::pair<long long, std::vector<HeadPlan>>> points;
  for (const long long n : p.integers("kv_per_cube")) {
    if (n <= 0 || n > pes || pes % n != 0)
      throw UsageError("gqa-short: kv_per_cube=" + std::to_string(n) + " must divide the " +
                       std::to_string(pes) + " PEs of a cube");
    if (kv_heads % n != 0)
      throw UsageError("gqa-short: kv_per_cube=" + std::to_string(n) +
                       " does not divide kv_heads=" + std::to_string(kv_heads));
    if (kv_heads / n > total_cubes)
      throw UsageError("gqa-short: kv_heads=" + std::to_string(kv_heads) + " at " +
                       std::to_string(n) + " per cube need " + std::to_string(kv_heads / n) +
                       " cubes; the platform has " + std::to_string(total_cubes));
    const unsigned per_head = pes / static_cast<unsigned>(n);
    if (shape.s_kv < per_head)
      throw UsageError("gqa-short: S_kv=" + std::to_string(shape.s_kv) + " leaves one of the " +
                       std::to_string(per_head) + " PEs per head without KV positions");
    std::vector<HeadPlan> plans;
    for (long long h = 0; h < kv_heads; ++h) {
      const auto cube = static_cast<unsigned>(h / n);
      const auto slot = static_cast<unsigned>(h % n);
      plans.push_back({{cube / cps, cube % cps, 1, slot * per_head, per_head},
                       {fw::CubeSplit::kSp, fw::PeSplit::kSp},
                       fw::ReduceShape::kChain});
    }
    points.emplace_back(n, plans);
  }
  if (points.empty()) throw UsageError("--param kv_per_cube is empty");

  HostRuntime rt(ctx.platform);
  PointWindows windows(ctx.platform);
  BenchResult res;
  SummaryTable table{"gqa-short: S_kv=" + std::to_string(shape.s_kv) + ", " +
                         std::to_string(kv_heads) + " KV heads x G=" + std::to_string(shape.g) +
                         ", chain reduce inside each cube",
                     {"kv_per_cube", "cubes", "PEs/head", "latency_us", "model_us", "meas/model",
                      "KV MiB/cube", "ipcq_ops", "dma_ops", "max_abs_err"},
                     {}};
  for (const auto& [n, plans] : points) {
    nlohmann::json pt = run_decode_heads(rt, plans, shape, ctx.data_mode);
    windows.stamp(pt);
    pt["kv_per_cube"] = n;
    pt["cubes"] = kv_heads / n;
    pt["pes_per_head"] = plans.front().at.pes;
    // A cube holds the KV of all its heads.
    pt["kv_bytes_per_cube"] = pt["kv_bytes_per_cube"].get<uint64_t>() * static_cast<uint64_t>(n);
    table.rows.push_back(
        {std::to_string(n), std::to_string(kv_heads / n), std::to_string(plans.front().at.pes),
         fmt(pt["latency_ns"].get<double>() / 1e3, 2), fmt(pt["model_ns"].get<double>() / 1e3, 2),
         fmt(pt["measured_over_model"], 4),
         fmt(pt["kv_bytes_per_cube"].get<double>() / (1 << 20), 2),
         std::to_string(pt["ipcq_ops"].get<long long>()),
         std::to_string(pt["dma_ops"].get<long long>()),
         pt.contains("max_abs_err") ? fmt(pt["max_abs_err"], 5) : "-"});
    res.points.push_back(pt);
  }
  res.tables.push_back(table);
  if (res.points.size() == 1) res.metrics = res.points[0];
  return res;
}

}  // namespace kb
