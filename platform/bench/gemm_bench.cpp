#include "platform/bench/gemm_bench.h"

#include <sstream>

#include "models/common/errors.h"
#include "platform/bench/gemm_study.h"
#include "platform/bench/progress.h"
#include "platform/output/energy_report.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {

namespace {

void check_variant(const std::string& v) {
  for (const auto& k : kGemmVariants)
    if (k == v) return;
  throw UsageError("--param variant=" + v + ": expected load_ref, ref_ref or load_load");
}

}  // namespace

SummaryTable gemm_table(const std::string& title) {
  return {title,
          {"M",           "K",         "N",
           "variant",     "tiles",     "window_ns",
           "TFLOP/s",     "MAC util",  "analytic",
           "HBM util",    "dma_in",    "fetch",
           "gemm",        "store",     "dma_out",
           "dispatch_ns", "pJ/flop",   "dyn pJ/flop",
           "model",       "dyn/model", EnergyReport::kDominantHeader},
          {}};
}

void add_gemm_row(SummaryTable& t, const nlohmann::json& pt) {
  if (pt.value("skipped", false)) {
    t.rows.push_back({std::to_string(pt["M"].get<int64_t>()),
                      std::to_string(pt["K"].get<int64_t>()),
                      std::to_string(pt["N"].get<int64_t>()), pt["variant"].get<std::string>(),
                      "skipped: does not fit TCM"});
    return;
  }
  const auto& sb = pt["stage_busy_ns"];
  auto pct = [](double v) { return fmt(100.0 * v, 1) + "%"; };
  t.rows.push_back({std::to_string(pt["M"].get<int64_t>()),
                    std::to_string(pt["K"].get<int64_t>()),
                    std::to_string(pt["N"].get<int64_t>()),
                    pt["variant"].get<std::string>(),
                    std::to_string(pt["n_tiles"].get<unsigned>()),
                    fmt(pt["window_ns"], 1),
                    fmt(pt["tflops_per_pe"], 3),
                    pct(pt["mac_util"]),
                    pct(pt["mac_util_analytic"]),
                    pct(pt["hbm_bw_util"]),
                    fmt(sb["dma_in"], 0),
                    fmt(sb["fetch"], 0),
                    fmt(sb["gemm"], 0),
                    fmt(sb["store"], 0),
                    fmt(sb["dma_out"], 0),
                    fmt(pt["dispatch_ns"], 3),
                    fmt(pt["pj_per_flop"], 2),
                    fmt(pt["dynamic_pj_per_flop"], 2),
                    fmt(pt["energy_model"]["dynamic_pj_per_flop"], 2),
                    fmt(pt["dynamic_energy_over_model"], 3),
                    pt["energy"]["dominant"].get<std::string>()});
}

std::vector<ParamSpec> GemmBench::params() const {
  return {{"M", "32", "rows of A and C"},
          {"K", "3072", "columns of A, rows of W"},
          {"N", "32", "columns of W and C"},
          {"variant", "load_ref", "operand staging: load_ref | ref_ref | load_load"}};
}

// A point is run_gemm_point's (the metrics are the same object).
std::vector<std::string> GemmBench::point_fields() const {
  return with_fields(gemm_point_fields(), {PointWindows::kField});
}

BenchResult GemmBench::run(BenchContext& ctx) {
  GemmShape s{ctx.params.integer("M"), ctx.params.integer("K"), ctx.params.integer("N")};
  if (s.m <= 0 || s.k <= 0 || s.n <= 0) throw UsageError("--param M, K, N must be > 0");
  check_gemm_size(ctx.platform.config(), s);
  const std::string variant = ctx.params.str("variant");
  check_variant(variant);
  const std::string why = gemm_fit(ctx.platform.config(), s, variant);
  if (!why.empty()) throw UsageError("gemm " + variant + ": " + why);
  HostRuntime rt(ctx.platform);
  PointWindows windows(ctx.platform);
  BenchResult res;
  nlohmann::json pt = run_gemm_point(rt, s, variant, ctx.data_mode);
  windows.stamp(pt);
  res.points.push_back(pt);
  res.metrics = pt;
  SummaryTable t = gemm_table("gemm on sip0.cube0.pe0 (stage busy in ns inside the window)");
  add_gemm_row(t, pt);
  res.tables.push_back(t);
  return res;
}

std::vector<ParamSpec> GemmSweepBench::params() const {
  return {
      {"shapes", "32x64x32,32x256x32,32x1024x32,32x3072x32,128x1024x128,256x256x256,512x2048x512",
       "MxKxN shapes, comma-separated"},
      {"variants", "load_ref,ref_ref,load_load", "variants, comma-separated"}};
}

// run_gemm_point's point, or a skipped one (its shape, variant and why).
std::vector<std::string> GemmSweepBench::point_fields() const {
  return with_fields(gemm_point_fields(), {"skipped", "reason", PointWindows::kField});
}

std::vector<std::string> GemmSweepBench::metric_fields() const {
  return {"max_mac_util_gap_pp"};  // and max_rel_err, a point field too
}

BenchResult GemmSweepBench::run(BenchContext& ctx) {
  std::vector<GemmShape> shapes;
  std::vector<std::string> variants;
  {
    std::stringstream ss(ctx.params.str("shapes"));
    std::string item;
    while (std::getline(ss, item, ',')) {
      shapes.push_back(parse_gemm_shape(item));
      check_gemm_size(ctx.platform.config(), shapes.back());
    }
    std::stringstream vs(ctx.params.str("variants"));
    while (std::getline(vs, item, ',')) {
      check_variant(item);
      variants.push_back(item);
    }
  }
  if (shapes.empty() || variants.empty())
    throw UsageError("--param shapes and variants need at least one value each");
  HostRuntime rt(ctx.platform);
  PointWindows windows(ctx.platform);
  BenchResult res;
  SummaryTable t = gemm_table("gemm-sweep on sip0.cube0.pe0 (stage busy in ns inside the window)");
  double worst_gap = 0, worst_err = 0;
  Progress progress(name(), "point", static_cast<int64_t>(shapes.size() * variants.size()),
                    ctx.quiet);
  for (const GemmShape& s : shapes)
    for (const std::string& v : variants) {
      const std::string why = gemm_fit(ctx.platform.config(), s, v);
      nlohmann::json pt;
      if (!why.empty()) {
        pt = {{"M", s.m},     {"K", s.k},        {"N", s.n},
              {"variant", v}, {"skipped", true}, {"reason", why}};
      } else {
        pt = run_gemm_point(rt, s, v, ctx.data_mode);
        if (pt.contains("max_rel_err"))
          worst_err = std::max(worst_err, pt["max_rel_err"].get<double>());
        worst_gap = std::max(worst_gap, std::abs(pt["mac_util"].get<double>() -
                                                 pt["mac_util_analytic"].get<double>()));
      }
      add_gemm_row(t, pt);
      windows.stamp(pt);
      res.points.push_back(pt);
      progress.step();
    }
  res.metrics["max_mac_util_gap_pp"] = 100.0 * worst_gap;
  if (ctx.data_mode) res.metrics["max_rel_err"] = worst_err;
  res.tables.push_back(t);
  return res;
}

}  // namespace kb
