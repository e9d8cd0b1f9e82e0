#include "platform/bench/gqa_long_bench.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <sstream>

#include "firmware/kernels/attention_long_decode.h"
#include "models/common/errors.h"
#include "platform/analytic/attention_model.h"
#include "platform/bench/activity_counters.h"
#include "platform/bench/attention_reference.h"
#include "platform/bench/progress.h"
#include "platform/config/topology_config.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {

namespace {

// The TCM a rank needs (bytes, generous): Q rows, the sweep buffers, its
// packed state, a packed state per child and merge scratch.
uint64_t rank_tcm_bytes(int64_t G, int64_t d, int64_t T, unsigned C, unsigned P) {
  unsigned children = P + 1;
  for (unsigned c = 1; c < C; c *= 2) ++children;
  const int64_t state = G * (d + 2) * 4;
  return static_cast<uint64_t>(G * d * 2 + 2 * G * T * 4 + 2 * (G * T * 2 + 4 * G * 4) +
                               (1 + children) * state + 8 * G * 4) +
         uint64_t{64} * (24 + 4 * children);
}

}  // namespace

LongDecodeSpec resolve_long_decode(const LongDecodeSpec& spec, const TopologyConfig& cfg) {
  LongDecodeSpec s = spec;
  const fw::DecodeCase mode = [&] {
    try {
      return fw::decode_case(s.case_no);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--param case: ") + e.what());
    }
  }();
  if (s.s_kv <= 0 || s.tile <= 0 || s.heads <= 0 || s.kv_heads <= 0 || s.d_head <= 0)
    throw UsageError("gqa-long: S_kv, tile, heads, kv_heads and d_head must be > 0");
  if (s.heads % s.kv_heads != 0)
    throw UsageError("gqa-long: heads=" + std::to_string(s.heads) +
                     " is not a multiple of kv_heads=" + std::to_string(s.kv_heads));
  const unsigned cps = cfg.cubes_per_sip(), total_cubes = cps * cfg.system.n_sips;
  if (s.pes == 0) s.pes = cfg.cube.pes;
  if (s.cubes == 0) {
    for (unsigned c : {8u, 4u, 2u, 1u})
      if (c <= cps && static_cast<uint64_t>(c) * static_cast<uint64_t>(s.kv_heads) <= total_cubes) {
        s.cubes = c;
        break;
      }
    if (s.cubes == 0)
      throw UsageError("gqa-long: kv_heads=" + std::to_string(s.kv_heads) +
                       " need a cube each, the platform has " + std::to_string(total_cubes) +
                       " cubes");
  }
  const unsigned C = s.cubes, P = s.pes;
  if (P > cfg.cube.pes || C > cps)
    throw UsageError("gqa-long: C x P = " + std::to_string(C) + " x " + std::to_string(P) +
                     " is larger than the platform: a group fits in one SIP of " +
                     std::to_string(cps) + " cubes x " + std::to_string(cfg.cube.pes) + " PEs");
  if (static_cast<uint64_t>(C) * static_cast<uint64_t>(s.kv_heads) > total_cubes)
    throw UsageError("gqa-long: " + std::to_string(s.kv_heads) + " KV heads x C=" +
                     std::to_string(C) + " cubes = " + std::to_string(C * s.kv_heads) +
                     " cubes; the platform has " + std::to_string(total_cubes) +
                     " (lower kv_heads or C, or use topologies/llama70b_4sip.yaml)");
  const int64_t G = s.heads / s.kv_heads;
  if (mode.pe == fw::PeSplit::kTp && G % P != 0)
    throw UsageError("gqa-long: case " + std::to_string(s.case_no) + " (PE-TP) splits the G=" +
                     std::to_string(G) + " query heads of a KV head over P=" + std::to_string(P) +
                     " PEs; P must divide G");
  const int64_t ranks = int64_t{mode.cube == fw::CubeSplit::kSp ? C : 1} * P;
  if (s.s_kv < ranks)
    throw UsageError("gqa-long: S_kv=" + std::to_string(s.s_kv) +
                     " leaves a rank without KV positions: " +
                     (mode.cube == fw::CubeSplit::kSp ? "C x " : std::string()) +
                     "P = " + std::to_string(ranks) + " blocks need at least one position each");
  if (s.groups.empty()) {
    for (int64_t h = 0; h < s.kv_heads; ++h) s.groups.push_back(static_cast<unsigned>(h) * C);
  } else if (static_cast<int64_t>(s.groups.size()) != s.kv_heads) {
    throw UsageError("gqa-long: --param groups lists " +
                     std::to_string(static_cast<int64_t>(s.groups.size())) +
                     " first cubes for kv_heads=" + std::to_string(s.kv_heads));
  }
  for (size_t h = 0; h < s.groups.size(); ++h) {
    const unsigned g = s.groups[h];
    if (g + C > total_cubes || g / cps != (g + C - 1) / cps)
      throw UsageError("gqa-long: the group of KV head " + std::to_string(static_cast<int64_t>(h)) +
                       " (cubes " + std::to_string(g) + ".." + std::to_string(g + C - 1) +
                       ") does not lie inside one SIP of " + std::to_string(cps) + " cubes");
    for (size_t o = 0; o < h; ++o)
      if (s.groups[o] < g + C && g < s.groups[o] + C)
        throw UsageError("gqa-long: the cube groups of KV heads " +
                         std::to_string(static_cast<int64_t>(o)) + " and " +
                         std::to_string(static_cast<int64_t>(h)) + " overlap (cubes " +
                         std::to_string(s.groups[o]) + ".." + std::to_string(s.groups[o] + C - 1) +
                         " and " + std::to_string(g) + ".." + std::to_string(g + C - 1) + ")");
  }
  DecodeShape shape;
  shape.d_head = s.d_head;
  shape.tile = s.tile;
  shape.tiled_kv = s.tiled_kv;
  check_tiled_kv(shape, cfg, "gqa-long");
  const uint64_t need = rank_tcm_bytes(G, s.d_head, s.tile, C, P);
  if (need > tcm_arena_capacity(cfg))
    throw UsageError("gqa-long: tile=" + std::to_string(s.tile) + " needs about " +
                     std::to_string(need) + " bytes of TCM per rank; the arena has " +
                     std::to_string(tcm_arena_capacity(cfg)));
  return s;
}

namespace {

// K (the b of Q·Kᵀ, [d, n]) and V (the b of P·V, [n, d]) in native k x n
// blocks; K's blocks column-major, so that the columns of a KV tile are whole
// blocks in one run, V's row-major for its rows.
void tile_kv(fw::KvSegment& seg, const TopologyConfig& cfg) {
  for (fw::Tensor* t : {&seg.kt, &seg.v}) {
    t->h.block_rows = cfg.pe.gemm.tile_k;
    t->h.block_cols = cfg.pe.gemm.tile_n;
  }
  seg.kt.h.block_col_major = true;
}

// Head h's arguments: its Q per cube and KV blocks allocated on its ranks
// (random and written in data mode, kept in *in), its rows of `out_all`.
fw::LongDecodeArgs place_head(HostRuntime& rt, const HeadPlan& plan, const DecodeShape& shape,
                              const fw::Tensor& out_all, int64_t h, AttnData* in) {
  const int64_t G = shape.g, d = shape.d_head, S = shape.s_kv;
  const unsigned C = plan.at.cubes, P = plan.at.pes;
  fw::LongDecodeArgs a;
  a.at = plan.at;
  a.mode = plan.mode;
  a.intra = plan.intra;
  a.tile = shape.tile;
  a.scale = 1.0 / std::sqrt(static_cast<double>(d));
  a.variant = shape.variant;
  a.out = out_all;
  a.out.h.id = rt.ids().next();
  a.out.h.addr += static_cast<uint64_t>(h * G * d) * 4;
  a.out.h.shape = {G, d};
  if (in)
    *in = random_attention_inputs(G, d, S, shape.score_std,
                                  0x676c6f6e67ull + static_cast<uint64_t>(h));
  a.kv.resize(C);
  for (unsigned k = 0; k < C; ++k) {
    const PeAddr root = a.at.rank(k, 0);
    a.q.push_back(rt.alloc_hbm({root.sip, root.cube, root.pe}, {G, d}));
    if (in) rt.write(a.q.back(), in->q);
    for (unsigned p = 0; p < P; ++p) {
      const PeAddr r = a.at.rank(k, p);
      const fw::KvBlock blk = fw::kv_block(plan.mode, S, C, P, k, p);
      const int64_t n = blk.count;
      fw::KvSegment seg{rt.alloc_hbm({r.sip, r.cube, r.pe}, {d, n}),
                        rt.alloc_hbm({r.sip, r.cube, r.pe}, {n, d})};
      if (shape.tiled_kv) tile_kv(seg, rt.platform().config());
      if (in) {
        rt.write(seg.kt, columns(in->kt, d, S, blk.first, n));
        rt.write(seg.v, rows(in->v, d, blk.first, n));
      }
      a.kv[k].push_back(seg);
    }
  }
  return a;
}

// Posts `kernel` on every rank of a's placement: whole cubes from cube_start
// through the DPPolicy launch grid, a PE subset of a cube by explicit PEs.
void launch_head(HostRuntime& rt, const fw::LongDecodeArgs& a, const Kernel& kernel) {
  try {
    if (a.at.pe_start == 0) {
      DpPolicy policy;
      policy.sip = a.at.sip;
      policy.cube_start = a.at.cube_start;
      policy.pes_per_cube = a.at.pes;
      rt.launch(kernel, LaunchGrid{a.at.cubes * a.at.pes, 1, 1}, policy);
      return;
    }
    std::vector<PeId> pes;
    for (unsigned k = 0; k < a.at.cubes; ++k)
      for (unsigned p = 0; p < a.at.pes; ++p) {
        const PeAddr r = a.at.rank(k, p);
        pes.push_back({r.sip, r.cube, r.pe});
      }
    rt.launch_on(pes, kernel);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

// Checks that tiled KV blocks fit: d and the tile multiples of the native
// tile's k and n.
void check_tiled_kv(const DecodeShape& s, const TopologyConfig& cfg, const std::string& bench) {
  if (!s.tiled_kv) return;
  const int64_t tk = cfg.pe.gemm.tile_k, tn = cfg.pe.gemm.tile_n;
  if (s.d_head % tk != 0 || s.d_head % tn != 0 || s.tile % tk != 0 || s.tile % tn != 0)
    throw UsageError(bench + ": kv_layout=tiled stores K and V in the GEMM's native " +
                     std::to_string(tk) + "x" + std::to_string(tn) +
                     " blocks, so d_head and tile must be multiples of " +
                     std::to_string(std::max(tk, tn)) + " (or use --param kv_layout=rowmajor)");
}

nlohmann::json run_decode_heads(HostRuntime& rt, const std::vector<HeadPlan>& plans,
                                const DecodeShape& shape, bool data_mode,
                                std::vector<float>* out_values) {
  Platform& platform = rt.platform();
  const int64_t G = shape.g, d = shape.d_head, S = shape.s_kv;
  const auto n_heads = static_cast<int64_t>(plans.size());
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  check_tiled_kv(shape, platform.config(), "gqa");

  // The layer's attention output [heads, d] in sip0.cube0.pe0's HBM, where an
  // out-projection would read it; each KV head's root writes its G rows.
  const fw::Tensor out_all = rt.alloc_hbm({0, 0, 0}, {n_heads * G, d}, DType::kFp32);
  std::vector<fw::LongDecodeArgs> args(plans.size());
  std::vector<AttnData> inputs(data_mode ? plans.size() : 0);
  for (size_t h = 0; h < plans.size(); ++h)
    args[h] = place_head(rt, plans[h], shape, out_all, static_cast<int64_t>(h),
                         data_mode ? &inputs[h] : nullptr);

  const ActivityCounters before = ActivityCounters::take(platform);
  const double t0 = platform.now_ns();
  double t_end = t0;
  const auto wall0 = std::chrono::steady_clock::now();
  for (const fw::LongDecodeArgs& a : args)
    launch_head(rt, a, [&a, &t_end](fw::Tl& tl) {
      fw::attention_long_decode(tl, a);
      t_end = std::max(t_end, tl.now_ns());
    });
  rt.run();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const ActivityCounters c = ActivityCounters::take(platform).since(before);

  const HeadPlan& p0 = plans.front();
  // The fullest cube's KV (blocks differ by at most a position).
  int64_t n0 = 0;
  for (unsigned k = 0; k < p0.at.cubes; ++k) {
    int64_t in_cube = 0;
    for (unsigned q = 0; q < p0.at.pes; ++q)
      in_cube += fw::kv_block(p0.mode, S, p0.at.cubes, p0.at.pes, k, q).count;
    n0 = std::max(n0, in_cube);
  }
  nlohmann::json pt = {
      {"S_kv", S},
      {"C", p0.at.cubes},
      {"P", p0.at.pes},
      {"kv_heads", n_heads},
      {"G", G},
      {"tile", shape.tile},
      {"kv_layout", shape.tiled_kv ? "tiled" : "rowmajor"},
      {"latency_ns", t_end - t0},
      {"kv_bytes_per_cube", static_cast<uint64_t>(n0) * static_cast<uint64_t>(d) * 2 * 2},
      {"ipcq_ops", c.ipcq_ops},
      {"dma_reads", c.dma_reads},
      {"dma_writes", c.dma_writes},
      {"dma_ops", c.dma_ops()},
      {"dma_bursts", c.dma_bursts},
      {"link_bytes", c.traffic.link_bytes},
      {"cube_link_bytes", c.traffic.cube_link_bytes},
      {"sip_link_bytes", c.traffic.sip_link_bytes},
      {"wall_s", wall}};
  LongDecodePoint mp;
  mp.mode = p0.mode;
  mp.intra = p0.intra;
  for (const HeadPlan& h : plans) mp.heads.push_back(h.at);
  mp.g = G;
  mp.d_head = d;
  mp.s_kv = S;
  mp.tile = shape.tile;
  mp.variant = shape.variant;
  mp.tiled_kv = shape.tiled_kv;
  const AttentionModel model = long_decode_model(platform.config(), mp);
  pt["model_ns"] = model.total_ns;
  pt["measured_over_model"] = (t_end - t0) / model.total_ns;
  pt["model"] = model.to_json();
  if (data_mode) {
    const std::vector<float> out = rt.read(out_all);
    double err = 0;
    for (int64_t h = 0; h < n_heads; ++h) {
      const double e =
          attention_max_error(inputs[static_cast<size_t>(h)], rows(out, d, h * G, G), scale);
      if (std::isnan(e) || e > err) err = e;
    }
    pt["max_abs_err"] = err;
    if (out_values) *out_values = out;
  }
  rt.release_all();
  return pt;
}

std::vector<std::string> decode_heads_point_fields() {
  return {"S_kv",
          "C",
          "P",
          "kv_heads",
          "G",
          "tile",
          "kv_layout",
          "latency_ns",
          "kv_bytes_per_cube",
          "ipcq_ops",
          "dma_reads",
          "dma_writes",
          "dma_ops",
          "dma_bursts",
          "link_bytes",
          "cube_link_bytes",
          "sip_link_bytes",
          "wall_s",
          "model_ns",
          "measured_over_model",
          "model",
          "max_abs_err"};
}

nlohmann::json run_long_decode(HostRuntime& rt, const LongDecodeSpec& spec_in, bool data_mode,
                               std::vector<float>* out) {
  const TopologyConfig& cfg = rt.platform().config();
  const LongDecodeSpec s = resolve_long_decode(spec_in, cfg);
  const fw::DecodeCase mode = fw::decode_case(s.case_no);
  const unsigned cps = cfg.cubes_per_sip();
  std::vector<HeadPlan> plans;
  for (unsigned g : s.groups) plans.push_back({{g / cps, g % cps, s.cubes, 0, s.pes}, mode});
  DecodeShape shape;
  shape.g = s.heads / s.kv_heads;
  shape.d_head = s.d_head;
  shape.s_kv = s.s_kv;
  shape.tile = s.tile;
  shape.score_std = s.score_std;
  shape.variant = s.variant;
  shape.tiled_kv = s.tiled_kv;
  nlohmann::json pt = run_decode_heads(rt, plans, shape, data_mode, out);
  pt["case"] = s.case_no;
  pt["case_name"] = fw::to_string(mode);
  return pt;
}

std::vector<std::string> long_decode_point_fields() {
  return with_fields(decode_heads_point_fields(), {"case", "case_name"});
}

bool parse_kv_layout(const BenchParams& p) {
  const std::string& v = p.str("kv_layout");
  if (v != "tiled" && v != "rowmajor")
    throw UsageError("--param kv_layout=" + v + ": expected tiled or rowmajor");
  return v == "tiled";
}

namespace {

std::vector<ParamSpec> long_decode_params(const std::string& cases, const std::string& s_kv,
                                          const std::string& cubes, const std::string& kv_heads,
                                          const std::string& heads) {
  return {
      {"case", cases,
       "parallelism case(s), comma-separated: 1 Cube-SP x PE-TP, 2 Cube-Repl x PE-TP, "
       "3 Cube-Repl x PE-SP, 4 Cube-SP x PE-SP"},
      {"S_kv", s_kv,
       "KV positions (comma-separated for several; any: ranks hold near-equal blocks)"},
      {"C", cubes, "cubes per KV head (0 = the largest of 8, 4, 2, 1 that fits every head)"},
      {"P", "0", "PEs per cube (0 = every PE of a cube)"},
      {"kv_heads", kv_heads, "KV heads, each on its own group of C cubes (Llama-70B: 8)"},
      {"heads", heads, "query heads (G = heads / kv_heads per KV head, folded into M)"},
      {"d_head", "128", "head dimension"},
      {"tile", "64", "KV positions per tile"},
      {"groups", "",
       "first cube of each KV head's group, comma-separated, as sip*cubes_per_sip + cube "
       "(default h*C); groups may not overlap or straddle SIPs"},
      {"score_std", "10", "data mode: standard deviation of the scaled logits (10: high contrast)"},
      {"variant", "opt2", "decode loop of every rank: opt1 | opt2 | opt3"},
      {"kv_layout", "tiled",
       "KV in HBM: tiled (the GEMM's native k x n blocks, one contiguous run per streamed "
       "tile) | rowmajor (K transposed row-major: a strided row per tile row)"}};
}

LongDecodeSpec spec_from(const BenchParams& p) {
  LongDecodeSpec s;
  auto nonneg = [&](const char* key) {
    const long long v = p.integer(key);
    if (v < 0 || v > 4096) throw UsageError(std::string("--param ") + key + " must be 0..4096");
    return static_cast<unsigned>(v);
  };
  s.cubes = nonneg("C");
  s.pes = nonneg("P");
  s.kv_heads = p.integer_within("kv_heads", kMaxHeads);
  s.heads = p.integer_within("heads", kMaxHeads);
  s.d_head = p.integer_within("d_head", kMaxHeads);
  s.tile = p.integer_within("tile", kMaxTile);
  s.score_std = p.number("score_std");
  if (!(s.score_std > 0 && s.score_std <= 1000))
    throw UsageError("--param score_std must be in (0, 1000]");
  s.variant = p.str("variant");
  s.tiled_kv = parse_kv_layout(p);
  if (s.variant != "opt1" && s.variant != "opt2" && s.variant != "opt3")
    throw UsageError("--param variant=" + s.variant + ": expected opt1, opt2 or opt3");
  for (const long long v : p.integers("groups")) {
    if (v < 0 || v > (1 << 20))
      throw UsageError("--param groups: " + std::to_string(v) + " is not a cube index");
    s.groups.push_back(static_cast<unsigned>(v));
  }
  return s;
}

// A non-empty --param list of integers.
std::vector<long long> int_list(const BenchParams& p, const std::string& key) {
  std::vector<long long> out = p.integers(key);
  if (out.empty()) throw UsageError("--param " + key + " is empty");
  for (const long long v : out)
    if (v > kMaxPositions || v < -kMaxPositions)
      throw UsageError("--param " + key + "=" + std::to_string(v) + ": out of range, at most " +
                       std::to_string(kMaxPositions));
  return out;
}

// The table's title for the cases and S_kv sizes asked for.
using CasesTitle = std::function<std::string(const std::vector<long long>& cases,
                                             const std::vector<long long>& sizes)>;

BenchResult run_cases(BenchContext& ctx, const CasesTitle& title_of) {
  const BenchParams& p = ctx.params;
  const LongDecodeSpec base = spec_from(p);
  const std::vector<long long> cases = int_list(p, "case"), sizes = int_list(p, "S_kv");
  const std::string title = title_of(cases, sizes);
  // Every point is checked before the first one runs.
  for (long long c : cases)
    for (long long sz : sizes) {
      LongDecodeSpec s = base;
      s.case_no = static_cast<int>(c);
      s.s_kv = sz;
      resolve_long_decode(s, ctx.platform.config());
    }
  HostRuntime rt(ctx.platform);
  PointWindows windows(ctx.platform);
  BenchResult res;
  SummaryTable table{
      title,
      {"case", "S_kv", "C x P", "latency_us", "model_us", "meas/model", "KV MiB/cube", "ipcq_ops",
       "dma_ops", "cube_link_MB", "sip_link_KB", "wall_s", "max_abs_err"},
      {}};
  Progress progress(title.substr(0, title.find(':')), "point",
                    static_cast<int64_t>(sizes.size() * cases.size()), ctx.quiet);
  for (long long sz : sizes)
    for (long long c : cases) {
      LongDecodeSpec s = base;
      s.case_no = static_cast<int>(c);
      s.s_kv = sz;
      nlohmann::json pt = run_long_decode(rt, s, ctx.data_mode);
      windows.stamp(pt);
      progress.step();
      table.rows.push_back({std::to_string(c) + " " + pt["case_name"].get<std::string>(),
                            std::to_string(sz),
                            std::to_string(pt["C"].get<unsigned>()) + " x " +
                                std::to_string(pt["P"].get<unsigned>()),
                            fmt(pt["latency_ns"].get<double>() / 1e3, 2),
                            fmt(pt["model_ns"].get<double>() / 1e3, 2) +
                                (pt["model"].contains("bound") ? " (bound)" : ""),
                            fmt(pt["measured_over_model"], 4),
                            fmt(pt["kv_bytes_per_cube"].get<double>() / (1 << 20), 2),
                            std::to_string(pt["ipcq_ops"].get<uint64_t>()),
                            std::to_string(pt["dma_ops"].get<uint64_t>()),
                            fmt(pt["cube_link_bytes"].get<double>() / 1e6, 3),
                            fmt(pt["sip_link_bytes"].get<double>() / 1e3, 1), fmt(pt["wall_s"], 2),
                            pt.contains("max_abs_err") ? fmt(pt["max_abs_err"], 5) : "-"});
      res.points.push_back(pt);
    }
  res.tables.push_back(table);
  if (res.points.size() == 1) res.metrics = res.points[0];
  return res;
}

}  // namespace

std::vector<ParamSpec> GqaLongBench::params() const {
  return long_decode_params("4", "8192", "0", "8", "64");
}

std::vector<std::string> GqaLongBench::point_fields() const {
  return with_fields(long_decode_point_fields(), {PointWindows::kField});
}

BenchResult GqaLongBench::run(BenchContext& ctx) {
  return run_cases(ctx, [](const std::vector<long long>&, const std::vector<long long>&) {
    return "gqa-long: Llama-70B decode, every KV head on C cubes x P PEs";
  });
}

std::vector<ParamSpec> GqaSweepBench::params() const {
  return long_decode_params("1,2,3,4", "8192,131072", "8", "1", "8");
}

std::vector<std::string> GqaSweepBench::point_fields() const {
  return with_fields(long_decode_point_fields(), {PointWindows::kField});
}

std::vector<std::string> GqaSweepBench::metric_fields() const {
  return {"points", "wall_s_total"};  // one point's result: its fields too
}

BenchResult GqaSweepBench::run(BenchContext& ctx) {
  BenchResult r =
      run_cases(ctx, [](const std::vector<long long>& cases, const std::vector<long long>& sizes) {
        std::string at;
        for (const long long s : sizes) at += (at.empty() ? "" : ", ") + std::to_string(s);
        return "gqa-sweep: " + std::to_string(cases.size()) + " long-context decode case" +
               (cases.size() == 1 ? "" : "s") + " at S_kv " + at;
      });
  double wall = 0;
  for (const auto& pt : r.points) wall += pt["wall_s"].get<double>();
  r.metrics["points"] = r.points.size();
  r.metrics["wall_s_total"] = wall;
  return r;
}

}  // namespace kb
