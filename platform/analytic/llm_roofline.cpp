#include "platform/analytic/llm_roofline.h"

#include <algorithm>
#include <cmath>

#include "platform/analytic/allreduce_model.h"

namespace kb {

namespace {

// Native GEMM tiles of an [M, K] x [K, N] product: the engine spends a whole
// native tile's time on each, however little of it the shape fills.
double gemm_tiles(double M, double K, double N, const TopologyConfig& cfg) {
  const GemmConfig& g = cfg.pe.gemm;
  return std::ceil(M / g.tile_m) * std::ceil(K / g.tile_k) * std::ceil(N / g.tile_n);
}

}  // namespace

StepBound step_bound(const TpMapping& map, const ModelSpec& model, const LlmRun& run,
                     const TopologyConfig& cfg) {
  StepBound b;
  const auto e = static_cast<double>(dtype_bytes(model.dtype));
  const auto B = static_cast<double>(run.batch), H = static_cast<double>(model.hidden),
             d = static_cast<double>(model.d_head), G = static_cast<double>(model.group()),
             L = static_cast<double>(run.layers);
  // Rows through the linear layers, and through the LM head.
  const auto N = static_cast<double>(stream_rows(run));
  const double bw = cfg.pe_hbm_bandwidth_gbps(), peak = cfg.pe.gemm.peak_tflops * 1000.0;
  const GemmConfig& g = cfg.pe.gemm;
  const double native_tile_ns = 2.0 * g.tile_m * g.tile_k * g.tile_n / peak;
  for (const RankPlan& r : map.ranks()) {
    const auto nq = static_cast<double>(r.qkv.count), no = static_cast<double>(r.o.count),
               nf = static_cast<double>(r.ffn.count), nv = static_cast<double>(r.vocab.count),
               n = static_cast<double>(r.kv.count);
    // Decode reads its KV block; a prefill writes it.
    const auto kv_bytes = static_cast<uint64_t>(L * B * 2 * n * d * e);
    const uint64_t bytes = r.weight_bytes + kv_bytes;
    double attn_flops = 0, tiles = 0;
    if (run.prefill) {
      // Causal: query position p of the rank's block attends to p + 1 keys
      // (scores and P·V, G heads); counted as flops at peak, a lower bound
      // of its tiles' time.
      const auto first = static_cast<double>(r.kv.first);
      const double keys = n * first + n * (n + 1) / 2;
      attn_flops = 4 * B * G * keys * d;
    } else {
      attn_flops = 4 * B * G * n * d;
      // Attention: per sequence, the scores (G x d x T) and P·V (G x T x d)
      // of each KV tile of the rank's block.
      const double T = static_cast<double>(run.tile), full = std::floor(n / T), rest = n - full * T;
      double attn_tiles = full * (gemm_tiles(G, d, T, cfg) + gemm_tiles(G, T, d, cfg));
      if (rest > 0) attn_tiles += gemm_tiles(G, d, rest, cfg) + gemm_tiles(G, rest, d, cfg);
      tiles += L * B * attn_tiles;
    }
    const double flops =
        L * (2 * N * (H * nq + no * H + 3 * H * nf) + 2 * N * (G + 2) * d * d + attn_flops) +
        (run.has_head ? 2 * B * H * nv : 0);
    tiles += L * (gemm_tiles(N, H, nq, cfg) + gemm_tiles(N * (G + 2), d, d, cfg) +
                  gemm_tiles(N, no, H, cfg) + 2 * gemm_tiles(N, H, nf, cfg) +
                  gemm_tiles(N, nf, H, cfg)) +
             (run.has_head ? gemm_tiles(B, H, nv, cfg) : 0);
    const double tile_ns = tiles * native_tile_ns + (run.prefill ? L * attn_flops / peak : 0);
    b.gemm_tile_ns = std::max(b.gemm_tile_ns, tile_ns);
    b.total_hbm_bytes += bytes;
    b.bytes = std::max(b.bytes, bytes);
    b.flops = std::max(b.flops, flops);
    b.hbm_ns = std::max(b.hbm_ns, static_cast<double>(bytes) / bw);
    b.compute_ns = std::max(b.compute_ns, flops / peak);
  }
  b.bound_ns = std::max({b.hbm_ns, b.compute_ns, b.gemm_tile_ns});
  // The step's collectives (allreduce_model.h): the all-reduce of the
  // partial sums (in TCM or HBM, where the mapping keeps them) over every
  // rank, and the first group's QKV gather.
  const auto stream = static_cast<uint64_t>(N * H) * 4;
  const RingSpace space = map.residency().partial_in_tcm ? RingSpace::kTcm : RingSpace::kHbm;
  b.allreduce_model_ns = (map.allreduce_per_cube() > 0
                              ? cube_allreduce_model(cfg, map.order(), map.allreduce_per_cube(),
                                                     space, stream, map.allreduce_across())
                              : tree_allreduce_model(cfg, map.order(), space, stream))
                             .total_ns;
  if (map.sharded_residual()) {
    b.reduce_scatter_model_ns =
        cube_half_model(cfg, map.order(), map.allreduce_per_cube(), space, stream, true).total_ns;
    b.norm_gather_model_ns =
        cube_half_model(cfg, map.order(), map.allreduce_per_cube(), RingSpace::kHbm,
                        static_cast<uint64_t>(N * H) * dtype_bytes(model.dtype), false)
            .total_ns;
  }
  const std::vector<PeAddr> group(map.order().begin(), map.order().begin() + map.ranks_per_group());
  b.qkv_gather_model_ns =
      list_allreduce_model(cfg, group, RingSpace::kTcm,
                           static_cast<uint64_t>(N) * map.shape().qkv_width() * 4)
          .total_ns;
  return b;
}

StepBound pipeline_bound(const std::vector<std::vector<StepBound>>& stage_micro) {
  StepBound b = stage_micro.at(0).at(0);
  double fill = 0, busiest = -1;
  b.total_hbm_bytes = 0;
  for (const std::vector<StepBound>& stage : stage_micro) {
    fill += stage.at(0).bound_ns;
    StepBound sum;
    for (const StepBound& m : stage) {
      sum.bytes += m.bytes;
      sum.flops += m.flops;
      sum.hbm_ns += m.hbm_ns;
      sum.compute_ns += m.compute_ns;
      sum.gemm_tile_ns += m.gemm_tile_ns;
      sum.bound_ns += m.bound_ns;
      b.total_hbm_bytes += m.total_hbm_bytes;
    }
    if (sum.bound_ns > busiest) {
      busiest = sum.bound_ns;
      b.bytes = sum.bytes;
      b.flops = sum.flops;
      b.hbm_ns = sum.hbm_ns;
      b.compute_ns = sum.compute_ns;
      b.gemm_tile_ns = sum.gemm_tile_ns;
    }
  }
  b.bound_ns = std::max(busiest, fill);
  return b;
}

nlohmann::json StepBound::to_json() const {
  return {{"busiest_rank_hbm_bytes", bytes},
          {"busiest_rank_flops", flops},
          {"hbm_ns", hbm_ns},
          {"compute_ns", compute_ns},
          {"gemm_tile_ns", gemm_tile_ns},
          {"bound_ns", bound_ns},
          {"allreduce_model_ns", allreduce_model_ns},
          {"qkv_gather_model_ns", qkv_gather_model_ns},
          {"reduce_scatter_model_ns", reduce_scatter_model_ns},
          {"norm_gather_model_ns", norm_gather_model_ns},
          {"total_hbm_bytes", total_hbm_bytes}};
}

}  // namespace kb
