#include "platform/bench/gemm_study.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <tuple>
#include <vector>

#include "models/commands/commands.h"
#include "models/common/checked_math.h"
#include "models/common/dtype_convert.h"
#include "models/common/errors.h"
#include "models/trace/op_log.h"
#include "platform/config/topology_config.h"
#include "platform/fabric/pe.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {

namespace {

constexpr unsigned kFp16Bytes = 2;  // fp16

struct BusyInterval {
  double a, b;
};

double union_ns(std::vector<BusyInterval> v, double lo, double hi) {
  std::sort(v.begin(), v.end(),
            [](const BusyInterval& x, const BusyInterval& y) { return x.a < y.a; });
  double total = 0, cur_a = 0, cur_b = -1;
  for (auto iv : v) {
    iv.a = std::max(iv.a, lo);
    iv.b = std::min(iv.b, hi);
    if (iv.b <= iv.a) continue;
    if (iv.a > cur_b) {
      if (cur_b > cur_a) total += cur_b - cur_a;
      cur_a = iv.a;
      cur_b = iv.b;
    } else {
      cur_b = std::max(cur_b, iv.b);
    }
  }
  if (cur_b > cur_a) total += cur_b - cur_a;
  return total;
}

}  // namespace

GemmShape parse_gemm_shape(const std::string& text) {
  GemmShape s;
  char x1 = 0, x2 = 0;
  std::istringstream is(text);
  if (!(is >> s.m >> x1 >> s.k >> x2 >> s.n) || x1 != 'x' || x2 != 'x' || s.m <= 0 || s.k <= 0 ||
      s.n <= 0 || is.peek() != EOF)
    throw UsageError("--param shapes: '" + text + "' is not MxKxN (e.g. 32x3072x32)");
  return s;
}

void check_gemm_size(const TopologyConfig& cfg, const GemmShape& s) {
  const std::string shape =
      std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
  uint64_t total = 0;
  for (const auto& [name, rows, cols] : {std::tuple<const char*, int64_t, int64_t>{"A", s.m, s.k},
                                         {"W", s.k, s.n},
                                         {"C", s.m, s.n}}) {
    const auto bytes = checked_product({rows, cols, static_cast<int64_t>(kFp16Bytes)});
    if (!bytes || *bytes > UINT64_MAX - total)
      throw UsageError("gemm " + shape + ": operand " + name + " [" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "] is larger than 2^63 bytes");
    total += *bytes;
  }
  const uint64_t cap = cfg.pe.hbm.size_bytes;
  if (total > cap)
    throw UsageError("gemm " + shape + ": A, W and C need " + std::to_string(total) +
                     " bytes but the HBM of one PE (pe.hbm.size_bytes) holds " +
                     std::to_string(cap));
}

std::string gemm_fit(const TopologyConfig& cfg, const GemmShape& s, const std::string& variant) {
  const uint64_t arena = tcm_arena_capacity(cfg);
  uint64_t need = 0;
  check_gemm_size(cfg, s);  // so the products below fit
  if (!gemm_streams_a(variant)) need += static_cast<uint64_t>(s.m * s.k) * kFp16Bytes + 64;
  if (!gemm_streams_b(variant)) need += static_cast<uint64_t>(s.k * s.n) * kFp16Bytes + 64;
  if (need <= arena) return "";
  return "pre-loaded operands need " + std::to_string(need) + " bytes of TCM but the arena has " +
         std::to_string(arena) + " (TCM " + std::to_string(cfg.pe.tcm.size_bytes) + " minus " +
         std::to_string(tcm_staging_bytes(cfg)) + " of staging buffers and " +
         std::to_string(cfg.pe.ipcq.ring_bytes) + " of IPCQ rings)";
}

nlohmann::json run_gemm_point(HostRuntime& rt, const GemmShape& s, const std::string& variant,
                              bool data) {
  Platform& p = rt.platform();
  const TopologyConfig& c = p.config();
  const PeId pe{0, 0, 0};
  const uint64_t align = c.pe.hbm.interleave_bytes * c.pe.hbm.num_pcs;
  const fw::Tensor A = rt.alloc_hbm(pe, {s.m, s.k}, DType::kFp16, align);
  const fw::Tensor W = rt.alloc_hbm(pe, {s.k, s.n}, DType::kFp16, align);
  const fw::Tensor C = rt.alloc_hbm(pe, {s.m, s.n}, DType::kFp16, align);
  std::vector<float> a_vals, w_vals;
  if (data) {
    std::mt19937_64 rng(0x6b65726e62656e63ull);  // fixed seed: deterministic
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    a_vals.resize(static_cast<size_t>(s.m * s.k));
    w_vals.resize(static_cast<size_t>(s.k * s.n));
    for (float& v : a_vals) v = round_to(u(rng), DType::kFp16);
    for (float& v : w_vals) v = round_to(u(rng), DType::kFp16);
    rt.write(A, a_vals);
    rt.write(W, w_vals);
  }
  const std::string pe_path = "system.sip0.cube0.pe0";
  // Energy of the whole launch, operand loads included: the PE's own blocks
  // and the whole platform.
  const EnergySnapshot pe_before = p.energy(pe_path), all_before = p.energy();
  const double launch_ns = p.now_ns();
  CommandHandle h;
  rt.launch([&](fw::Tl& tl) {
    fw::Tensor a = gemm_streams_a(variant) ? A : tl.load(A);
    fw::Tensor b = gemm_streams_b(variant) ? W : tl.load(W);
    tl.wait(a);
    tl.wait(b);
    fw::CompositeArgs args;
    args.a = a;
    args.b = b;
    args.out = C;
    fw::Tensor out = tl.composite(args);
    h = out.pending;
    tl.wait(out);
  });
  p.name_next_run("gemm " + std::to_string(s.m) + "x" + std::to_string(s.k) + "x" +
                  std::to_string(s.n) + " " + variant);
  rt.run();
  const double launch_window = p.now_ns() - launch_ns;
  const EnergyReport pe_energy = EnergyReport::between(pe_before, p.energy(pe_path), launch_window);
  const EnergyReport all_energy = EnergyReport::between(all_before, p.energy(), launch_window);

  const double t0 = h->dispatch_start_ns, t1 = h->done_ns, window = t1 - t0;
  std::map<std::string, std::vector<BusyInterval>> by_stage;
  uint64_t dma_bytes = 0, flops = 0;
  unsigned n_tiles = 0;
  for (const OpRecord& r : p.op_log().records()) {
    if (r.pe != pe_path || r.cmd_id != h->id) continue;
    by_stage[r.stage].push_back({r.t_start_ns, r.t_end_ns});
    if (r.stage == "DMA_READ" || r.stage == "DMA_WRITE") dma_bytes += r.bytes;
    if (r.stage == "GEMM") ++n_tiles;
  }
  flops = static_cast<uint64_t>(2 * s.m * s.k * s.n);
  const double peak_flop_per_ns = c.pe.gemm.peak_tflops * 1000.0;
  const GemmAnalytic an = gemm_analytic(c, s, variant);
  nlohmann::json j;
  j["M"] = s.m;
  j["K"] = s.k;
  j["N"] = s.n;
  j["variant"] = variant;
  j["window_ns"] = window;
  j["tflops_per_pe"] = static_cast<double>(flops) / window / 1000.0;
  j["mac_util"] = static_cast<double>(flops) / (peak_flop_per_ns * window);
  j["mac_util_analytic"] = static_cast<double>(flops) / (peak_flop_per_ns * an.window_ns);
  j["window_ns_analytic"] = an.window_ns;
  j["analytic"] = {{"fill_ns", an.fill_ns},
                   {"tail_ns", an.tail_ns},
                   {"bottleneck", an.bottleneck},
                   {"bottleneck_ns_per_tile", an.bottleneck_ns}};
  j["hbm_bw_util"] = static_cast<double>(dma_bytes) / (c.pe_hbm_bandwidth_gbps() * window);
  j["dma_bytes"] = dma_bytes;
  j["stage_busy_ns"] = {{"dma_in", union_ns(by_stage["DMA_READ"], t0, t1)},
                        {"fetch", union_ns(by_stage["FETCH"], t0, t1)},
                        {"gemm", union_ns(by_stage["GEMM"], t0, t1)},
                        {"store", union_ns(by_stage["STORE"], t0, t1)},
                        {"dma_out", union_ns(by_stage["DMA_WRITE"], t0, t1)}};
  j["dispatch_ns"] = h->issued_ns - h->dispatch_start_ns;
  j["n_tiles"] = n_tiles;
  j["cmd_id"] = h->id;
  j["pj_per_flop"] = pe_energy.total_pj() / static_cast<double>(flops);
  j["dynamic_pj_per_flop"] = pe_energy.dynamic_total_pj() / static_cast<double>(flops);
  j["energy_pj"] = pe_energy.total_pj();
  j["platform_energy_pj"] = all_energy.total_pj();
  j["energy"] = pe_energy.to_json();
  // Beside the measured dynamic energy, the model's (the same knobs over the
  // bytes, bursts and tiles the shape implies): a ratio off 1 means the
  // launch moved or computed something the tile plan does not.
  const GemmEnergyModel em = gemm_energy_model(c, s, variant);
  j["energy_model"] = {{"dynamic_pj", em.dynamic_pj()},
                       {"dynamic_pj_per_flop", em.dynamic_pj() / static_cast<double>(flops)},
                       {"dominant", em.dominant()},
                       {"by_class_pj",
                        {{"gemm", em.gemm_pj},
                         {"hbm", em.hbm_pj},
                         {"tcm", em.tcm_pj},
                         {"router", em.xbar_pj},
                         {"dma", em.dma_pj}}},
                       {"hbm_bytes", em.hbm_bytes},
                       {"tcm_bytes", em.tcm_bytes},
                       {"dma_bursts", em.bursts},
                       {"native_tiles", em.native_tiles}};
  j["dynamic_energy_over_model"] = pe_energy.dynamic_total_pj() / em.dynamic_pj();
  if (data) {
    const std::vector<float> c = rt.read(C);
    double max_abs = 0, max_ref = 0;
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t jj = 0; jj < s.n; ++jj) {
        double ref = 0;
        for (int64_t p = 0; p < s.k; ++p)
          ref += static_cast<double>(a_vals[static_cast<size_t>(i * s.k + p)]) *
                 w_vals[static_cast<size_t>(p * s.n + jj)];
        max_ref = std::max(max_ref, std::abs(ref));
        max_abs = std::max(max_abs, std::abs(c[static_cast<size_t>(i * s.n + jj)] - ref));
      }
    j["max_abs_err"] = max_abs;
    j["max_rel_err"] = max_ref > 0 ? max_abs / max_ref : max_abs;
  }
  return j;
}

std::vector<std::string> gemm_point_fields() {
  return {"M",
          "K",
          "N",
          "variant",
          "window_ns",
          "tflops_per_pe",
          "mac_util",
          "mac_util_analytic",
          "window_ns_analytic",
          "analytic",
          "hbm_bw_util",
          "dma_bytes",
          "stage_busy_ns",
          "dispatch_ns",
          "n_tiles",
          "cmd_id",
          "pj_per_flop",
          "dynamic_pj_per_flop",
          "energy_pj",
          "platform_energy_pj",
          "energy",
          "energy_model",
          "dynamic_energy_over_model",
          "max_abs_err",
          "max_rel_err"};
}

}  // namespace kb
